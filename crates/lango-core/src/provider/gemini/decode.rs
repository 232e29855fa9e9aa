//! The `streamGenerateContent?alt=sse` stream → [`StreamEvent`]s (REFERENCE §5.4 "Stream").
//!
//! Owns the chunk semantics only (SSE framing is [`SseParser`]'s, assembly the caller's):
//! - `candidates[0].content.parts[]`: `text` with `thought:true` → `Thought`; other non-empty
//!   text → `TextDelta`; a whole `functionCall` → ONE tool chunk with its own index (a running
//!   counter), `arguments` = the JSON text of `args`, the part's `thoughtSignature` and
//!   `thought` flag copied.
//! - Call ids [FIX]: Gemini's own id is kept. Without one the chunk id stays empty (the
//!   assembler then gives `call_<name>`), except that the 2nd, 3rd… id-less call of the same
//!   name in one reply get `call_<name>_2`, `call_<name>_3` explicitly, so ids stay unique.
//! - Vertex AI streamed arguments (best effort): a `functionCall{name, willContinue:true}`
//!   opens a call; following `functionCall{partialArgs:[{jsonPath, stringValue | numberValue |
//!   boolValue | nullValue, willContinue}]}` parts fill an arguments object (`$.a.b[0]` paths;
//!   string pieces of a path that said `willContinue` are appended); a part without
//!   `willContinue` (usually the empty `functionCall:{}`), a new named call, or the end of the
//!   stream closes it and emits it as one whole chunk. Unknown value kinds are skipped.
//! - `usageMetadata`: the last one with token counts wins; reported at the end as `Usage`
//!   then `Done{usage}`. An `error` object → `Interrupted`. A blocked prompt (no candidates,
//!   `promptFeedback.blockReason`) → `Interrupted` naming the reason.
//! - Completeness: only a `finishReason` says the reply is complete (`MAX_TOKENS` = cut at
//!   the output limit); a stream that ends without one is cut off (`Interrupted`).

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::provider::error::error_message;
use crate::provider::http::Decoder;
use crate::provider::sse::{SseEvent, SseParser};
use crate::provider::{ProviderError, StopReason, StreamEvent, ToolCallChunk, Usage};

use super::partial_args::{apply_partial_args, PendingCall};

#[derive(Debug, Default)]
pub struct GeminiDecoder {
    sse: SseParser,
    next_index: u32,
    /// Calls seen per name in this reply (for the `_2`, `_3` id suffixes).
    per_name: HashMap<String, u32>,
    pending: Option<PendingCall>,
    usage: Option<Usage>,
    saw_data: bool,
    /// Set by a candidate's `finishReason`: the reply is complete.
    stop: Option<StopReason>,
    finished: bool,
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn bool_at(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

impl GeminiDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn call_chunk(
        &mut self,
        id: String,
        name: String,
        args: Value,
        thought: bool,
        signature: String,
    ) -> StreamEvent {
        let seen = self.per_name.entry(name.clone()).or_insert(0);
        *seen += 1;
        let id = if !id.is_empty() {
            id
        } else if *seen > 1 {
            format!("call_{name}_{seen}")
        } else {
            String::new()
        };
        let index = self.next_index;
        self.next_index += 1;
        let arguments = if args.is_object() {
            args.to_string()
        } else {
            "{}".to_string()
        };
        StreamEvent::ToolCall(ToolCallChunk {
            index: Some(index),
            id,
            name,
            arguments,
            thought,
            thought_signature: signature,
        })
    }

    fn flush_pending(&mut self) -> Option<StreamEvent> {
        let p = self.pending.take()?;
        Some(self.call_chunk(p.id, p.name, p.args, p.thought, p.signature))
    }

    fn function_call(&mut self, part: &Value, fc: &Value, out: &mut Vec<StreamEvent>) {
        let name = str_at(fc, "name");
        let will_continue = bool_at(fc, "willContinue");
        let signature = str_at(part, "thoughtSignature").to_string();
        let thought = bool_at(part, "thought");
        if !name.is_empty() {
            out.extend(self.flush_pending());
            let args = fc
                .get("args")
                .filter(|a| a.is_object())
                .cloned()
                .unwrap_or_else(|| json!({}));
            let id = str_at(fc, "id").to_string();
            if will_continue {
                let mut pending = PendingCall {
                    id,
                    name: name.to_string(),
                    args,
                    thought,
                    signature,
                    continuing: None,
                };
                apply_partial_args(&mut pending, fc);
                self.pending = Some(pending);
            } else {
                let chunk = self.call_chunk(id, name.to_string(), args, thought, signature);
                out.push(chunk);
            }
            return;
        }
        match self.pending.as_mut() {
            Some(pending) => {
                apply_partial_args(pending, fc);
                if !signature.is_empty() {
                    pending.signature = signature;
                }
                pending.thought |= thought;
                if !will_continue {
                    out.extend(self.flush_pending());
                }
            }
            None if fc.get("partialArgs").is_some() => {
                tracing::warn!("Gemini partial call arguments before any call started; dropped");
            }
            None => {}
        }
    }

    fn update_usage(&mut self, meta: &Value) {
        let count = |k: &str| meta.get(k).and_then(Value::as_u64);
        let keys = [
            "promptTokenCount",
            "candidatesTokenCount",
            "totalTokenCount",
            "cachedContentTokenCount",
        ];
        if keys.iter().all(|k| count(k).is_none()) {
            return; // e.g. Vertex's `{"trafficType": …}` on every chunk
        }
        self.usage = Some(Usage {
            input_tokens: count("promptTokenCount").unwrap_or(0),
            output_tokens: count("candidatesTokenCount").unwrap_or(0),
            total_tokens: count("totalTokenCount").unwrap_or(0),
            cache_tokens: count("cachedContentTokenCount").unwrap_or(0),
        });
    }

    fn fail(&mut self, message: String) -> Vec<StreamEvent> {
        self.finished = true;
        self.pending = None;
        vec![StreamEvent::Error(ProviderError::Interrupted { message })]
    }

    fn handle(&mut self, event: SseEvent) -> Vec<StreamEvent> {
        if event.data.trim().is_empty() {
            return Vec::new();
        }
        let data: Value = match serde_json::from_str(&event.data) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "malformed JSON in the Gemini stream");
                return self.fail(format!("malformed data in the stream ({e})"));
            }
        };
        self.saw_data = true;
        if data.get("error").is_some() {
            let message = error_message(&event.data);
            let status = data
                .get("error")
                .map(|e| str_at(e, "status"))
                .unwrap_or_default();
            tracing::warn!(%message, status, "error object in the Gemini stream");
            return self.fail(if status.is_empty() {
                message
            } else {
                format!("{message} ({status})")
            });
        }
        let mut out = Vec::new();
        let candidate = data.get("candidates").and_then(|c| c.get(0));
        if let Some(parts) = candidate
            .and_then(|c| c.get("content"))
            .and_then(|c| c.get("parts"))
            .and_then(Value::as_array)
        {
            for part in parts {
                if let Some(fc) = part.get("functionCall") {
                    self.function_call(part, fc, &mut out);
                } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                    if text.is_empty() {
                        continue;
                    }
                    if bool_at(part, "thought") {
                        out.push(StreamEvent::Thought(text.to_string()));
                    } else {
                        out.push(StreamEvent::TextDelta(text.to_string()));
                    }
                }
                // inlineData, executableCode, …: not used.
            }
        }
        if let Some(reason) = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
        {
            if reason != "STOP" {
                tracing::info!(finish_reason = reason, "Gemini reply stopped early");
            }
            self.stop = Some(if reason == "MAX_TOKENS" {
                StopReason::OutputLimit
            } else {
                StopReason::Finished
            });
        }
        if let Some(meta) = data.get("usageMetadata") {
            self.update_usage(meta);
        }
        if candidate.is_none() {
            if let Some(reason) = data
                .get("promptFeedback")
                .and_then(|f| f.get("blockReason"))
                .and_then(Value::as_str)
            {
                out.extend(self.fail(format!("Gemini blocked the prompt ({reason})")));
            }
        }
        out
    }
}

