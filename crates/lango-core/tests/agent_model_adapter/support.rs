//! What the model adapter tests share: `Scripted`, a fake `Provider` that returns fixed
//! `StreamEvent`s and records the `GenerateParams` it was given, and helpers to build
//! requests and collect responses. Re-exports the imports the test modules use.

pub use std::sync::{Arc, Mutex};
pub use std::time::Duration;

pub use futures_util::StreamExt;
pub use lango_core::agent::model_adapter::ModelAdapter;
pub use lango_core::agent::{
    AgentError, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, Part, RequestContext,
};
pub use lango_core::provider::openai::OpenAiCompatible;
pub use lango_core::provider::{
    stream_of, BoxFuture, EventStream, GenerateParams, Message, ModelInfo, Provider,
    ProviderConfig, ProviderError, Role, StopReason, StreamEvent, ToolCallChunk, ToolCallRequest,
    ToolSpec, Usage,
};
pub use lango_testkit::fake::{FakeProvider, Script, Turn};
pub use serde_json::{json, Map, Value};
pub use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// A provider that answers every request with the same events and records what it got.
#[derive(Debug, Default)]
pub struct Scripted {
    pub events: Vec<StreamEvent>,
    /// Never end after the events (for cancellation).
    pub hang: bool,
    pub calls: Mutex<Vec<(GenerateParams, CancellationToken)>>,
}

impl Scripted {
    pub fn new(events: Vec<StreamEvent>) -> Arc<Self> {
        Arc::new(Self {
            events,
            ..Self::default()
        })
    }

    pub fn params(&self) -> Vec<GenerateParams> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }

    pub fn only_params(&self) -> GenerateParams {
        let all = self.params();
        assert_eq!(all.len(), 1, "exactly one provider call");
        all.into_iter().next().unwrap()
    }
}

impl Provider for Scripted {
    fn id(&self) -> &str {
        "scripted"
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        self.calls.lock().unwrap().push((params, cancel));
        let events = stream_of(self.events.clone());
        if self.hang {
            Box::pin(events.chain(futures_util::stream::pending()))
        } else {
            events
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

pub fn adapter(provider: &Arc<Scripted>) -> ModelAdapter {
    ModelAdapter::new(provider.clone(), "test-model")
}

pub async fn run(
    llm: &dyn Llm,
    request: LlmRequest,
    stream: bool,
) -> Vec<Result<LlmResponse, AgentError>> {
    llm.generate_content(&RequestContext::default(), request, stream)
        .collect()
        .await
}

/// Runs the adapter over `events` and returns the responses, all of which must be Ok.
pub async fn responses(events: Vec<StreamEvent>, stream: bool) -> Vec<LlmResponse> {
    let provider = Scripted::new(events);
    run(&adapter(&provider), user_request("hi"), stream)
        .await
        .into_iter()
        .map(|r| r.expect("no error"))
        .collect()
}

/// The messages the provider received for `request`.
pub async fn sent_params(request: LlmRequest) -> GenerateParams {
    let provider = Scripted::new(vec![done(None)]);
    let out = run(&adapter(&provider), request, false).await;
    assert_eq!(out.len(), 1);
    provider.only_params()
}

pub async fn sent_messages(contents: Vec<Content>) -> Vec<Message> {
    sent_params(LlmRequest {
        contents,
        ..LlmRequest::default()
    })
    .await
    .messages
}

pub fn user_request(text: &str) -> LlmRequest {
    LlmRequest {
        contents: vec![Content::user_text(text)],
        ..LlmRequest::default()
    }
}

pub fn text(t: &str) -> StreamEvent {
    StreamEvent::TextDelta(t.into())
}

pub fn done(usage: Option<Usage>) -> StreamEvent {
    StreamEvent::Done {
        usage,
        stop: StopReason::Finished,
    }
}

pub fn chunk(index: Option<u32>, id: &str, name: &str, args: &str) -> StreamEvent {
    StreamEvent::ToolCall(ToolCallChunk {
        index,
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        ..ToolCallChunk::default()
    })
}

pub fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

pub fn model(parts: Vec<Part>) -> Content {
    Content::new("model", parts)
}

pub fn fc(id: &str, name: &str, args: Value) -> Part {
    Part::function_call(id, name, obj(args))
}

pub fn fr(id: &str, name: &str, response: Value) -> Part {
    Part::function_response(id, name, obj(response))
}

pub fn partial_text(t: &str) -> LlmResponse {
    LlmResponse {
        content: Some(model(vec![Part::text(t)])),
        partial: true,
        turn_complete: false,
        usage: None,
        truncated: false,
    }
}

pub fn final_response(parts: Vec<Part>, usage: Option<Usage>) -> LlmResponse {
    LlmResponse {
        content: Some(model(parts)),
        partial: false,
        turn_complete: true,
        usage,
        truncated: false,
    }
}

pub fn instruction(parts: &[&str]) -> GenerateConfig {
    GenerateConfig {
        system_instruction: Some(Content::new(
            "system",
            parts.iter().map(|t| Part::text(*t)).collect(),
        )),
        ..GenerateConfig::default()
    }
}

pub fn msg(role: Role, content: &str) -> Message {
    Message::new(role, content)
}

pub fn tool_msg(id: &str, name: &str, content: &str) -> Message {
    Message::tool_result(id, name, content)
}

pub fn call_req(id: &str, name: &str, arguments: &str) -> ToolCallRequest {
    ToolCallRequest {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        ..ToolCallRequest::default()
    }
}

pub fn provider_error(result: &Result<LlmResponse, AgentError>) -> &ProviderError {
    match result {
        Err(AgentError::Provider(e)) => e,
        other => panic!("expected a provider error, got {other:?}"),
    }
}
