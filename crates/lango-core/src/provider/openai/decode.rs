//! The Chat Completions stream decoder: SSE `data:` chunks in, [`StreamEvent`]s out.
//!
//! Owns the chunk format and its server quirks (REFERENCE §5.2 "Stream"): choice 0 only,
//! text / refusal / reasoning deltas, tool-call chunks passed on as given (the assembler
//! merges them), usage wherever a server puts it, error objects inside HTTP-200 streams,
//! empty bodies. It must not assemble tool calls, retry, or touch the network.
//!
//! A reply is complete only when the server said so: a choice-0 `finish_reason` or
//! `data: [DONE]`. EOF without either is a cut-off reply (`Interrupted`), never `Done`.

use serde_json::Value;

use crate::provider::error::error_message;
use crate::provider::http::Decoder;
use crate::provider::sse::{SseEvent, SseParser};
use crate::provider::{ProviderError, StopReason, StreamEvent, ToolCallChunk, Usage};

/// How much of a body without any SSE event we keep, to explain it at EOF.
const RAW_CAP: usize = 64 * 1024;

#[derive(Debug, Default)]
pub struct ChatCompletionsDecoder {
    sse: SseParser,
    usage: Option<Usage>,
    /// A JSON chunk was decoded (so EOF is a cut reply, not an empty one).
    saw_chunk: bool,
    /// Choice 0's `finish_reason`, once one arrived: the reply is complete.
    finish: Option<StopReason>,
    /// The terminal event was emitted; everything after it is ignored.
    ended: bool,
    /// The body so far while no SSE event has been seen (a server that ignored `stream`).
    raw: Vec<u8>,
    saw_event: bool,
}

