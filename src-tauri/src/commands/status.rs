//! Whether chat works, where the app keeps its files and what they take on disk.

use lango_core::app::{AppError, AppStatus, StorageUsage};
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn app_status(state: State<'_, AppState>) -> Result<AppStatus, AppError> {
    Ok(state.app().await?.status().await)
}

#[tauri::command]
pub async fn storage_usage(state: State<'_, AppState>) -> Result<StorageUsage, AppError> {
    state.app().await?.storage_usage().await
}
