//! The app handle commands use. The engine opens in the background while the window
//! appears (opening can wait seconds on a slow keychain); commands wait for it. A failed
//! open (a corrupt or too-new database) is kept and returned by every command, so the
//! window can say what is wrong instead of vanishing. After a recovery put another
//! database file in place, the app is opened again (`clear`, then `set`).

use std::sync::RwLock;

use lango_core::app::{App, AppError};

#[derive(Default)]
pub struct AppState {
    app: RwLock<Option<Result<App, AppError>>>,
}

impl AppState {
    pub fn set(&self, opened: Result<App, AppError>) {
        if let Ok(mut slot) = self.app.write() {
            *slot = Some(opened);
        }
    }

    /// Forgets a failed open: commands wait for the next one.
    pub fn clear(&self) {
        if let Ok(mut slot) = self.app.write() {
            *slot = None;
        }
    }

    /// The app once open (waits while it opens).
    pub async fn app(&self) -> Result<App, AppError> {
        loop {
            if let Some(opened) = self.get() {
                return opened;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    pub fn get(&self) -> Option<Result<App, AppError>> {
        self.app.read().ok().and_then(|slot| slot.clone())
    }
}