impl ChatCompletionsDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn handle(&mut self, event: SseEvent, out: &mut Vec<StreamEvent>) {
        self.saw_event = true;
        self.raw = Vec::new();
        if self.ended {
            return;
        }
        let data = event.data.trim();
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            let stop = self.finish.unwrap_or_default();
            self.end(
                out,
                StreamEvent::Done {
                    usage: self.usage,
                    stop,
                },
            );
            return;
        }
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if event.event == "error" => {
                let message = data.chars().take(500).collect();
                self.end(
                    out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "malformed chunk in the provider's stream");
                let message = format!("the provider sent malformed data ({e})");
                self.end(
                    out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
                return;
            }
        };
        if event.event == "error" || chunk.get("error").is_some_and(|e| !e.is_null()) {
            let message = error_message(data);
            tracing::warn!(%message, "error event inside the provider's stream");
            self.end(
                out,
                StreamEvent::Error(ProviderError::Interrupted { message }),
            );
            return;
        }
        self.saw_chunk = true;
        if let Some(reason) = finish_reason(&chunk) {
            self.finish = Some(StopReason::from_openai(reason));
        }
        decode_chunk(&chunk, out);
        if let Some(usage) = usage_of(&chunk) {
            self.usage = Some(usage);
            out.push(StreamEvent::Usage(usage));
        }
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>, event: StreamEvent) {
        self.ended = true;
        out.push(event);
    }

    /// EOF before any SSE event: an empty body, or a whole JSON body from a server that does
    /// not stream (an error, or a non-streamed completion).
    fn finish_without_events(&mut self, out: &mut Vec<StreamEvent>) {
        let raw = std::mem::take(&mut self.raw);
        let text = String::from_utf8_lossy(&raw);
        let text = text.trim();
        if text.is_empty() {
            tracing::warn!("the provider returned an empty body");
            let message = "the provider returned an empty response".to_string();
            return self.end(
                out,
                StreamEvent::Error(ProviderError::Interrupted { message }),
            );
        }
        let parsed: Option<Value> = serde_json::from_str(text).ok();
        match parsed {
            Some(v) if v.get("error").is_some_and(|e| !e.is_null()) => {
                let message = error_message(text);
                self.end(
                    out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
            }
            Some(v) if v.pointer("/choices/0/message").is_some() => {
                tracing::debug!("the provider answered without streaming");
                decode_whole_completion(&v, out);
                self.usage = usage_of(&v);
                if let Some(u) = self.usage {
                    out.push(StreamEvent::Usage(u));
                }
                let stop =
                    finish_reason(&v).map_or_else(StopReason::default, StopReason::from_openai);
                self.end(
                    out,
                    StreamEvent::Done {
                        usage: self.usage,
                        stop,
                    },
                );
            }
            _ => {
                let snippet: String = text.chars().take(200).collect();
                let message = format!("the provider sent an unexpected response: {snippet}");
                self.end(
                    out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
            }
        }
    }
}

impl Decoder for ChatCompletionsDecoder {
    fn feed(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        if !self.saw_event && self.raw.len() < RAW_CAP {
            let room = RAW_CAP - self.raw.len();
            self.raw.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        for event in self.sse.push(bytes) {
            self.handle(event, &mut out);
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        if let Some(event) = self.sse.finish() {
            self.handle(event, &mut out);
        }
        if self.ended {
            return out;
        }
        if let Some(stop) = self.finish {
            // Many servers never send [DONE]; the finish_reason already said it is complete.
            tracing::debug!("stream ended without [DONE] after a finish_reason");
            let usage = self.usage;
            self.end(&mut out, StreamEvent::Done { usage, stop });
        } else if self.saw_chunk {
            tracing::warn!("stream ended without a finish_reason or [DONE]; the reply is cut off");
            self.end(&mut out, StreamEvent::Error(ProviderError::cut_off()));
        } else if self.saw_event {
            let message = "the provider returned an empty response".to_string();
            self.end(
                &mut out,
                StreamEvent::Error(ProviderError::Interrupted { message }),
            );
        } else {
            self.finish_without_events(&mut out);
        }
        out
    }
}

/// Choice 0's non-null `finish_reason` (a streamed chunk or a whole completion).
fn finish_reason(chunk: &Value) -> Option<&str> {
    chunk
        .get("choices")?
        .as_array()?
        .iter()
        .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)?
        .get("finish_reason")?
        .as_str()
        .filter(|r| !r.is_empty())
}

/// The events of one chunk's first choice (`index` 0; other choices of `n > 1` are ignored).
fn decode_chunk(chunk: &Value, out: &mut Vec<StreamEvent>) {
    let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
        return;
    };
    let first = choices
        .iter()
        .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
    let Some(delta) = first.and_then(|c| c.get("delta")) else {
        return;
    };
    for key in ["reasoning_content", "reasoning"] {
        if let Some(t) = non_empty_str(delta.get(key)) {
            out.push(StreamEvent::Thought(t.to_string()));
        }
    }
    if let Some(t) = non_empty_str(delta.get("content")) {
        out.push(StreamEvent::TextDelta(t.to_string()));
    }
    // A refusal is what the user should see instead of an answer.
    if let Some(t) = non_empty_str(delta.get("refusal")) {
        out.push(StreamEvent::TextDelta(t.to_string()));
    }
    if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
        out.extend(
            calls
                .iter()
                .filter_map(tool_call_chunk)
                .map(StreamEvent::ToolCall),
        );
    }
}

/// A whole `chat.completion` (a server that ignored `stream:true`).
fn decode_whole_completion(v: &Value, out: &mut Vec<StreamEvent>) {
    let Some(message) = v.pointer("/choices/0/message") else {
        return;
    };
    for key in ["reasoning_content", "reasoning"] {
        if let Some(t) = non_empty_str(message.get(key)) {
            out.push(StreamEvent::Thought(t.to_string()));
        }
    }
    for key in ["content", "refusal"] {
        if let Some(t) = non_empty_str(message.get(key)) {
            out.push(StreamEvent::TextDelta(t.to_string()));
        }
    }
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, call) in calls.iter().enumerate() {
            if let Some(mut chunk) = tool_call_chunk(call) {
                chunk.index = chunk.index.or(u32::try_from(i).ok());
                out.push(StreamEvent::ToolCall(chunk));
            }
        }
    }
}

