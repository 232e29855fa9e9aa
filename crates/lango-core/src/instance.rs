//! One running desktop app per data folder. The first instance holds an exclusive lock on
//! `<data_dir>/lango.lock` and listens on a loopback port written to `<data_dir>/lango.port`;
//! a second start finds the lock taken, asks the first (through that port) to bring its
//! window forward, and exits. Two windows writing one conversation would interleave turns.
//!
//! Why not `tauri-plugin-single-instance`: it keys on the app's identifier (D-Bus name, named
//! mutex), so a second data folder (`LANGO_HOME`, a portable install) could not run beside
//! the first; and this lock is also what `lango doctor` checks before touching the database.
//! Why the port is in its own file: on Windows a file lock is mandatory, so another process
//! cannot read the locked `lango.lock` at all (`ERROR_LOCK_VIOLATION`).
//!
//! Owns only the lock and the "show yourself" ping; it must not know about windows (the
//! shell decides what a ping does). GUI-free, so it is tested without a display.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

const LOCK_FILE: &str = "lango.lock";
/// The primary's loopback port. Only trusted while the lock is held (a stale one is harmless:
/// nobody reads it without finding the lock taken, and the primary rewrites it at start).
const PORT_FILE: &str = "lango.port";
const PING: &[u8] = b"show\n";

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("cannot use the instance lock {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The outcome of [`acquire`].
#[derive(Debug)]
pub enum Instance {
    /// This process is the app. Keep the value alive for the app's lifetime; call
    /// [`Primary::on_ping`] to react when another start asks for the window.
    Primary(Primary),
    /// Another instance runs and was asked to show its window: exit quietly.
    Secondary,
}

#[derive(Debug)]
pub struct Primary {
    // Held for the lock's sake; released when the process exits, however it exits.
    _lock: File,
    listener: TcpListener,
}

impl Primary {
    /// Runs `on_ping` (on a background thread) each time another start asks for the window.
    pub fn on_ping(self, on_ping: impl Fn() + Send + 'static) {
        let Primary { _lock, listener } = self;
        std::thread::spawn(move || {
            let _lock = _lock;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                let mut buf = [0u8; 8];
                if let Ok(n) = stream.read(&mut buf) {
                    if buf[..n].starts_with(&PING[..4]) {
                        on_ping();
                    }
                }
            }
        });
    }
}

/// Becomes the instance for `data_dir`, or pings the one that already is.
pub fn acquire(data_dir: &Path) -> Result<Instance, InstanceError> {
    let path = data_dir.join(LOCK_FILE);
    let io = |source| InstanceError::Io {
        path: path.display().to_string(),
        source,
    };
    std::fs::create_dir_all(data_dir).map_err(io)?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {
            let listener =
                TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).map_err(io)?;
            let port = listener.local_addr().map_err(io)?.port();
            let port_path = data_dir.join(PORT_FILE);
            std::fs::write(&port_path, format!("{port}\n")).map_err(|source| {
                InstanceError::Io {
                    path: port_path.display().to_string(),
                    source,
                }
            })?;
            Ok(Instance::Primary(Primary {
                _lock: file,
                listener,
            }))
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            ping(&data_dir.join(PORT_FILE));
            Ok(Instance::Secondary)
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
    }
}

/// Whether a desktop app holds `data_dir` now (without pinging it): `lango doctor` must
/// not swap the database under its open connections.
pub fn is_running(data_dir: &Path) -> bool {
    let Ok(file) = OpenOptions::new().read(true).open(data_dir.join(LOCK_FILE)) else {
        return false;
    };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => false,
    }
}

/// Best effort: a first instance that is starting up may not have written its port yet.
fn ping(port_path: &Path) {
    for _ in 0..20 {
        let port = std::fs::read_to_string(port_path)
            .ok()
            .and_then(|s| s.trim().parse::<u16>().ok());
        if let Some(port) = port {
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            if let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
                let _ = stream.write_all(PING);
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    tracing::warn!("another Lango instance holds the lock but did not answer");
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_second_start_pings_the_first_and_does_not_become_primary() {
        let dir = tempfile::tempdir().unwrap();
        let Instance::Primary(primary) = acquire(dir.path()).unwrap() else {
            panic!("the first start must be the primary instance");
        };
        let pings = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&pings);
        primary.on_ping(move || {
            seen.fetch_add(1, Ordering::SeqCst);
        });
        assert!(is_running(dir.path()));
        assert!(matches!(acquire(dir.path()).unwrap(), Instance::Secondary));
        for _ in 0..100 {
            if pings.load(Ordering::SeqCst) == 1 {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the primary was never asked to show its window");
    }

    /// Windows locks are mandatory: a second process cannot read a byte of the locked file,
    /// so the port it needs must be readable elsewhere (checked here by content: the lock
    /// semantics themselves only exist on Windows).
    #[test]
    fn the_port_is_published_outside_the_locked_file() {
        let dir = tempfile::tempdir().unwrap();
        let Instance::Primary(primary) = acquire(dir.path()).unwrap() else {
            panic!("first start");
        };
        let port: u16 = std::fs::read_to_string(dir.path().join(PORT_FILE))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(port, primary.listener.local_addr().unwrap().port());
        let locked = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert!(
            locked.is_empty(),
            "nothing to read in the locked file: {locked:?}"
        );
    }

    #[test]
    fn different_data_folders_are_independent() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        assert!(matches!(acquire(a.path()).unwrap(), Instance::Primary(_)));
        assert!(matches!(acquire(b.path()).unwrap(), Instance::Primary(_)));
    }
}
