//! A conversation's own provider, model and generation settings (the composer's picker and
//! the conversation settings panel).

use lango_core::app::{AppError, ConversationView, ModelEntry};
use lango_core::conversation::ConversationSettings;
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn conversation_settings(
    state: State<'_, AppState>,
    key: String,
) -> Result<ConversationView, AppError> {
    state.app().await?.conversation_settings(&key).await
}

#[tauri::command]
pub async fn set_conversation_settings(
    state: State<'_, AppState>,
    key: String,
    settings: ConversationSettings,
) -> Result<ConversationView, AppError> {
    state
        .app()
        .await?
        .set_conversation_settings(&key, settings)
        .await
}

/// The models of one configured provider.
#[tauri::command]
pub async fn list_models_of(
    state: State<'_, AppState>,
    provider: String,
) -> Result<Vec<ModelEntry>, AppError> {
    state.app().await?.list_models_of(&provider).await
}
