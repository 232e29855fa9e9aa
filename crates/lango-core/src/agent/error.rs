//! What can fail while running an agent.

use crate::provider::ProviderError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Provider(#[from] ProviderError),

    #[error(transparent)]
    Store(#[from] StoreError),

    /// A transfer named an agent that does not exist (spec 003: the exact phrase
    /// "failed to find agent: <name>" is what `run_and_collect` detects).
    #[error("failed to find agent: {0}")]
    AgentNotFound(String),

    #[error("the agent did not finish within {0} model calls")]
    MaxTurns(u32),

    /// A looping model: too many tool calls for one message.
    #[error("stopped after {0} tool calls in one message without an answer (the limit is tools.maxCallsPerTurn in the settings)")]
    ToolCallLimit(u32),

    #[error("cancelled")]
    Cancelled,

    #[error("{0}")]
    Other(String),
}

impl AgentError {
    /// A stable code for the UI and the CLI's exit codes.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Provider(e) => e.code(),
            Self::Store(_) => "store",
            Self::AgentNotFound(_) => "agent_not_found",
            Self::MaxTurns(_) => "max_turns",
            Self::ToolCallLimit(_) => "tool_call_limit",
            Self::Cancelled => "cancelled",
            Self::Other(_) => "internal",
        }
    }
}
