//! Stream bodies: each [`Turn`] as the bytes, pauses, resets and stalls of a streamed reply
//! in the request's wire format, following the recorded fixtures (field order, separators,
//! CRLF for Gemini, Anthropic's pings).

use std::time::Duration;

use super::errors::{gemini_json, js, status_reply};
use super::script::Turn;
use super::wire::Wire;
use crate::server::{Action, RecordedRequest, Reply};

// Stream bodies

const CREATED: u64 = 1_727_346_168;
const OLLAMA_TIME: &str = "2025-07-07T20:22:19.184789Z";

/// Everything one reply needs to know about its request.
pub(super) struct Ctx {
    wire: Wire,
    model: String,
    /// The request's number (ids).
    n: usize,
    prompt_tokens: u64,
}

impl Ctx {
    pub(super) fn new(wire: Wire, req: &RecordedRequest, n: usize) -> Self {
        let model = match wire {
            Wire::Gemini => {
                let path = req.path.split('?').next().unwrap_or(&req.path);
                path.rsplit("/models/")
                    .next()
                    .and_then(|m| m.split(':').next())
                    .unwrap_or("fake-model")
                    .to_string()
            }
            _ => req
                .json()
                .get("model")
                .and_then(|m| m.as_str())
                .unwrap_or("fake-model")
                .to_string(),
        };
        let model = if model.is_empty() {
            "fake-model".to_string()
        } else {
            model
        };
        Self {
            wire,
            model,
            n,
            prompt_tokens: (req.body.len() as u64 / 4).max(1),
        }
    }