impl Decoder for GeminiDecoder {
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
        self.finished = true;
        if !self.saw_data {
            return self.fail("the provider closed the stream without sending anything".into());
        }
        let Some(stop) = self.stop else {
            tracing::warn!("Gemini stream ended without a finishReason; the reply is cut off");
            self.pending = None;
            out.push(StreamEvent::Error(ProviderError::cut_off()));
            return out;
        };
        out.extend(self.flush_pending());
        if let Some(u) = self.usage {
            out.push(StreamEvent::Usage(u));
        }
        out.push(StreamEvent::Done {
            usage: self.usage,
            stop,
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::assembler::ToolCallAssembler;

    fn decode(input: &str) -> Vec<StreamEvent> {
        let mut d = GeminiDecoder::new();
        let mut out = d.feed(input.as_bytes());
        out.extend(d.finish());
        out
    }

    fn calls(events: &[StreamEvent]) -> Vec<(String, String, Value)> {
        let mut a = ToolCallAssembler::new();
        for e in events {
            if let StreamEvent::ToolCall(c) = e {
                a.push(c);
            }
        }
        a.finish()
            .into_iter()
            .map(|c| (c.id, c.name, serde_json::from_str(&c.arguments).unwrap()))
            .collect()
    }

    #[test]
    fn acceptance_71_an_id_less_call_is_named_call_plus_name() {
        let out = decode("data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_country\",\"args\": {}}}]}}]}\r\n\r\n");
        assert_eq!(
            calls(&out),
            [(
                "call_get_country".to_string(),
                "get_country".to_string(),
                json!({})
            )]
        );
    }

    #[test]
    fn same_name_calls_in_one_reply_get_suffixed_ids() {
        let out = decode(concat!(
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"n\":1}}},{\"functionCall\":{\"name\":\"f\",\"args\":{\"n\":2}}}]}}]}\n\n",
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"n\":3}}},{\"functionCall\":{\"name\":\"g\",\"id\":\"own\",\"args\":{}}}]}}]}\n\n",
        ));
        let ids: Vec<String> = calls(&out).into_iter().map(|c| c.0).collect();
        assert_eq!(ids, ["call_f", "call_f_2", "call_f_3", "own"]);
    }

    #[test]
    fn an_error_object_interrupts_and_an_empty_body_is_an_interruption() {
        let out = decode("data: {\"error\": {\"code\": 500, \"message\": \"Internal error\", \"status\": \"INTERNAL\"}}\r\n\r\n");
        assert_eq!(
            out,
            vec![StreamEvent::Error(ProviderError::Interrupted {
                message: "Internal error (INTERNAL)".into()
            })]
        );
        assert!(matches!(
            decode("").as_slice(),
            [StreamEvent::Error(ProviderError::Interrupted { .. })]
        ));
    }

    #[test]
    fn a_blocked_prompt_is_reported() {
        let out = decode("data: {\"promptFeedback\": {\"blockReason\": \"SAFETY\"}}\n\n");
        assert!(
            matches!(out.as_slice(), [StreamEvent::Error(ProviderError::Interrupted { message })] if message.contains("SAFETY"))
        );
    }
}
