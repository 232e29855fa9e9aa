//! Whether chat works and where the app keeps its files.

use lango_core::app::{AppError, AppStatus};
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn app_status(state: State<'_, AppState>) -> Result<AppStatus, AppError> {
    Ok(state.app().await?.status().await)
}
