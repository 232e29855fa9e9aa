//! The app handle commands use. The engine opens in the background while the window
//! appears (opening can wait seconds on a slow keychain); commands wait for it. A failed
//! open (a corrupt or too-new database) is kept and returned by every command, so the
//! window can say what is wrong instead of vanishing.

use lango_core::app::{App, AppError};
use tokio::sync::OnceCell;

#[derive(Default)]
pub struct AppState {
    app: OnceCell<Result<App, AppError>>,
}

impl AppState {
    pub fn set(&self, opened: Result<App, AppError>) {
        let _ = self.app.set(opened);
    }

    /// The app once open (waits while it opens).
    pub async fn app(&self) -> Result<App, AppError> {
        loop {
            if let Some(opened) = self.app.get() {
                return opened.clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    pub fn get(&self) -> Option<&Result<App, AppError>> {
        self.app.get()
    }
}
