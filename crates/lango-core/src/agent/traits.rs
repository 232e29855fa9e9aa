//! The seams the runner works against. Adapters implement them over our store and providers;
//! tests implement them with scripted fakes.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use serde_json::{Map, Value};

use super::context::RequestContext;
use super::error::AgentError;
use super::types::{Event, LlmRequest, LlmResponse};
use crate::provider::BoxFuture;

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
    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, AgentError>>;
    fn delete(&self, key: &str) -> BoxFuture<'_, Result<(), AgentError>>;
    /// Persists a non-partial event and adds it to the session's in-memory history
    /// (REFERENCE §2.3). State-delta-only events update the state and store no row.
    fn append_event<'a>(
        &'a self,
        session: &'a dyn Session,
        event: Event,
    ) -> BoxFuture<'a, Result<(), AgentError>>;
}

/// What a tool sees of the call it serves.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub agent_name: String,
    pub session_key: Option<String>,
    pub call_id: String,
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
}
