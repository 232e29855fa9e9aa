//! Sessions for the agent runtime over the SQLite store (REFERENCE §2, specs 000/001/003/004).
//!
//! Owns the `SessionService` adapter (service.rs), the loaded `Session` with its in-memory
//! history (session.rs), the lazily cached events view (events.rs), row ⇄ event conversion
//! (convert.rs), token-budget truncation with sequence safety (truncate.rs), fitting a newest turn bigger
//! than the budget (fit.rs) and closing
//! dangling tool calls after a failed run (cleanup.rs).
//!
//! It must not issue SQL (the store owns every statement), count tokens (it reads the
//! `token_count` the store computed at append time) or run agents (the runner calls in here).

mod attachments;
mod cleanup;
mod convert;
mod events;
mod fit;
mod service;
#[allow(clippy::module_inception)]
mod session;
mod truncate;

pub use cleanup::{close_dangling_calls, INTERRUPTED_TOOL_OUTPUT};
pub use convert::is_tool_role;
pub use events::EventsAdapter;
pub use fit::CUT_MARKER;
pub use service::SessionServiceAdapter;
pub use session::SessionAdapter;
pub use truncate::{history_token_budget, resolve_budget};
