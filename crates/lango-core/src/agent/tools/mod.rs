//! Tools the agent may call: schema normalisation (REFERENCE §1.5), the [`ToolAdapter`] that
//! declares a [`Tool`](crate::agent::Tool) to the model and runs its calls with a timeout,
//! and the built-in tools.
//!
//! Owns how a tool is described and executed. It must not decide *when* a tool runs (the
//! runner does) and ships no file-system or shell tool: built-ins are read-only.

mod adapter;
pub mod builtin;
mod output_cap;
mod schema;

pub use adapter::{error_object, format_duration, result_object, ToolAdapter, ToolFailure};
pub use builtin::{builtin_tools, CurrentDateTime, MemoryListObservations, MemoryListReflections};
pub use output_cap::{CappedOutput, OutputCap};
pub use schema::{normalize_schema, params, ParamDef};
