//! The memory browser and the "what the model sees" inspector.

use lango_core::app::{AppError, InspectView, MemoryItemKind, MemoryOverview};
use lango_core::store::StoredMessage;
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn memory_overview(
    state: State<'_, AppState>,
    key: String,
) -> Result<MemoryOverview, AppError> {
    state.app().await?.memory_overview(&key).await
}

#[tauri::command]
pub async fn memory_sources(
    state: State<'_, AppState>,
    key: String,
    seq_start: i64,
    seq_end: i64,
) -> Result<Vec<StoredMessage>, AppError> {
    state
        .app()
        .await?
        .memory_sources(&key, seq_start, seq_end)
        .await
}

#[tauri::command]
pub async fn update_memory_item(
    state: State<'_, AppState>,
    kind: MemoryItemKind,
    id: String,
    content: String,
) -> Result<(), AppError> {
    state
        .app()
        .await?
        .update_memory_item(kind, &id, &content)
        .await
}

#[tauri::command]
pub async fn delete_memory_item(
    state: State<'_, AppState>,
    kind: MemoryItemKind,
    id: String,
) -> Result<(), AppError> {
    state.app().await?.delete_memory_item(kind, &id).await
}

#[tauri::command]
pub async fn inspect(state: State<'_, AppState>, key: String) -> Result<InspectView, AppError> {
    state.app().await?.inspect(&key).await
}