    fn content_type(&self) -> &'static str {
        match self.wire {
            Wire::Ollama => "application/x-ndjson",
            _ => "text/event-stream",
        }
    }

    fn head(&self) -> Reply {
        match self.wire {
            Wire::OpenAi | Wire::Anthropic | Wire::Gemini => {
                Reply::head(200, self.content_type(), &[("Cache-Control", "no-cache")])
            }
            Wire::Ollama => Reply::head(200, self.content_type(), &[]),
        }
    }

    pub(super) fn reply(&self, turn: Turn) -> Reply {
        match turn {
            Turn::Status {
                code,
                body,
                retry_after,
            } => status_reply(self.wire, code, &body, retry_after),
            Turn::Text { chunks, delay_ms } => {
                let mut reply = self
                    .head()
                    .then(Action::Write(self.text_start().into_bytes()));
                let last = chunks.len().saturating_sub(1);
                for (i, chunk) in chunks.iter().enumerate() {
                    if i > 0 && delay_ms > 0 {
                        reply = reply.then(Action::Sleep(Duration::from_millis(delay_ms)));
                    }
                    reply = reply.then(Action::Write(
                        self.text_delta(chunk, i, i == last).into_bytes(),
                    ));
                }
                reply.then(Action::Write(self.text_end(chunks.len()).into_bytes()))
            }
            Turn::ToolCall {
                id,
                name,
                arguments_json,
                ..
            } => self.head().then(Action::Write(
                self.tool_call(&id, &name, &arguments_json).into_bytes(),
            )),
            Turn::ErrorEvent { message, chunks } => self
                .partial(&chunks)
                .then(Action::Write(self.error_event(&message).into_bytes())),
            Turn::ResetAfter { chunks } => {
                // A short pause first so what was written reaches the client before the RST.
                self.partial(&chunks)
                    .then(Action::Sleep(Duration::from_millis(30)))
                    .then(Action::Reset)
            }
            Turn::Stall { chunks, stall_ms } => self
                .partial(&chunks)
                .then(Action::Stall(Duration::from_millis(stall_ms))),
            Turn::Cut { chunks } => self.partial(&chunks),
            Turn::LengthStop { chunks } => self
                .partial(&chunks)
                .then(Action::Write(self.length_end(chunks.len()).into_bytes())),
            Turn::Endless { chunk } => self.partial(&[]).then(Action::Repeat(
                self.text_delta(&chunk, 0, false).into_bytes(),
            )),
        }
    }

    /// Head, stream start and `chunks` as deltas (none of them final).
    fn partial(&self, chunks: &[String]) -> Reply {
        let mut reply = self
            .head()
            .then(Action::Write(self.text_start().into_bytes()));
        for (i, chunk) in chunks.iter().enumerate() {
            reply = reply.then(Action::Write(self.text_delta(chunk, i, false).into_bytes()));
        }
        reply
    }

    fn openai_chunk(&self, choices: &str) -> String {
        format!(
            "data: {{\"id\":\"chatcmpl-fake{:08}\",\"object\":\"chat.completion.chunk\",\"created\":{CREATED},\"model\":{},\"system_fingerprint\":\"fp_fake\",\"choices\":[{choices}]}}\n\n",
            self.n,
            js(&self.model)
        )
    }

    fn openai_usage(&self, completion: u64) -> String {
        format!(
            "data: {{\"id\":\"chatcmpl-fake{:08}\",\"object\":\"chat.completion.chunk\",\"created\":{CREATED},\"model\":{},\"system_fingerprint\":\"fp_fake\",\"choices\":[],\"usage\":{{\"prompt_tokens\":{p},\"completion_tokens\":{completion},\"total_tokens\":{}}}}}\n\ndata: [DONE]\n\n",
            self.n,
            js(&self.model),
            self.prompt_tokens + completion,
            p = self.prompt_tokens,
        )
    }

    fn anthropic_start(&self) -> String {
        format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"msg_fake{:08}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":{},\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},\"output_tokens\":1}}}}}}\n\n",
            self.n,
            js(&self.model),
            self.prompt_tokens
        )
    }

    fn anthropic_end(&self, stop_reason: &str, index: usize, output_tokens: u64) -> String {
        format!(
            "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{index}}}\n\n\
             event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{stop_reason}\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":{output_tokens}}}}}\n\n\
             event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        )
    }

    /// One Gemini chunk; `finish` = the `finishReason` it carries, if any.
    fn gemini_chunk(&self, parts: &str, finish: Option<&str>, completion: u64) -> String {
        let p = self.prompt_tokens;
        let (finish, usage) = if let Some(reason) = finish {
            (
                format!(",\"finishReason\": \"{reason}\""),
                format!("{{\"promptTokenCount\": {p},\"candidatesTokenCount\": {completion},\"totalTokenCount\": {}}}", p + completion),
            )
        } else {
            (
                String::new(),
                format!("{{\"promptTokenCount\": {p},\"totalTokenCount\": {p}}}"),
            )
        };
        format!(
            "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{parts}],\"role\": \"model\"}}{finish}}}],\"usageMetadata\": {usage},\"modelVersion\": {},\"responseId\": \"fake{:08}\"}}\r\n\r\n",
            js(&self.model),
            self.n
        )
    }

    fn ollama_line(&self, message: &str) -> String {
        format!("{{\"model\":{},\"created_at\":\"{OLLAMA_TIME}\",\"message\":{message},\"done\":false}}\n", js(&self.model))
    }

    fn ollama_done(&self, completion: u64) -> String {
        self.ollama_done_because("stop", completion)
    }

    fn ollama_done_because(&self, reason: &str, completion: u64) -> String {
        format!(
            "{{\"model\":{},\"created_at\":\"{OLLAMA_TIME}\",\"message\":{{\"role\":\"assistant\",\"content\":\"\"}},\"done_reason\":\"{reason}\",\"done\":true,\"total_duration\":182242375,\"load_duration\":41295167,\"prompt_eval_count\":{},\"prompt_eval_duration\":24573166,\"eval_count\":{completion},\"eval_duration\":115959084}}\n",
            js(&self.model),
            self.prompt_tokens
        )
    }

    /// What comes before the first text delta.
    fn text_start(&self) -> String {
        match self.wire {
            Wire::OpenAi => self.openai_chunk(
                r#"{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}"#,
            ),
            Wire::Anthropic => format!(
                "{}event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\nevent: ping\ndata: {{\"type\": \"ping\"}}\n\n",
                self.anthropic_start()
            ),
            Wire::Gemini | Wire::Ollama => String::new(),
        }
    }

    /// Text delta number `index`; `last` puts Gemini's `finishReason` on it (a finished
    /// Text turn).
    fn text_delta(&self, text: &str, index: usize, last: bool) -> String {
        match self.wire {
            Wire::OpenAi => self.openai_chunk(&format!(
                r#"{{"index":0,"delta":{{"content":{}}},"logprobs":null,"finish_reason":null}}"#,
                js(text)
            )),
            Wire::Anthropic => format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{}}}}}\n\n",
                js(text)
            ),
            Wire::Gemini => self.gemini_chunk(&format!("{{\"text\": {}}}", js(text)), last.then_some("STOP"), index as u64 + 1),
            Wire::Ollama => self.ollama_line(&format!("{{\"role\":\"assistant\",\"content\":{}}}", js(text))),
        }
    }

    /// What ends a finished text answer of `count` chunks.
    fn text_end(&self, count: usize) -> String {
        let count = count as u64;
        match self.wire {
            Wire::OpenAi => {
                self.openai_chunk(
                    r#"{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}"#,
                ) + &self.openai_usage(count)
            }
            Wire::Anthropic => self.anthropic_end("end_turn", 0, count.max(1)),
            // The last chunk carried finishReason; with no chunks, an empty STOP chunk.
            Wire::Gemini if count == 0 => self.gemini_chunk("{\"text\": \"\"}", Some("STOP"), 0),
            Wire::Gemini => String::new(),
            Wire::Ollama => self.ollama_done(count),
        }
    }

    /// What ends a text answer the output limit cut after `count` chunks: the format's own
    /// length stop (OpenAI `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`, Ollama
    /// `done_reason:"length"`).
    fn length_end(&self, count: usize) -> String {
        let count = count as u64;
        match self.wire {
            Wire::OpenAi => {
                self.openai_chunk(
                    r#"{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}"#,
                ) + &self.openai_usage(count)
            }
            Wire::Anthropic => self.anthropic_end("max_tokens", 0, count.max(1)),
            Wire::Gemini => self.gemini_chunk("{\"text\": \"\"}", Some("MAX_TOKENS"), count),
            Wire::Ollama => self.ollama_done_because("length", count),
        }
    }

    /// A complete reply body with one tool call.
    fn tool_call(&self, id: &str, name: &str, arguments: &str) -> String {
        let fragments = split_fragments(arguments, 8);
        match self.wire {
            Wire::OpenAi => {
                let mut out = self.openai_chunk(&format!(
                    r#"{{"index":0,"delta":{{"role":"assistant","content":null,"tool_calls":[{{"index":0,"id":{},"type":"function","function":{{"name":{},"arguments":""}}}}],"refusal":null}},"logprobs":null,"finish_reason":null}}"#,
                    js(id),
                    js(name)
                ));
                for f in &fragments {
                    out += &self.openai_chunk(&format!(
                        r#"{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":{}}}}}]}},"logprobs":null,"finish_reason":null}}"#,
                        js(f)
                    ));
                }
                out += &self.openai_chunk(
                    r#"{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}"#,
                );
                out + &self.openai_usage(fragments.len() as u64 + 1)
            }
            Wire::Anthropic => {
                let mut out = self.anthropic_start();
                out += &format!(
                    "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":{},\"name\":{},\"input\":{{}}}}}}\n\nevent: ping\ndata: {{\"type\": \"ping\"}}\n\n",
                    js(id),
                    js(name)
                );
                for f in std::iter::once("").chain(fragments.iter().map(String::as_str)) {
                    out += &format!(
                        "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":{}}}}}\n\n",
                        js(f)
                    );
                }
                out + &self.anthropic_end("tool_use", 0, fragments.len() as u64 + 1)
            }
            Wire::Gemini => {
                let args = parse_object(arguments);
                let call = serde_json::json!({"functionCall": {"name": name, "args": args}});
                self.gemini_chunk(&gemini_json(&call), Some("STOP"), 5)
            }
            Wire::Ollama => {
                let args =
                    serde_json::to_string(&parse_object(arguments)).unwrap_or_else(|_| "{}".into());
                self.ollama_line(&format!(
                    "{{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{{\"id\":{},\"function\":{{\"index\":0,\"name\":{},\"arguments\":{args}}}}}]}}",
                    js(id),
                    js(name)
                )) + &self.ollama_done(1)
            }
        }
    }

    /// The format's mid-stream error (in an HTTP 200 body), after which the body ends.
    fn error_event(&self, message: &str) -> String {
        match self.wire {
            Wire::OpenAi => {
                format!("data: {{\"error\":{{\"message\":{},\"type\":\"server_error\",\"param\":null,\"code\":null}}}}\n\n", js(message))
            }
            Wire::Anthropic => format!(
                "event: error\ndata: {{\"type\": \"error\", \"error\": {{\"type\": \"api_error\", \"message\": {}}}}}\n\n",
                js(message)
            ),
            Wire::Gemini => format!("data: {{\"error\": {{\"code\": 500,\"message\": {},\"status\": \"INTERNAL\"}}}}\r\n\r\n", js(message)),
            Wire::Ollama => format!("{{\"error\":{}}}\n", js(message)),
        }
    }
}

fn parse_object(arguments: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        _ => serde_json::json!({}),
    }
}

/// Splits `text` into pieces of at most `n` chars (on char boundaries); empty text → none.
fn split_fragments(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}
