//! Children that die with Lango: each server runs in its own process group (so `npx` and
//! the `node` it starts are stopped together), is killed when its handle drops, and on
//! Linux also gets SIGKILL from the kernel if Lango itself dies (`PR_SET_PDEATHSIG`). On
//! Windows a job object does the same.

use process_wrap::tokio::CommandWrap;

/// `cmd` wrapped so the server cannot outlive us.
pub fn wrap(cmd: tokio::process::Command) -> CommandWrap {
    #[cfg(target_os = "linux")]
    let mut cmd = cmd;
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and only calls prctl and
    // getppid, which are async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may already have died between fork and prctl.
            if libc::getppid() == 1 {
                return Err(std::io::Error::other(
                    "Lango exited while the server was starting",
                ));
            }
            Ok(())
        });
    }
    let mut wrapped = CommandWrap::from(cmd);
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    wrapped.wrap(process_wrap::tokio::JobObject);
    wrapped.wrap(process_wrap::tokio::KillOnDrop);
    wrapped
}
