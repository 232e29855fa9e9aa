//! Turns from the desktop: send, stop, regenerate the last reply, edit and resend the last
//! message. Owns the turn registry (one turn per session at a time, each with its cancel
//! token) and the translation of agent events into UI events; the turn itself is the
//! runner's (`run_and_collect_with`).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::dto::{ChatEvent, TurnOutcome, TurnStatus};
use super::stream::{batched, DELTA_INTERVAL};
use super::{App, AppError};
use crate::agent::runner::run_and_collect_with;
use crate::agent::{Event, ModelRef, RequestContext, Tool, UserInput};
use crate::conversation::ConversationSettings;
use crate::engine::{check_images, turn_settings, Engine};
use crate::store::Session;

/// Longest session title taken from a conversation's first message.
const TITLE_CHARS: usize = 60;

/// Removes the turn from the registry however the turn ends.
struct TurnGuard<'a> {
    app: &'a App,
    key: String,
}

impl Drop for TurnGuard<'_> {
    fn drop(&mut self) {
        let mut turns = match self.app.inner.turns.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        turns.remove(&self.key);
    }
}

impl App {
    /// Plays one turn of `key` with the user's `text`, streaming to `sink`. Resolves when
    /// the turn is over: complete, stopped (the partial reply is kept) or failed (the
    /// provider's reason in `error`). The session is created (and titled) if new.
    pub async fn send(
        &self,
        key: &str,
        text: &str,
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> Result<TurnOutcome, AppError> {
        self.send_with(key, text, &[], sink).await
    }

    /// [`App::send`] with files attached (stored beforehand by `prepare_attachment`, named
    /// here by hash, in order). Refused before anything is sent when the files are over one
    /// message's limits or include an image the conversation's model cannot take.
    pub async fn send_with(
        &self,
        key: &str,
        text: &str,
        attachments: &[String],
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> Result<TurnOutcome, AppError> {
        if text.trim().is_empty() && attachments.is_empty() {
            return Err(AppError::new("empty_message", "type a message first"));
        }
        let engine = self.engine().await?;
        let attachments = self.attachment_refs(attachments).await?;
        if attachments.iter().any(|a| a.kind == "image") {
            let turn = engine.turn(key).await?;
            check_images(&turn, &attachments)
                .map_err(|message| AppError::new("model_cannot_see_images", message))?;
        }
        let input = UserInput {
            text: text.to_owned(),
            attachments,
        };
        let (guard, cancel) = self.begin_turn(key)?;
        let outcome = self.play(&engine, key, input, None, cancel, sink).await;
        drop(guard);
        Ok(outcome)
    }

    /// Plays the last user message again after removing it and everything after it (the
    /// reply being replaced, its tool calls), with `new_text` in its place if given.
    async fn replay(
        &self,
        key: &str,
        new_text: Option<&str>,
        model: Option<ModelRef>,
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> Result<TurnOutcome, AppError> {
        let engine = self.engine().await?;
        let (guard, cancel) = self.begin_turn(key)?;
        let Some((seq, old_text, attachments)) = self.inner.store.last_user_message(key).await?
        else {
            return Err(AppError::new(
                "nothing_to_regenerate",
                "this conversation has no message to send again",
            ));
        };
        let text = new_text.map_or(old_text, str::to_owned);
        if text.trim().is_empty() && attachments.is_empty() {
            return Err(AppError::new("empty_message", "type a message first"));
        }
        // A model the conversation cannot use is refused before the old reply is removed.
        if let Some(choice) = &model {
            self.check_model_choice(choice).await?;
        }
        self.inner.store.delete_messages_from(key, seq).await?;
        let input = UserInput { text, attachments };
        let outcome = self.play(&engine, key, input, model, cancel, sink).await;
        drop(guard);
        Ok(outcome)
    }

    /// Replaces the last reply with a new one for the same message, written by `model` if
    /// given (this once; the conversation's own model stays), else the conversation's.
    pub async fn regenerate(
        &self,
        key: &str,
        model: Option<ModelRef>,
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> Result<TurnOutcome, AppError> {
        self.replay(key, None, model, sink).await
    }

    /// Replaces the last user message with `text` and plays the turn again.
    pub async fn edit_last(
        &self,
        key: &str,
        text: &str,
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> Result<TurnOutcome, AppError> {
        self.replay(key, Some(text), None, sink).await
    }

    /// Stops the turn of `key`: the provider request is aborted (the server sees the
    /// connection close) and the reply so far is kept. False when nothing was running.
    pub fn stop(&self, key: &str) -> bool {
        let turns = match self.inner.turns.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        match turns.get(key) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// True while a turn of `key` is being played.
    pub fn is_busy(&self, key: &str) -> bool {
        match self.inner.turns.lock() {
            Ok(t) => t.contains_key(key),
            Err(poisoned) => poisoned.into_inner().contains_key(key),
        }
    }

    fn begin_turn(&self, key: &str) -> Result<(TurnGuard<'_>, CancellationToken), AppError> {
        let mut turns = match self.inner.turns.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        if turns.contains_key(key) {
            return Err(AppError::new(
                "busy",
                "a reply is still being written in this conversation; stop it or wait",
            ));
        }
        let token = CancellationToken::new();
        turns.insert(key.to_owned(), token.clone());
        Ok((
            TurnGuard {
                app: self,
                key: key.to_owned(),
            },
            token,
        ))
    }

    async fn play(
        &self,
        engine: &Arc<Engine>,
        key: &str,
        input: UserInput,
        model: Option<ModelRef>,
        cancel: CancellationToken,
        sink: impl FnMut(ChatEvent) + Send + 'static,
    ) -> TurnOutcome {
        // A message of files alone is titled after the first file.
        let title_text = match input.attachments.first() {
            Some(a) if input.text.trim().is_empty() => a.name.clone(),
            _ => input.text.clone(),
        };
        let own = match self.name_new_session(key, &title_text).await {
            Ok(session) => session.chat_settings,
            Err(e) => return failed(e),
        };
        let mut ctx = RequestContext::for_session(key, engine.runner.root().name.clone());
        ctx.cancel = cancel.clone();
        ctx.turn = Some(Arc::new(turn_settings(
            &engine.settings,
            &with_model(own, model),
        )));
        let (tx, pump) = batched(sink, DELTA_INTERVAL);
        ctx.hooks = Some(self.turn_hooks(tx.clone()));
        let tools = engine.runner.root().current_tools();
        // Whether the last model reply of the turn stopped at the output limit.
        let mut truncated = false;
        let (_, result) = run_and_collect_with(
            &engine.runner,
            ctx,
            key,
            input,
            true,
            &mut |event, reply| {
                if event.is_model_reply() {
                    truncated = event.truncated;
                }
                for ui_event in to_chat_events(event, reply, &tools) {
                    let _ = tx.send(ui_event);
                }
            },
        )
        .await;
        drop(tx);
        let _ = pump.await;
        // The memory looks at every turn, whatever its outcome (REFERENCE §3.5).
        engine.after_turn(key);
        match result {
            Ok(()) => TurnOutcome {
                status: TurnStatus::Complete,
                error: None,
                truncated,
            },
            Err(_) if cancel.is_cancelled() => TurnOutcome {
                status: TurnStatus::Stopped,
                error: None,
                truncated: false,
            },
            Err(e) => failed(AppError::from(e)),
        }
    }

    /// A new conversation is titled after its first message. Returns the session.
    async fn name_new_session(&self, key: &str, text: &str) -> Result<Session, AppError> {
        let session = self.inner.store.get_or_create_session(key).await?;
        if session.title.is_empty() {
            self.inner
                .store
                .rename_session(key, &title_from(text))
                .await?;
        }
        Ok(session)
    }

    /// A one-off model (regenerate with another model) is a configured provider and a model
    /// it can serve.
    async fn check_model_choice(&self, choice: &ModelRef) -> Result<(), AppError> {
        let settings = self.inner.running.read().await.settings.clone();
        let own = with_model(ConversationSettings::default(), Some(choice.clone()));
        own.check(&settings)
            .map_err(|e| AppError::new("invalid_conversation_settings", e.to_string()))
    }
}

/// The conversation's own settings with `model` (a one-off choice) in place of its model.
fn with_model(own: ConversationSettings, model: Option<ModelRef>) -> ConversationSettings {
    match model {
        Some(m) => ConversationSettings {
            provider: Some(m.provider),
            model: Some(m.model),
            ..own
        }
        .normalized(),
        None => own,
    }
}

fn failed(error: AppError) -> TurnOutcome {
    TurnOutcome {
        status: TurnStatus::Failed,
        error: Some(error),
        truncated: false,
    }
}

/// The first words of a message, whitespace collapsed, cut at [`TITLE_CHARS`].
pub(crate) fn title_from(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut title: String = flat.chars().take(TITLE_CHARS).collect();
    if flat.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

/// The UI's view of one agent event: `reply` is the new reply text `run_and_collect_with`
/// hands over (never repeated); calls and results come from complete events only.
fn to_chat_events(event: &Event, reply: &str, tools: &[Arc<dyn Tool>]) -> Vec<ChatEvent> {
    let mut out = Vec::new();
    if !reply.is_empty() {
        out.push(ChatEvent::Delta {
            text: reply.to_owned(),
        });
    }
    let Some(content) = event.content.as_ref().filter(|_| !event.partial) else {
        return out;
    };
    for part in &content.parts {
        if let Some(call) = &part.function_call {
            let origin = tools
                .iter()
                .find(|t| t.name() == call.name)
                .and_then(|t| t.origin());
            out.push(ChatEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                args: serde_json::Value::Object(call.args.clone()),
                server: origin.as_ref().map(|o| o.server.clone()),
                tool: origin.map(|o| o.tool),
            });
        }
        if let Some(response) = &part.function_response {
            let meta = response.meta.clone().unwrap_or_default();
            out.push(ChatEvent::ToolResult {
                id: response.id.clone(),
                name: response.name.clone(),
                result: serde_json::Value::Object(response.response.clone()),
                status: meta.status,
                duration_ms: meta.duration_ms,
                prompt_tokens: meta.prompt_tokens,
                omitted_tokens: meta.omitted_tokens,
                images: meta.images,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_first_message_becomes_a_short_title() {
        assert_eq!(title_from("  hello \n  world "), "hello world");
        let long = "word ".repeat(30);
        let title = title_from(&long);
        assert_eq!(title.chars().count(), TITLE_CHARS + 1);
        assert!(title.ends_with('…'));
    }
}
