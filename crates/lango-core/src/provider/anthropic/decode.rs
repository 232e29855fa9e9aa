//! The Messages API event stream → [`StreamEvent`]s (REFERENCE §5.3 "Stream events").
//!
//! Owns the SSE event semantics only (framing is [`SseParser`]'s, assembly the caller's).
//! Tool calls become chunks keyed by the content block `index`; thinking becomes `Thought`;
//! `error` events end the stream as `Interrupted`. Only `message_stop` completes a reply
//! (`Done`, an output-limit stop when `message_delta` said `max_tokens`); a stream that ends
//! (EOF) without it is cut off (`Interrupted`), whatever arrived before.

use serde_json::Value;

use crate::provider::error::error_message;
use crate::provider::http::Decoder;
use crate::provider::sse::{SseEvent, SseParser};
use crate::provider::{ProviderError, StopReason, StreamEvent, ToolCallChunk, Usage};

#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    sse: SseParser,
    usage: Option<Usage>,
    /// `cache_creation_input_tokens`, counted in the total only.
    cache_creation: u64,
    saw_data: bool,
    /// From `message_delta.stop_reason`.
    stop: StopReason,
    finished: bool,
}

fn u64_at(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

impl AnthropicDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn update_usage(&mut self, usage: &Value) {
        let u = self.usage.get_or_insert_with(Usage::default);
        if let Some(n) = u64_at(usage, "input_tokens") {
            u.input_tokens = n;
        }
        if let Some(n) = u64_at(usage, "output_tokens") {
            u.output_tokens = n;
        }
        if let Some(n) = u64_at(usage, "cache_read_input_tokens") {
            u.cache_tokens = n;
        }
        if let Some(n) = u64_at(usage, "cache_creation_input_tokens") {
            self.cache_creation = n;
        }
        // Every token the request processed: Anthropic's input_tokens excludes cache reads
        // and writes.
        u.total_tokens = u.input_tokens + u.cache_tokens + self.cache_creation + u.output_tokens;
    }

    fn done(&mut self) -> Vec<StreamEvent> {
        self.finished = true;
        let mut out = Vec::with_capacity(2);
        if let Some(u) = self.usage {
            out.push(StreamEvent::Usage(u));
        }
        out.push(StreamEvent::Done {
            usage: self.usage,
            stop: self.stop,
        });
        out
    }

    fn fail(&mut self, message: String) -> Vec<StreamEvent> {
        self.finished = true;
        vec![StreamEvent::Error(ProviderError::Interrupted { message })]
    }

    fn handle(&mut self, event: SseEvent) -> Vec<StreamEvent> {
        if event.data.trim().is_empty() {
            return Vec::new();
        }
        let data: Value = match serde_json::from_str(&event.data) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, event = %event.event, "malformed JSON in the Anthropic stream");
                return self.fail(format!("malformed data in the stream ({e})"));
            }
        };
        self.saw_data = true;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str())
            .to_string();
        let index = data
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok());
        match kind.as_str() {
            "message_start" => {
                if let Some(usage) = data.get("message").and_then(|m| m.get("usage")) {
                    self.update_usage(usage);
                }
                Vec::new()
            }
            "content_block_start" => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                let str_of = |k: &str| {
                    block
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                match block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                {
                    "tool_use" | "server_tool_use" => vec![StreamEvent::ToolCall(ToolCallChunk {
                        // Without an index (never seen) the assembler keys the call by its id.
                        index,
                        id: str_of("id"),
                        name: str_of("name"),
                        ..Default::default()
                    })],
                    "text" => non_empty(str_of("text"), StreamEvent::TextDelta),
                    "thinking" => non_empty(str_of("thinking"), StreamEvent::Thought),
                    // redacted_thinking and anything new: nothing to show.
                    _ => Vec::new(),
                }
            }
            "content_block_delta" => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                let str_of = |k: &str| {
                    delta
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                match delta
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                {
                    "text_delta" => non_empty(str_of("text"), StreamEvent::TextDelta),
                    "input_json_delta" => vec![StreamEvent::ToolCall(ToolCallChunk {
                        index,
                        arguments: str_of("partial_json"),
                        ..Default::default()
                    })],
                    "thinking_delta" => non_empty(str_of("thinking"), StreamEvent::Thought),
                    // signature_delta, citations_delta, …: not needed (we never send thinking back).
                    _ => Vec::new(),
                }
            }
            "message_delta" => {
                if let Some(usage) = data.get("usage") {
                    self.update_usage(usage);
                }
                let reason = data
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str);
                if reason == Some("max_tokens") {
                    self.stop = StopReason::OutputLimit;
                }
                if let Some(reason) =
                    reason.filter(|r| !matches!(*r, "end_turn" | "tool_use" | "stop_sequence"))
                {
                    // max_tokens, refusal, …: what arrived is kept; the turn ends normally.
                    tracing::info!(stop_reason = reason, "Anthropic reply stopped early");
                }
                Vec::new()
            }
            "message_stop" => self.done(),
            "error" => {
                let kind = data
                    .get("error")
                    .and_then(|e| e.get("type"))
                    .and_then(Value::as_str)
                    .unwrap_or("error");
                let message = error_message(&event.data);
                tracing::warn!(kind, %message, "error event in the Anthropic stream");
                self.fail(format!("{message} ({kind})"))
            }
            // ping, content_block_stop, unknown future events.
            _ => Vec::new(),
        }
    }
}

