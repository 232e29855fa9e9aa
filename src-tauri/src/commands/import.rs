//! Settings → Data → Import: import an export with progress through a Channel, stop it, and
//! build the memory of imported conversations (estimate first; progress; stop).

use lango_core::app::AppError;
use lango_core::import::memory::{BuildProgress, BuildReport, MemoryEstimate};
use lango_core::import::{ImportProgress, ImportSummary};
use tauri::ipc::Channel;
use tauri::State;

use crate::state::AppState;

fn sink<T: tauri::ipc::IpcResponse + Send + Sync + 'static>(
    channel: Channel<T>,
) -> impl Fn(T) + Send + Sync + 'static {
    move |event| {
        if let Err(e) = channel.send(event) {
            tracing::debug!("import progress not delivered (window closed?): {e}");
        }
    }
}

#[tauri::command]
pub async fn import_conversations(
    state: State<'_, AppState>,
    path: String,
    on_progress: Channel<ImportProgress>,
) -> Result<ImportSummary, AppError> {
    state
        .app()
        .await?
        .import_file(&path, sink(on_progress))
        .await
}

#[tauri::command]
pub async fn cancel_import(state: State<'_, AppState>) -> Result<bool, AppError> {
    Ok(state.app().await?.cancel_import())
}

#[tauri::command]
pub async fn estimate_import_memory(
    state: State<'_, AppState>,
    keys: Vec<String>,
) -> Result<MemoryEstimate, AppError> {
    state.app().await?.estimate_import_memory(keys).await
}

#[tauri::command]
pub async fn build_import_memory(
    state: State<'_, AppState>,
    keys: Vec<String>,
    on_progress: Channel<BuildProgress>,
) -> Result<BuildReport, AppError> {
    state
        .app()
        .await?
        .build_import_memory(keys, sink(on_progress))
        .await
}

#[tauri::command]
pub async fn cancel_import_memory(state: State<'_, AppState>) -> Result<bool, AppError> {
    Ok(state.app().await?.cancel_import_memory())
}
