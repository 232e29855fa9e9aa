//! The agent runtime: our own small, ADK-shaped engine (REFERENCE §1–§2, specs 000/001/003/004).
//!
//! Owns the runtime types (Content, Part, Event, LlmRequest/LlmResponse), the traits the
//! runner works against (Llm, SessionService, Session, Tool) and their adapters over our
//! store and providers, the Runner that plays one user turn, and `run_and_collect`.
//! It must not know about windows or terminals: the desktop shell and the CLI consume its
//! events. Memory (issue 5) plugs in as a context-aware `Llm` wrapper, not inside the runner.

mod context;
mod error;
pub mod hooks;
pub mod model_adapter;
pub mod runner;
pub mod session;
pub mod signature;
pub mod tools;
mod traits;
mod types;

pub use context::{RequestContext, TurnSettings};
pub use error::AgentError;
pub use hooks::{
    ApprovalDecision, ApprovalRequest, FixedApproval, ProgressSink, ToolHints, ToolOrigin,
    ToolProgress, TurnHooks,
};
pub use traits::{
    EventsView, Llm, LlmStream, Session, SessionService, Tool, ToolContext, ToolOutput, Toolset,
};
pub use types::{
    roles, Content, Event, EventActions, FunctionCall, FunctionResponse, GenerateConfig,
    InlineData, LlmRequest, LlmResponse, ModelRef, Part, UserInput, DEFAULT_AGENT_NAME,
};
