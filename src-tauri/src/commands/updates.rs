//! Settings → About: check the release feed, and open a release's page in the browser.
//! Nothing is downloaded or installed by the app.

use lango_core::app::{AppError, UpdateCheck};
use lango_core::update::link::check_release_link;
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn check_for_updates(state: State<'_, AppState>) -> Result<UpdateCheck, AppError> {
    Ok(state.app().await?.check_for_updates().await)
}

/// Opens `url` in the system browser — only an `http(s)://` address (checked again here:
/// the webview is not trusted to send only what the check returned).
#[tauri::command]
pub async fn open_release_page(url: String) -> Result<(), AppError> {
    let url = check_release_link(&url)
        .map_err(|why| AppError::new("bad_link", format!("not opened: the link {why}")))?;
    crate::opener::open(url.as_ref())
        .map_err(|e| AppError::new("open_link", format!("could not open the browser: {e}")))
}