fn non_empty(text: String, make: fn(String) -> StreamEvent) -> Vec<StreamEvent> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![make(text)]
    }
}

impl Decoder for AnthropicDecoder {
    fn feed(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        for event in self.sse.push(bytes) {
            if self.finished {
                break;
            }
            out.extend(self.handle(event));
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        if let Some(event) = self.sse.finish() {
            if !self.finished {
                out.extend(self.handle(event));
            }
        }
        if self.finished {
            return out;
        }
        if self.saw_data {
            tracing::warn!("Anthropic stream ended without message_stop; the reply is cut off");
            self.finished = true;
            out.push(StreamEvent::Error(ProviderError::cut_off()));
        } else {
            out.extend(self.fail("the provider closed the stream without sending anything".into()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(input: &str) -> Vec<StreamEvent> {
        let mut d = AnthropicDecoder::new();
        let mut out = d.feed(input.as_bytes());
        out.extend(d.finish());
        out
    }

    #[test]
    fn an_error_event_ends_the_stream_as_interrupted() {
        let out = decode("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
        assert_eq!(
            out,
            vec![StreamEvent::Error(ProviderError::Interrupted {
                message: "Overloaded (overloaded_error)".into()
            })]
        );
    }

    #[test]
    fn an_empty_body_and_eof_after_data_without_message_stop_are_interruptions() {
        assert!(matches!(
            decode("").as_slice(),
            [StreamEvent::Error(ProviderError::Interrupted { .. })]
        ));
        let out = decode("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}");
        assert_eq!(
            out,
            vec![
                StreamEvent::TextDelta("hi".into()),
                StreamEvent::Error(ProviderError::cut_off())
            ]
        );
    }

    #[test]
    fn malformed_json_interrupts() {
        assert!(matches!(
            decode("data: {nope\n\n").as_slice(),
            [StreamEvent::Error(ProviderError::Interrupted { .. })]
        ));
    }

    #[test]
    fn message_delta_input_tokens_override_message_start() {
        let out = decode(concat!(
            "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":43,\"output_tokens\":1,\"cache_read_input_tokens\":5}}}\n\n",
            "data: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"input_tokens\":61,\"output_tokens\":2}}\n\n",
            "data: {\"type\":\"message_stop\"}\n\n",
        ));
        let usage = Usage {
            input_tokens: 61,
            output_tokens: 2,
            total_tokens: 68,
            cache_tokens: 5,
        };
        assert_eq!(
            out,
            vec![
                StreamEvent::Usage(usage),
                StreamEvent::Done {
                    usage: Some(usage),
                    stop: StopReason::Finished
                }
            ]
        );
    }
}
