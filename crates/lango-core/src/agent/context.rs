//! The per-call context: which session a model call belongs to, and how to cancel it.
//!
//! The session key travels with every call (spec 002: memory resolves it per call from the
//! context, never from a field set at construction).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::hooks::TurnHooks;

#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    /// The session this call serves; None for calls outside a conversation.
    pub session_key: Option<String>,
    /// The agent making the call.
    pub agent_name: String,
    /// Cancelling aborts the provider request and any running tool.
    pub cancel: CancellationToken,
    /// Who approves tool calls and sees their progress; `None` = nobody: a call that needs
    /// approval is denied with a message saying so.
    pub hooks: Option<Arc<dyn TurnHooks>>,
    /// The conversation's model and generation settings for this turn; `None` = the
    /// agents' own (and replies are stored without their model).
    pub turn: Option<Arc<TurnSettings>>,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            provider: String::new(),
            model: String::new(),
            temperature: None,
            max_output_tokens: None,
            system_prompt: None,
            history_budget: None,
            images: true,
        }
    }
}

/// A conversation's model and generation settings for one turn, resolved by the engine from
/// the conversation's own settings over the Settings defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSettings {
    /// The provider id the model calls go to (the one replies are stored as written by).
    pub provider: String,
    /// `""` = that provider's default model.
    pub model: String,
    /// Only what the conversation overrides; `None` = the agent's own.
    pub temperature: Option<f32>,
    pub max_output_tokens: Option<u32>,
    /// Replaces the root agent's instruction (sub-agents keep theirs).
    pub system_prompt: Option<String>,
    /// The history each call may carry with this model (its context window, capped by the
    /// memory's message budget); `None` = the session service's.
    pub history_budget: Option<usize>,
    /// Whether attached images are sent as images (false: the model is known not to take
    /// them, so each is described in words instead).
    pub images: bool,
}

impl RequestContext {
    pub fn for_session(session_key: impl Into<String>, agent_name: impl Into<String>) -> Self {
        Self {
            session_key: Some(session_key.into()),
            agent_name: agent_name.into(),
            cancel: CancellationToken::new(),
            hooks: None,
            turn: None,
        }
    }

    /// The session key, if the call belongs to a conversation (`SessionKeyFromContext`).
    pub fn session_key(&self) -> Option<&str> {
        self.session_key.as_deref().filter(|k| !k.is_empty())
    }
}
