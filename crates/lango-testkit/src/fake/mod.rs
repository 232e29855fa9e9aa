//! A scriptable fake model provider that speaks all four wire formats Lango talks.
//!
//! [`FakeProvider::start`] runs a [`TestServer`] whose replies follow a [`Script`]: a queue of
//! [`Turn`]s, one consumed per generate request (the last one repeats). The wire format is
//! chosen by the request path, so one server can stand in for every provider at once:
//!
//! | request | format |
//! | --- | --- |
//! | `POST …/chat/completions` | OpenAI SSE: role chunk, content deltas, finish chunk, usage chunk (`choices:[]`), `data: [DONE]` |
//! | `POST …/api/chat` | Ollama NDJSON: `message.content` lines, then a `done:true` line with the metrics |
//! | `POST …/messages` | Anthropic SSE with `event:` lines: `message_start` … `message_stop` |
//! | `POST …/models/<m>:streamGenerateContent` | Gemini SSE (CRLF, `"key": value` spacing), `finishReason` on the last chunk |
//! | `POST …/embeddings`, `…/api/embed`, `…:batchEmbedContents` | deterministic embeddings ([`embed_text`]: hashed bag of words, 64 dims) |
//! | `GET …/models`, `GET …/v1/models`, `GET …/api/tags` | the model list in the caller's format (Anthropic when `anthropic-version`/`x-api-key` is sent, Gemini when `x-goog-api-key`, `?key=` or `v1beta` is, else OpenAI) |
//!
//! The bytes follow the recorded fixtures in `shared/fixtures` (field order, separators,
//! CRLF for Gemini, `{"type": "ping"}` for Anthropic). Every request is recorded, and
//! [`TestServer::closed_early`] counts streams the client abandoned (cancel or drop).
//!
//! Scripts are plain serde data, so the `lango-fake-provider` binary can read them from a
//! JSON file: `{"turns":[{"type":"text","chunks":["Hel","lo"]}]}` (or just the array).

mod endpoints;
mod errors;
mod relay;
mod script;
mod stream;
#[cfg(test)]
mod tests;
mod wire;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub use endpoints::{embed_text, EMBEDDING_DIMS};
pub use relay::relay;
pub use script::{Script, Turn};
pub use wire::Wire;

use endpoints::{embeddings_body, models_body, models_wire};
use errors::{js, status_reply};
use stream::Ctx;

use crate::server::{RecordedRequest, Reply, TestServer};

struct State {
    turns: Vec<Turn>,
    next: AtomicUsize,
    models: Vec<String>,
    require_key: Option<String>,
    context_window: Option<u64>,
}

/// A running fake provider. Derefs to its [`TestServer`] (`base_url()`, `port`,
/// `requests()`, `closed_early()`).
pub struct FakeProvider {
    server: TestServer,
    state: Arc<State>,
}

impl std::ops::Deref for FakeProvider {
    type Target = TestServer;
    fn deref(&self) -> &TestServer {
        &self.server
    }
}

impl FakeProvider {
    /// Starts on an ephemeral port of 127.0.0.1.
    pub async fn start(script: Script) -> Self {
        let mut turns = Vec::new();
        for turn in script.turns {
            match turn {
                Turn::ToolCall {
                    id,
                    name,
                    arguments_json,
                    then_text: Some(text),
                } => {
                    turns.push(Turn::ToolCall {
                        id,
                        name,
                        arguments_json,
                        then_text: None,
                    });
                    turns.push(Turn::text([text]));
                }
                other => turns.push(other),
            }
        }
        if turns.is_empty() {
            turns.push(Turn::text(["Hello", " from the", " fake provider."]));
        }
        let models = if script.models.is_empty() {
            vec!["fake-model".to_string()]
        } else {
            script.models
        };
        let state = Arc::new(State {
            turns,
            next: AtomicUsize::new(0),
            models,
            require_key: script.require_key,
            context_window: script.context_window,
        });
        let handler_state = state.clone();
        let server =
            TestServer::start(move |req: &RecordedRequest, _| handler_state.reply(req)).await;
        Self { server, state }
    }

    /// The server itself (also reachable through `Deref`).
    pub fn server(&self) -> &TestServer {
        &self.server
    }

    /// Only the generate requests (not model lists), in arrival order.
    pub fn generate_requests(&self) -> Vec<RecordedRequest> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| Wire::of_generate_path(&r.path).is_some())
            .collect()
    }

    /// How many generate requests consumed a turn so far.
    pub fn turns_served(&self) -> usize {
        self.state.next.load(Ordering::SeqCst)
    }
}

/// The fake's token count of a generate request: its body's bytes / 4 (about what real
/// tokenizers make of English text with JSON around it).
pub fn prompt_tokens(req: &RecordedRequest) -> u64 {
    req.body.len() as u64 / 4
}

// ---------------------------------------------------------------------------------------
// Request handling

impl State {
    fn reply(&self, req: &RecordedRequest) -> Reply {
        let path = req.path.split('?').next().unwrap_or(&req.path);
        if let Some(wire) = Wire::of_generate_path(path).filter(|_| req.method == "POST") {
            if !self.authorized(req) {
                return status_reply(
                    wire,
                    401,
                    "Incorrect API key provided (fake provider)",
                    None,
                );
            }
            if let Some(refusal) = self.over_context(req) {
                return refusal;
            }
            let n = self.next.fetch_add(1, Ordering::SeqCst);
            let turn = self.turns[n.min(self.turns.len() - 1)].clone();
            let ctx = Ctx::new(wire, req, n);
            return ctx.reply(turn);
        }
        if req.method == "POST"
            && (path.ends_with("/embeddings")
                || path.ends_with("/api/embed")
                || path.ends_with(":batchEmbedContents"))
        {
            return Reply::full(200, "application/json", embeddings_body(path, &req.json()));
        }
        if req.method == "GET" && (path.ends_with("/models") || path.ends_with("/api/tags")) {
            let wire = models_wire(req, path);
            if !self.authorized(req) {
                return status_reply(
                    wire,
                    401,
                    "Incorrect API key provided (fake provider)",
                    None,
                );
            }
            return Reply::full(200, "application/json", models_body(wire, &self.models));
        }
        Reply::full(
            404,
            "application/json",
            format!(
                r#"{{"error":{{"message":{},"type":"invalid_request_error","param":null,"code":"unknown_url"}}}}"#,
                js(&format!(
                    "fake provider: no route for {} {}",
                    req.method, req.path
                ))
            ),
        )
    }

    /// llama.cpp's refusal of a prompt over its context (the recorded fixture's shape).
    fn over_context(&self, req: &RecordedRequest) -> Option<Reply> {
        let window = self.context_window?;
        let prompt = prompt_tokens(req);
        (prompt > window).then(|| {
            let body = format!(
                r#"{{"error":{{"code":400,"message":"request ({prompt} tokens) exceeds the available context size ({window} tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":{prompt},"n_ctx":{window}}}}}"#
            );
            Reply::full(400, "application/json", body)
        })
    }

    fn authorized(&self, req: &RecordedRequest) -> bool {
        let Some(key) = &self.require_key else {
            return true;
        };
        let bearer = req
            .header("authorization")
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let query_key = req
            .path
            .split_once('?')
            .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix("key=")));
        [
            bearer,
            req.header("x-api-key"),
            req.header("x-goog-api-key"),
            query_key,
        ]
        .into_iter()
        .flatten()
        .any(|k| k == key)
    }
}
