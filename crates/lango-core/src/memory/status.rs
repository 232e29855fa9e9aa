//! What the memory tells the UI and the CLI: per-session status and "memory updated" events,
//! and its error type.

use serde::Serialize;

use crate::agent::AgentError;
use crate::store::{MemoryFailure, Observation, Reflection, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryPhase {
    Idle,
    Observing,
    Reflecting,
}

/// Progress towards the next observation and reflection of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryStatus {
    pub session_key: String,
    pub phase: MemoryPhase,
    /// Tokens of history not yet observed, and the threshold that triggers the observer.
    pub unobserved_tokens: usize,
    pub message_token_threshold: usize,
    /// Tokens of the current observations, and the threshold that triggers the reflector.
    pub observation_tokens: usize,
    pub observation_token_threshold: usize,
    pub observations: usize,
    pub reflections: usize,
    /// The last failure of the memory (by any process) since it last succeeded: the messages
    /// stay unobserved and the cycle after the next turn tries again.
    pub last_error: Option<MemoryFailure>,
}

/// Sent on the memory's broadcast channel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum MemoryEvent {
    Status(MemoryStatus),
    /// A new observation was saved (the chat shows a "memory updated" chip).
    ObservationAdded(Observation),
    /// A new reflection was saved; `condensed` = how many items it replaced.
    ReflectionAdded {
        reflection: Reflection,
        condensed: usize,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The observer's or reflector's model call failed.
    #[error("the memory's model call failed: {0}")]
    Model(#[from] AgentError),
    /// The model answered with nothing usable; nothing was saved (REFERENCE §3.10 [FIX]).
    #[error("the memory's model returned an empty reply")]
    EmptyReply,
    /// The model ignored the request's output limit: nothing was saved, so a note that
    /// cannot fit the memory section never stands in for the messages it covers.
    #[error("the memory's model replied with more than {limit} tokens (its output limit); the reply was discarded")]
    ReplyTooLong { limit: usize },
}
