//! The native Ollama NDJSON stream decoder (`/api/chat`, and `/api/generate`-shaped lines).
//!
//! Owns the line format: `message.content` / `response` → text, `message.thinking` →
//! thought, whole tool calls with object arguments → one chunk each with a distinct index,
//! `done:true` → usage and Done (`done_reason:"length"` = cut at the output limit),
//! `{"error":…}` lines inside an HTTP-200 stream. A stream that ends without `done:true` is
//! cut off (`Interrupted`). It must not assemble tool calls, retry, or touch the network.

use serde_json::Value;

use crate::provider::http::Decoder;
use crate::provider::ndjson::NdjsonParser;
use crate::provider::{ProviderError, StopReason, StreamEvent, ToolCallChunk, Usage};

#[derive(Debug, Default)]
pub struct OllamaDecoder {
    lines: NdjsonParser,
    /// Indexes already given to tool calls; a call without an index (or with a used one)
    /// gets the next free number, so two calls never merge.
    used_indexes: Vec<u32>,
    saw_line: bool,
    ended: bool,
}

impl OllamaDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn handle(&mut self, line: &str, out: &mut Vec<StreamEvent>) {
        if self.ended {
            return;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "malformed line in Ollama's stream");
                let message = format!("the provider sent malformed data ({e})");
                return self.end(
                    out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
            }
        };
        if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
            let message = match error {
                Value::String(s) => s.clone(),
                other => other
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| other.to_string(), str::to_string),
            };
            tracing::warn!(%message, "error line inside Ollama's stream");
            return self.end(
                out,
                StreamEvent::Error(ProviderError::Interrupted { message }),
            );
        }
        self.saw_line = true;
        let message = v.get("message");
        for thinking in [message.and_then(|m| m.get("thinking")), v.get("thinking")] {
            if let Some(t) = non_empty_str(thinking) {
                out.push(StreamEvent::Thought(t.to_string()));
            }
        }
        for content in [message.and_then(|m| m.get("content")), v.get("response")] {
            if let Some(t) = non_empty_str(content) {
                out.push(StreamEvent::TextDelta(t.to_string()));
            }
        }
        if let Some(calls) = message
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
        {
            for call in calls {
                if let Some(chunk) = self.tool_call_chunk(call) {
                    out.push(StreamEvent::ToolCall(chunk));
                }
            }
        }
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            let usage = usage_of(&v);
            if let Some(u) = usage {
                out.push(StreamEvent::Usage(u));
            }
            let stop = v
                .get("done_reason")
                .and_then(Value::as_str)
                .map_or_else(StopReason::default, StopReason::from_openai);
            self.end(out, StreamEvent::Done { usage, stop });
        }
    }

    fn tool_call_chunk(&mut self, call: &Value) -> Option<ToolCallChunk> {
        let function = call.get("function")?;
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let arguments = match function.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => "{}".to_string(),
            Some(other) => other.to_string(),
        };
        let given = function
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok());
        let index = match given {
            Some(i) if !self.used_indexes.contains(&i) => i,
            _ => self.used_indexes.iter().max().map_or(0, |m| m + 1),
        };
        self.used_indexes.push(index);
        Some(ToolCallChunk {
            index: Some(index),
            // No id → empty, so the assembler names it `call_<name>`.
            id: call
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            name,
            arguments,
            ..Default::default()
        })
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>, event: StreamEvent) {
        self.ended = true;
        out.push(event);
    }
}

impl Decoder for OllamaDecoder {
    fn feed(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        for line in self.lines.push(bytes) {
            self.handle(&line, &mut out);
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        if let Some(line) = self.lines.finish() {
            self.handle(&line, &mut out);
        }
        if !self.ended {
            if self.saw_line {
                tracing::warn!("Ollama's stream ended without done:true; the reply is cut off");
                self.end(&mut out, StreamEvent::Error(ProviderError::cut_off()));
            } else {
                let message = "the provider returned an empty response".to_string();
                self.end(
                    &mut out,
                    StreamEvent::Error(ProviderError::Interrupted { message }),
                );
            }
        }
        out
    }
}

/// The `done:true` line's counts: prompt_eval_count → input, eval_count → output,
/// prompt_eval_cached_count → cache.
fn usage_of(v: &Value) -> Option<Usage> {
    let n = |key: &str| v.get(key).and_then(Value::as_u64);
    let (input, output) = (n("prompt_eval_count"), n("eval_count"));
    if input.is_none() && output.is_none() {
        return None;
    }
    let (input, output) = (input.unwrap_or(0), output.unwrap_or(0));
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        cache_tokens: n("prompt_eval_cached_count").unwrap_or(0),
    })
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(body: &str) -> Vec<StreamEvent> {
        let mut d = OllamaDecoder::new();
        let mut out = d.feed(body.as_bytes());
        out.extend(d.finish());
        out
    }

    #[test]
    fn calls_with_repeated_or_missing_indexes_get_distinct_ones() {
        let out = decode(concat!(
            r#"{"message":{"tool_calls":[{"function":{"index":0,"name":"a","arguments":{}}},{"function":{"name":"b","arguments":{}}}]},"done":false}"#,
            "\n",
            r#"{"message":{"tool_calls":[{"function":{"index":0,"name":"c","arguments":{}}}]},"done":true}"#,
            "\n"
        ));
        let indexes: Vec<Option<u32>> = out
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCall(c) => Some(c.index),
                _ => None,
            })
            .collect();
        assert_eq!(indexes, [Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn an_empty_body_is_an_interruption_and_malformed_lines_stop_the_stream() {
        assert!(
            matches!(&decode("")[..], [StreamEvent::Error(ProviderError::Interrupted { message })] if message.contains("empty response"))
        );
        let out = decode("{\"response\":\"a\"}\nnot json\n{\"response\":\"b\"}\n");
        assert_eq!(out[0], StreamEvent::TextDelta("a".into()));
        assert!(
            matches!(&out[1], StreamEvent::Error(ProviderError::Interrupted { message }) if message.contains("malformed"))
        );
        assert_eq!(out.len(), 2);
    }
}
