//! Provider `StreamEvent`s → `LlmResponse`s (REFERENCE §1.2 `stream=true` / `stream=false`).
//!
//! Owns the streaming semantics only: partial text and call notifications, the single final
//! response (also when the provider never sent `Done` [FIX]), error propagation, usage and
//! cancellation. It must not build requests (`convert` does) nor assemble calls itself (the
//! provider's `ToolCallAssembler` does, REFERENCE §1.3).

use futures_util::StreamExt;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::convert::{fallback_call_id, final_content};
use crate::agent::error::AgentError;
use crate::agent::traits::LlmStream;
use crate::agent::types::{roles, Content, LlmResponse, Part};
use crate::provider::assembler::ToolCallAssembler;
use crate::provider::{EventStream, ProviderError, StopReason, StreamEvent, ToolCallChunk, Usage};

/// Where the responses come from and whom they are reported as (for the usage log).
pub(super) struct Source {
    pub events: EventStream,
    pub cancel: CancellationToken,
    pub provider_id: String,
    pub model: String,
}

/// Turns provider events into responses: in streaming mode partial text and call
/// notifications as they arrive, in both modes one final complete response at the end.
pub(super) fn responses(source: Source, stream: bool) -> LlmStream {
    let driver = Driver {
        source,
        stream,
        text: String::new(),
        assembler: ToolCallAssembler::new(),
        usage: None,
        truncated: false,
        finished: false,
    };
    Box::pin(futures_util::stream::unfold(driver, |mut d| async move {
        d.next().await.map(|item| (item, d))
    }))
}

struct Driver {
    source: Source,
    stream: bool,
    text: String,
    assembler: ToolCallAssembler,
    usage: Option<Usage>,
    /// The provider stopped at the output limit.
    truncated: bool,
    finished: bool,
}

impl Driver {
    async fn next(&mut self) -> Option<Result<LlmResponse, AgentError>> {
        while !self.finished {
            let event = tokio::select! {
                biased;
                () = self.source.cancel.cancelled() => {
                    self.finished = true;
                    return Some(Err(AgentError::Provider(ProviderError::Cancelled)));
                }
                event = self.source.events.next() => event,
            };
            match event {
                None => return Some(Ok(self.finish())),
                Some(StreamEvent::TextDelta(delta)) => {
                    self.text.push_str(&delta);
                    if self.stream && !delta.is_empty() {
                        return Some(Ok(partial(vec![Part::text(delta)])));
                    }
                }
                Some(StreamEvent::ToolCall(chunk)) => {
                    self.assembler.push(&chunk);
                    if self.stream && !chunk.name.is_empty() {
                        return Some(Ok(partial(vec![notification(&chunk)])));
                    }
                }
                Some(StreamEvent::Thought(thought)) => {
                    tracing::trace!(chars = thought.len(), "model thought (not shown)");
                }
                Some(StreamEvent::Usage(usage)) => self.usage = Some(usage),
                Some(StreamEvent::Done { usage, stop }) => {
                    if usage.is_some() {
                        self.usage = usage;
                    }
                    self.truncated = stop == StopReason::OutputLimit;
                    return Some(Ok(self.finish()));
                }
                Some(StreamEvent::Error(e)) => {
                    self.finished = true;
                    return Some(Err(AgentError::Provider(e)));
                }
            }
        }
        None
    }

    /// The one final response: all text, then the assembled calls; usage reported and kept.
    fn finish(&mut self) -> LlmResponse {
        self.finished = true;
        let calls = std::mem::take(&mut self.assembler).finish();
        if let Some(u) = &self.usage {
            tracing::info!(
                provider = %self.source.provider_id,
                model = %self.source.model,
                input = u.input_tokens,
                output = u.output_tokens,
                total = u.total_tokens,
                cache = u.cache_tokens,
                "model usage"
            );
        }
        LlmResponse {
            content: Some(final_content(&std::mem::take(&mut self.text), &calls)),
            partial: false,
            turn_complete: true,
            usage: self.usage,
            truncated: self.truncated,
        }
    }
}

fn partial(parts: Vec<Part>) -> LlmResponse {
    LlmResponse {
        content: Some(Content::new(roles::MODEL, parts)),
        partial: true,
        turn_complete: false,
        usage: None,
        truncated: false,
    }
}

/// A call notification for a start chunk: id or `"call_" + name`, the chunk's arguments when
/// they already are a whole JSON object, else `{}`; no thought fields.
fn notification(chunk: &ToolCallChunk) -> Part {
    let args = match serde_json::from_str::<Value>(&chunk.arguments) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    Part::function_call(
        fallback_call_id(&chunk.id, &chunk.name),
        chunk.name.clone(),
        args,
    )
}
