//! Turns: send, stop, regenerate, edit and resend. Replies stream through a
//! `tauri::ipc::Channel` (deltas batched by the engine every ~30 ms).

use lango_core::agent::ModelRef;
use lango_core::app::{AppError, ChatEvent, TurnOutcome};
use tauri::ipc::Channel;
use tauri::State;

use crate::state::AppState;

fn sink(channel: Channel<ChatEvent>) -> impl FnMut(ChatEvent) + Send + 'static {
    move |event| {
        if let Err(e) = channel.send(event) {
            tracing::debug!("chat event not delivered (window closed?): {e}");
        }
    }
}

#[tauri::command]
pub async fn send_message(
    state: State<'_, AppState>,
    key: String,
    text: String,
    attachments: Option<Vec<String>>,
    on_event: Channel<ChatEvent>,
) -> Result<TurnOutcome, AppError> {
    state
        .app()
        .await?
        .send_with(
            &key,
            &text,
            &attachments.unwrap_or_default(),
            sink(on_event),
        )
        .await
}

/// `model`: write this reply with another model, this once (None = the conversation's).
#[tauri::command]
pub async fn regenerate(
    state: State<'_, AppState>,
    key: String,
    model: Option<ModelRef>,
    on_event: Channel<ChatEvent>,
) -> Result<TurnOutcome, AppError> {
    state
        .app()
        .await?
        .regenerate(&key, model, sink(on_event))
        .await
}

#[tauri::command]
pub async fn edit_last(
    state: State<'_, AppState>,
    key: String,
    text: String,
    on_event: Channel<ChatEvent>,
) -> Result<TurnOutcome, AppError> {
    state
        .app()
        .await?
        .edit_last(&key, &text, sink(on_event))
        .await
}

/// Cancels the turn of `key` for real: the provider request is aborted.
#[tauri::command]
pub async fn stop_turn(state: State<'_, AppState>, key: String) -> Result<bool, AppError> {
    Ok(state.app().await?.stop(&key))
}
