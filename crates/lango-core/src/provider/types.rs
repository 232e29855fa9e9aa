//! The provider-neutral request and stream shapes (REFERENCE §1.1 "Provider message" and
//! "Provider stream event").

use std::future::Future;
use std::pin::Pin;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::error::ProviderError;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What `generate` returns. Ends after `Done` or `Error`; dropping it aborts the request.
pub type EventStream = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A tool call the assistant made, as sent back to the provider in later turns.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolCallRequest {
    pub id: String,
    pub name: String,
    /// The arguments as a JSON text (an object).
    pub arguments: String,
    #[serde(default)]
    pub thought: bool,
    /// Opaque signature some providers (Gemini) need echoed back, base64.
    #[serde(default)]
    pub thought_signature: String,
}

/// An image sent with a user message, already prepared (`attachments::prepare_image`:
/// downscaled, re-encoded) — each client puts it in its own wire format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageInput {
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
    pub mime_type: String,
    /// The image's bytes, base64 (standard alphabet, padded), without a `data:` prefix.
    pub data: String,
}

/// One message of a conversation in provider-neutral form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Calls made by an assistant message.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallRequest>,
    /// For a tool message: the call it answers.
    #[serde(default)]
    pub tool_call_id: String,
    #[serde(default)]
    pub tool_call_name: String,
    /// Images attached to a user message (ignored on other roles), sent before its text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageInput>,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: String::new(),
            tool_call_name: String::new(),
            images: Vec::new(),
        }
    }

    /// A user message with `images` attached.
    pub fn user_with_images(content: impl Into<String>, images: Vec<ImageInput>) -> Self {
        Self {
            images,
            ..Self::new(Role::User, content)
        }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }

    /// A tool result answering call `id` of tool `name`.
    pub fn tool_result(
        id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self {
            tool_call_id: id.into(),
            tool_call_name: name.into(),
            ..Self::new(Role::Tool, content)
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// A JSON Schema object (`{"type":"object","properties":…}`).
    pub parameters: serde_json::Value,
}

/// One generation request. Temperature and max tokens are sent only when set
/// (REFERENCE §5.1 [FIX]: an explicit 0 is a value, not "unset").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GenerateParams {
    /// Empty = the provider's default model.
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

/// A fragment of a streamed tool call (REFERENCE §1.3 "chunk"). Start chunks carry an index,
/// id or name; later chunks may carry argument fragments only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCallChunk {
    pub index: Option<u32>,
    pub id: String,
    pub name: String,
    /// A fragment of the arguments' JSON text ("" when none).
    pub arguments: String,
    pub thought: bool,
    pub thought_signature: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    /// Tokens served from the provider's prompt cache, when reported.
    pub cache_tokens: u64,
}

/// Why a complete reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished (or stopped to call tools, or at a stop sequence).
    #[default]
    Finished,
    /// The model hit the request's output token limit: the reply is cut short
    /// (OpenAI `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`, Ollama `length`).
    OutputLimit,
}

impl StopReason {
    /// The OpenAI-compatible `finish_reason` / Ollama `done_reason` value.
    pub fn from_openai(reason: &str) -> Self {
        if reason == "length" {
            Self::OutputLimit
        } else {
            Self::Finished
        }
    }
}

/// What a provider stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ToolCall(ToolCallChunk),
    /// Reasoning text: kept for diagnostics, never shown as the answer.
    Thought(String),
    Usage(Usage),
    /// The provider said the reply is complete (its end marker arrived). `usage` is the last
    /// usage seen, if any; `stop` says whether the output limit cut it.
    Done {
        usage: Option<Usage>,
        stop: StopReason,
    },
    /// The stream failed; nothing follows.
    Error(ProviderError),
}

/// A model the provider offers (for the settings screen's picker).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub id: String,
    pub display_name: String,
}

/// A model provider. Implementations are cheap to clone and share (`Arc<dyn Provider>`).
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// The provider's id from the settings (for logs and usage reports).
    fn id(&self) -> &str;

    /// Streams one generation. Nothing happens until the stream is polled. Failures before
    /// the response starts (after retries) arrive as a single `Error` event. Cancelling
    /// `cancel`, or dropping the stream, aborts the HTTP request.
    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream;

    /// Embeds texts, where the API has embeddings (OpenAI, Gemini, Ollama).
    fn embed(&self, texts: Vec<String>) -> BoxFuture<'_, Result<Vec<Vec<f32>>, ProviderError>> {
        let _ = texts;
        Box::pin(async {
            Err(ProviderError::Unsupported {
                message: "this provider has no embeddings API".into(),
            })
        })
    }

    /// The models the provider offers.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>>;
}

/// Helper for tests and callers: a stream from a plain list of events.
pub fn stream_of(events: Vec<StreamEvent>) -> EventStream {
    Box::pin(futures_util::stream::iter(events))
}
