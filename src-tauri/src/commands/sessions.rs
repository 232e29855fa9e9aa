//! The sessions sidebar and the message list.

use lango_core::app::{
    AppError, ExportFormat, ExportResult, SessionSummary, SessionsPage, ToolResultText,
};
use lango_core::store::{FindMatches, SearchResults, SessionCursor, StoredMessage};
use tauri::State;

use crate::state::AppState;

/// A page of the sidebar's conversations: `limit` after `after` (from the top when None).
#[tauri::command]
pub async fn list_sessions(
    state: State<'_, AppState>,
    limit: u32,
    after: Option<SessionCursor>,
) -> Result<SessionsPage, AppError> {
    state.app().await?.list_sessions_page(limit, after).await
}

#[tauri::command]
pub async fn create_session(state: State<'_, AppState>) -> Result<SessionSummary, AppError> {
    state.app().await?.create_session().await
}

#[tauri::command]
pub async fn rename_session(
    state: State<'_, AppState>,
    key: String,
    title: String,
) -> Result<(), AppError> {
    state.app().await?.rename_session(&key, &title).await
}

#[tauri::command]
pub async fn pin_session(
    state: State<'_, AppState>,
    key: String,
    pinned: bool,
) -> Result<(), AppError> {
    state.app().await?.pin_session(&key, pinned).await
}

#[tauri::command]
pub async fn delete_session(state: State<'_, AppState>, key: String) -> Result<(), AppError> {
    state.app().await?.delete_session(&key).await
}

#[tauri::command]
pub async fn search(
    state: State<'_, AppState>,
    query: String,
    session_key: Option<String>,
    limit: u32,
    offset: Option<u32>,
) -> Result<SearchResults, AppError> {
    state
        .app()
        .await?
        .search(&query, session_key.as_deref(), limit, offset.unwrap_or(0))
        .await
}

#[tauri::command]
pub async fn page_messages(
    state: State<'_, AppState>,
    key: String,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<Vec<StoredMessage>, AppError> {
    state
        .app()
        .await?
        .page_messages(&key, before_seq, limit)
        .await
}

/// More of a tool call's result than its page carried (at most what a card can show).
#[tauri::command]
pub async fn tool_result(
    state: State<'_, AppState>,
    key: String,
    seq: i64,
    call_id: String,
) -> Result<ToolResultText, AppError> {
    state.app().await?.tool_result(&key, seq, &call_id).await
}

/// Saves a tool call's whole result to a file in Downloads; where it went.
#[tauri::command]
pub async fn save_tool_result(
    state: State<'_, AppState>,
    key: String,
    seq: i64,
    call_id: String,
) -> Result<ExportResult, AppError> {
    state
        .app()
        .await?
        .save_tool_result(&key, seq, &call_id)
        .await
}

#[tauri::command]
pub async fn export_session(
    state: State<'_, AppState>,
    key: String,
    format: ExportFormat,
) -> Result<ExportResult, AppError> {
    state.app().await?.export_session(&key, format).await
}

/// "Show in folder" on the export notice: only a file this app exported.
#[tauri::command]
pub async fn show_export(state: State<'_, AppState>, path: String) -> Result<(), AppError> {
    let file = state.app().await?.exported_file(&path)?;
    crate::opener::reveal(&file).map_err(|e| {
        AppError::new(
            "open_folder",
            format!("could not show {}: {e}", file.display()),
        )
    })
}

/// The chat's Find: the messages of conversation `key` containing `text`, oldest first.
#[tauri::command]
pub async fn find_in_session(
    state: State<'_, AppState>,
    key: String,
    text: String,
) -> Result<FindMatches, AppError> {
    state.app().await?.find_in_session(&key, &text).await
}
