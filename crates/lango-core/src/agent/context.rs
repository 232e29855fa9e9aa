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
}

impl RequestContext {
    pub fn for_session(session_key: impl Into<String>, agent_name: impl Into<String>) -> Self {
        Self {
            session_key: Some(session_key.into()),
            agent_name: agent_name.into(),
            cancel: CancellationToken::new(),
            hooks: None,
        }
    }

    /// The session key, if the call belongs to a conversation (`SessionKeyFromContext`).
    pub fn session_key(&self) -> Option<&str> {
        self.session_key.as_deref().filter(|k| !k.is_empty())
    }
}
