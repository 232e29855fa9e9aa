//! The seams the runner works against. Adapters implement them over our store and providers;
//! tests implement them with scripted fakes.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use serde_json::{Map, Value};

use super::context::RequestContext;
use super::error::AgentError;
use super::hooks::{ProgressSink, ToolOrigin};
use super::types::{Content, Event, LlmRequest, LlmResponse};
use crate::provider::BoxFuture;
use crate::store::ToolImage;

pub type LlmStream = Pin<Box<dyn Stream<Item = Result<LlmResponse, AgentError>> + Send>>;

/// A model. `stream = true` yields partial text responses then one final complete response;
/// `stream = false` yields exactly one complete response (spec 003). An error ends the stream.
pub trait Llm: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;

    /// A turn of `ctx`'s session starts with the user's `user_text`: a model that reads
    /// context for its calls (memory, knowledge retrieval) may start reading now, while the
    /// runner loads the session and stores the message. Must not block; the default does
    /// nothing.
    fn prefetch(&self, ctx: &RequestContext, user_text: &str) {
        let _ = (ctx, user_text);
    }

    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream;
}

/// The events of a session as the model sees them (truncated to the token budget).
pub trait EventsView: Send + Sync {
    fn all(&self) -> Vec<Event>;
    fn len(&self) -> usize;
    /// `None` when `i` is out of range (spec 004).
    fn at(&self, i: usize) -> Option<Event>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One conversation, as loaded for a turn.
pub trait Session: Send + Sync {
    fn key(&self) -> &str;
    fn state(&self) -> Map<String, Value>;
    /// A fresh view of the events, reflecting every event appended through the service.
    fn events(&self) -> Box<dyn EventsView>;
    /// A fresh view within `budget` tokens of history (never more than the session's own
    /// budget), and what the history in it costs by the store's counts: a model whose
    /// context turned out smaller than its budget is sent less (runner::fit).
    fn events_within(&self, budget: usize) -> (Box<dyn EventsView>, usize);
    /// Lets a `SessionService` reach its own session type (to update the in-memory history
    /// in `append_event`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Sessions over a store.
pub trait SessionService: Send + Sync {
    fn create(
        &self,
        key: &str,
        state: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>>;
    /// Get-or-create (REFERENCE §2.2).
    fn get(&self, key: &str) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>>;
    /// [`SessionService::get`] with the history cut to `budget` tokens instead of the
    /// service's own (a conversation whose model has another context window); `None` = the
    /// service's. A service without budgets ignores it.
    fn get_with_budget(
        &self,
        key: &str,
        budget: Option<usize>,
    ) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        let _ = budget;
        self.get(key)
    }
    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, AgentError>>;
    fn delete(&self, key: &str) -> BoxFuture<'_, Result<(), AgentError>>;
    /// Fills in the attached files of `contents` (parts with an `attachment`): a text file's
    /// or PDF's text, an image as `inline_data` when `images`, else a line describing it. A
    /// service without attachments leaves them as they are.
    fn resolve_attachments<'a>(
        &'a self,
        contents: &'a mut [Content],
        images: bool,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        let _ = (contents, images);
        Box::pin(async { Ok(()) })
    }
    /// Persists a non-partial event and adds it to the session's in-memory history
    /// (REFERENCE §2.3). State-delta-only events update the state and store no row.
    fn append_event<'a>(
        &'a self,
        session: &'a dyn Session,
        event: Event,
    ) -> BoxFuture<'a, Result<(), AgentError>>;
}

/// Tools that come and go while the app runs (MCP servers start, stop, change their lists):
/// asked for its current tools before every model call.
pub trait Toolset: Send + Sync + std::fmt::Debug {
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// What a tool sees of the call it serves.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    pub agent_name: String,
    pub session_key: Option<String>,
    pub call_id: String,
    /// Where the tool may report progress (to the card of this call).
    pub progress: Option<ProgressSink>,
}

/// What a tool returned, richer than the JSON the model sees: images go to the user's card,
/// and `is_error` marks a result the tool itself reported as a failure (MCP `isError`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    pub value: Value,
    pub images: Vec<ToolImage>,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn value(value: Value) -> Self {
        Self {
            value,
            ..Self::default()
        }
    }
}

/// A tool the model may call. Errors go back to the model as `{"error": "<message>"}`.
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// The input schema in any of the three accepted forms (REFERENCE §1.5); the tool
    /// adapter normalises it.
    fn input_schema(&self) -> Value;
    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>>;

    /// [`Tool::run`] with images and the tool's own error flag; tools with more to say than
    /// a JSON value (MCP) override it.
    fn run_output(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<ToolOutput, String>> {
        Box::pin(async move { self.run(ctx, args).await.map(ToolOutput::value) })
    }

    /// The server the tool comes from and whether its calls need the user's approval; `None`
    /// for built-in tools (they only read, and never ask).
    fn origin(&self) -> Option<ToolOrigin> {
        None
    }

    /// How long one call may take, when the tool has its own limit (an MCP server's
    /// `timeout`); `None` = the agent's `toolTimeout`.
    fn timeout(&self) -> Option<std::time::Duration> {
        None
    }
}
