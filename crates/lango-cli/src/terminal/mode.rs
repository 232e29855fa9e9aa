//! The terminal's line settings, saved before the line editor switches it to raw mode and
//! restored when a signal ends the chat while the editor still holds it (its own restore
//! would only run when its blocked read returns). Without this the shell is left without
//! echo after `kill` of an interactive `lango chat`.

/// The settings of the terminal on stdin when saved; nothing when stdin is not a terminal.
pub struct SavedMode {
    #[cfg(unix)]
    termios: Option<nix::sys::termios::Termios>,
}

impl SavedMode {
    pub fn save() -> Self {
        Self {
            #[cfg(unix)]
            termios: nix::sys::termios::tcgetattr(std::io::stdin()).ok(),
        }
    }

    pub fn restore(&self) {
        #[cfg(unix)]
        if let Some(termios) = &self.termios {
            use nix::sys::termios::{tcsetattr, SetArg};
            if let Err(e) = tcsetattr(std::io::stdin(), SetArg::TCSANOW, termios) {
                tracing::debug!(error = %e, "could not restore the terminal's mode");
            }
        }
    }
}
