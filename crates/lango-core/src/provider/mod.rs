//! Model providers: streaming clients for the OpenAI-compatible, Ollama, Anthropic and Gemini
//! wire formats behind one [`Provider`] trait.
//!
//! Owns HTTP (reqwest), the wire formats and their quirks, error classification, retries
//! before the first byte, timeouts and cancellation. It must not touch the store, sessions
//! or memory: it turns [`GenerateParams`] into a stream of [`StreamEvent`]s and nothing else.

pub mod anthropic;
pub mod assembler;
mod config;
mod error;
pub mod gemini;
pub mod http;
pub mod limit;
pub mod ndjson;
pub mod ollama;
pub mod openai;
pub mod orphans;
pub mod overflow;
pub mod registry;
pub mod sse;
mod types;
pub mod vision;

pub use config::ProviderConfig;
pub use error::{NetworkFailure, ProviderError};
pub use overflow::ContextLimit;
pub use types::{
    stream_of, BoxFuture, EventStream, GenerateParams, ImageInput, Message, ModelInfo, Provider,
    Role, StopReason, StreamEvent, ToolCallChunk, ToolCallRequest, ToolSpec, Usage,
};

/// The result sent for a tool call that never completed (REFERENCE §5.2): providers require
/// an answer for every call, and the model must not retry it.
pub const INTERRUPTED_CALL_RESULT: &str = r#"{"error":"This tool call was interrupted and did not complete, so there is no result. Do not retry it; continue with the information you already have."}"#;

/// Sent with every request (`lango/<version>`), so server operators can tell us apart.
pub const USER_AGENT: &str = concat!("lango/", env!("CARGO_PKG_VERSION"));
