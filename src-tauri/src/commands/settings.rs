//! The settings screen. The document is settings.json's own format: it is validated by the
//! engine's validator (`config::validate_value`), which reports every problem by field —
//! richer than a serde decode error. API keys travel only through `set_api_key`.

use lango_core::app::{AppError, ModelEntry, SettingsView, ValidationReport};
use lango_core::secrets::KeyLocation;
use serde_json::Value;
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn get_settings(state: State<'_, AppState>) -> Result<SettingsView, AppError> {
    Ok(state.app().await?.settings().await)
}

/// The settings document without key locations (a new chat's defaults): nothing is asked of
/// the keychain, which `get_settings` probes.
#[tauri::command]
pub async fn get_settings_document(state: State<'_, AppState>) -> Result<Value, AppError> {
    Ok(state.app().await?.settings_document().await)
}

#[tauri::command]
pub async fn validate_settings(
    state: State<'_, AppState>,
    document: Value,
) -> Result<ValidationReport, AppError> {
    Ok(state.app().await?.validate_settings(&document))
}

#[tauri::command]
pub async fn save_settings(
    state: State<'_, AppState>,
    document: Value,
) -> Result<SettingsView, AppError> {
    state.app().await?.save_settings(&document).await
}

#[tauri::command]
pub async fn set_api_key(
    state: State<'_, AppState>,
    provider: String,
    key: String,
) -> Result<KeyLocation, AppError> {
    state.app().await?.set_api_key(&provider, &key).await
}

#[tauri::command]
pub async fn delete_api_key(state: State<'_, AppState>, provider: String) -> Result<(), AppError> {
    state.app().await?.delete_api_key(&provider).await
}

#[tauri::command]
pub async fn test_connection(
    state: State<'_, AppState>,
    document: Value,
    provider: String,
    key: Option<String>,
) -> Result<Vec<ModelEntry>, AppError> {
    state
        .app()
        .await?
        .test_connection(&document, &provider, key.as_deref())
        .await
}

#[tauri::command]
pub async fn list_models(state: State<'_, AppState>) -> Result<Vec<ModelEntry>, AppError> {
    state.app().await?.list_models().await
}

#[tauri::command]
pub async fn set_model(
    state: State<'_, AppState>,
    model: String,
) -> Result<SettingsView, AppError> {
    state.app().await?.set_model(&model).await
}