/// One `tool_calls[]` entry as a chunk: index as given (absent → None), `""` for missing
/// strings (an empty name never erases one in the assembler), arguments as text.
fn tool_call_chunk(call: &Value) -> Option<ToolCallChunk> {
    let index = call
        .get("index")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok());
    let function = call.get("function");
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let arguments = match function.and_then(|f| f.get("arguments")) {
        Some(Value::String(s)) => s.clone(),
        Some(v @ Value::Object(_)) => v.to_string(),
        _ => String::new(),
    };
    let chunk = ToolCallChunk {
        index,
        id: text(call.get("id")),
        name: text(function.and_then(|f| f.get("name"))),
        arguments,
        ..Default::default()
    };
    let empty = chunk.index.is_none()
        && chunk.id.is_empty()
        && chunk.name.is_empty()
        && chunk.arguments.is_empty();
    (!empty).then_some(chunk)
}

/// Usage at the top level (a `choices:[]` chunk or the finish chunk) or in `x_groq.usage`.
fn usage_of(chunk: &Value) -> Option<Usage> {
    let u = chunk
        .get("usage")
        .filter(|u| u.is_object())
        .or_else(|| chunk.pointer("/x_groq/usage").filter(|u| u.is_object()))?;
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let input = n(u.get("prompt_tokens")).unwrap_or(0);
    let output = n(u.get("completion_tokens")).unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: n(u.get("total_tokens")).unwrap_or(input + output),
        cache_tokens: n(u.pointer("/prompt_tokens_details/cached_tokens"))
            .or_else(|| n(u.get("prompt_cache_hit_tokens")))
            .unwrap_or(0),
    })
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(body: &str) -> Vec<StreamEvent> {
        let mut d = ChatCompletionsDecoder::new();
        let mut out = d.feed(body.as_bytes());
        out.extend(d.finish());
        out
    }

    #[test]
    fn malformed_json_in_a_data_line_interrupts_the_stream() {
        let out = decode("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {not json\n\ndata: [DONE]\n\n");
        assert_eq!(out[0], StreamEvent::TextDelta("a".into()));
        assert!(
            matches!(&out[1], StreamEvent::Error(ProviderError::Interrupted { message }) if message.contains("malformed")),
            "{out:?}"
        );
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn a_non_streamed_completion_body_is_still_understood() {
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#;
        let out = decode(body);
        assert_eq!(out[0], StreamEvent::TextDelta("hi".into()));
        assert!(matches!(&out[1], StreamEvent::ToolCall(c) if c.name == "f" && c.index == Some(0)));
        let usage = Usage {
            input_tokens: 3,
            output_tokens: 2,
            total_tokens: 5,
            cache_tokens: 0,
        };
        assert_eq!(
            out[3],
            StreamEvent::Done {
                usage: Some(usage),
                stop: StopReason::Finished
            }
        );
    }

    #[test]
    fn a_plain_json_error_body_with_status_200_is_an_interruption_with_its_message() {
        let out = decode(r#"{"error":{"message":"model is loading"}}"#);
        assert_eq!(
            out,
            vec![StreamEvent::Error(ProviderError::Interrupted {
                message: "model is loading".into()
            })]
        );
    }

    #[test]
    fn usage_only_in_x_groq_is_used_and_a_first_x_groq_without_usage_is_ignored() {
        let out = decode(concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"x_groq\":{\"id\":\"req\"}}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],",
            "\"x_groq\":{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}}\n\n",
            "data: [DONE]\n\n"
        ));
        let usage = Usage {
            input_tokens: 5,
            output_tokens: 2,
            total_tokens: 7,
            cache_tokens: 0,
        };
        assert_eq!(
            out,
            vec![
                StreamEvent::TextDelta("a".into()),
                StreamEvent::Usage(usage),
                StreamEvent::Done {
                    usage: Some(usage),
                    stop: StopReason::Finished
                }
            ]
        );
    }

    #[test]
    fn events_after_the_terminal_one_are_ignored() {
        let out =
            decode("data: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n");
        assert_eq!(
            out,
            vec![StreamEvent::Done {
                usage: None,
                stop: StopReason::Finished
            }]
        );
    }
}
