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

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::net::{TcpListener, TcpStream};

use crate::server::{Action, RecordedRequest, Reply, TestServer};

/// One scripted answer to one generate request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Turn {
    /// A normal text answer, one content delta per chunk, `delay_ms` between chunks.
    Text {
        chunks: Vec<String>,
        #[serde(default)]
        delay_ms: u64,
    },
    /// One tool call (arguments streamed in fragments where the format streams them). With
    /// `then_text`, the *next* request is answered with that text (a `Text` turn is inserted
    /// after this one), so `[tool_call{…, then_text}]` is a complete agent round trip.
    ToolCall {
        #[serde(default = "default_call_id")]
        id: String,
        name: String,
        /// The arguments as JSON text (an object). Sent verbatim in the string-typed formats
        /// (OpenAI, Anthropic); parsed for Gemini and Ollama (an invalid text becomes `{}`).
        #[serde(default = "empty_object")]
        arguments_json: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        then_text: Option<String>,
    },
    /// A non-success HTTP status. `body` is sent verbatim when it is JSON (starts with `{`),
    /// else it is the message, wrapped in the format's own error envelope. `retry_after`
    /// (seconds, may be fractional) becomes a `Retry-After` header.
    Status {
        code: u16,
        #[serde(default)]
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<f64>,
    },
    /// HTTP 200, the stream's start and `chunks` of text, then the format's mid-stream error
    /// (OpenAI `data: {"error":…}`, Anthropic `event: error`, Ollama `{"error":…}`, Gemini
    /// `data: {"error": …}`) and the end of the body.
    ErrorEvent {
        message: String,
        #[serde(default)]
        chunks: Vec<String>,
    },
    /// HTTP 200, the stream's start and these text chunks, then a TCP reset.
    ResetAfter { chunks: Vec<String> },
    /// HTTP 200, the stream's start and these text chunks, then silence for `stall_ms`
    /// (the connection stays open), then the connection closes.
    Stall { chunks: Vec<String>, stall_ms: u64 },
    /// HTTP 200, the stream's start and these text chunks, then a clean close without the
    /// format's end marker (no finish reason, `[DONE]`, `message_stop` or `done:true`).
    Cut { chunks: Vec<String> },
    /// HTTP 200, these text chunks, then the format's output-limit stop (OpenAI
    /// `finish_reason:"length"`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`, Ollama
    /// `done_reason:"length"`), complete with its end marker.
    LengthStop { chunks: Vec<String> },
    /// HTTP 200, the stream's start, then `chunk` as a text delta again and again until the
    /// client closes the connection.
    Endless { chunk: String },
}

fn default_call_id() -> String {
    "call_fake_0001".into()
}

fn empty_object() -> String {
    "{}".into()
}

impl Turn {
    /// A text answer without delays.
    pub fn text<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self::Text {
            chunks: chunks.into_iter().map(Into::into).collect(),
            delay_ms: 0,
        }
    }

    /// A text answer with `delay_ms` between chunks.
    pub fn slow_text<S: Into<String>>(chunks: impl IntoIterator<Item = S>, delay_ms: u64) -> Self {
        Self::Text {
            chunks: chunks.into_iter().map(Into::into).collect(),
            delay_ms,
        }
    }

    pub fn tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments_json: impl Into<String>,
    ) -> Self {
        Self::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments_json: arguments_json.into(),
            then_text: None,
        }
    }

    pub fn status(code: u16, body: impl Into<String>) -> Self {
        Self::Status {
            code,
            body: body.into(),
            retry_after: None,
        }
    }

    pub fn error_event(message: impl Into<String>) -> Self {
        Self::ErrorEvent {
            message: message.into(),
            chunks: Vec::new(),
        }
    }

    pub fn reset_after<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self::ResetAfter {
            chunks: chunks.into_iter().map(Into::into).collect(),
        }
    }

    pub fn cut<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self::Cut {
            chunks: chunks.into_iter().map(Into::into).collect(),
        }
    }

    pub fn length_stop<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self::LengthStop {
            chunks: chunks.into_iter().map(Into::into).collect(),
        }
    }

    pub fn endless(chunk: impl Into<String>) -> Self {
        Self::Endless {
            chunk: chunk.into(),
        }
    }

    pub fn stall<S: Into<String>>(chunks: impl IntoIterator<Item = S>, stall_ms: u64) -> Self {
        Self::Stall {
            chunks: chunks.into_iter().map(Into::into).collect(),
            stall_ms,
        }
    }
}

/// What the fake answers. Empty `turns` = every request gets a short text answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<Turn>,
    /// Ids for the model lists (default: one model, `fake-model`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// When set, requests without this key (Bearer, `x-api-key`, `x-goog-api-key` or `?key=`)
    /// get a 401 in the caller's format, without consuming a turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_key: Option<String>,
}

impl Script {
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        Self {
            turns: turns.into_iter().collect(),
            ..Self::default()
        }
    }

    pub fn with_models<S: Into<String>>(mut self, models: impl IntoIterator<Item = S>) -> Self {
        self.models = models.into_iter().map(Into::into).collect();
        self
    }

    pub fn with_required_key(mut self, key: impl Into<String>) -> Self {
        self.require_key = Some(key.into());
        self
    }

    /// Parses a script file: a [`Script`] object, or just the array of turns.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Script(Script),
            Turns(Vec<Turn>),
        }
        // Try the object first for its better error message.
        match serde_json::from_str::<Script>(text) {
            Ok(s) => Ok(s),
            Err(e) => match serde_json::from_str::<Either>(text) {
                Ok(Either::Script(s)) => Ok(s),
                Ok(Either::Turns(t)) => Ok(Script::new(t)),
                Err(_) => Err(e),
            },
        }
    }
}

/// The wire format of a request (from its path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

impl Wire {
    /// The format of a generate request's path, None for anything else.
    pub fn of_generate_path(path: &str) -> Option<Self> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/chat/completions") {
            Some(Self::OpenAi)
        } else if path.ends_with("/api/chat") {
            Some(Self::Ollama)
        } else if path.ends_with("/messages") {
            Some(Self::Anthropic)
        } else if path.contains("/models/") && path.ends_with(":streamGenerateContent") {
            Some(Self::Gemini)
        } else {
            None
        }
    }
}

struct State {
    turns: Vec<Turn>,
    next: AtomicUsize,
    models: Vec<String>,
    require_key: Option<String>,
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

/// Accepts connections on `listener` and relays each, byte for byte, to the server on
/// 127.0.0.1:`upstream_port` (how the binary serves a fixed port: [`TestServer`] binds an
/// ephemeral one). A reset from the upstream is passed on as a reset; a client that goes
/// away is passed on as a close, so `closed_early()` still counts it. Runs until the
/// listener fails.
pub async fn relay(listener: TcpListener, upstream_port: u16) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            break;
        };
        tokio::spawn(relay_one(
            client,
            SocketAddr::from(([127, 0, 0, 1], upstream_port)),
        ));
    }
}

async fn relay_one(mut client: TcpStream, upstream: SocketAddr) {
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    if tokio::io::copy_bidirectional(&mut client, &mut server)
        .await
        .is_err()
    {
        // Let what was already relayed reach the client, then reset it like the upstream did.
        tokio::time::sleep(Duration::from_millis(20)).await;
        #[allow(deprecated)]
        let _ = client.set_linger(Some(Duration::ZERO));
    }
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

fn models_wire(req: &RecordedRequest, path: &str) -> Wire {
    if path.ends_with("/api/tags") {
        Wire::Ollama
    } else if req.header("anthropic-version").is_some() || req.header("x-api-key").is_some() {
        Wire::Anthropic
    } else if req.header("x-goog-api-key").is_some()
        || req.path.contains("key=")
        || path.contains("v1beta")
    {
        Wire::Gemini
    } else {
        Wire::OpenAi
    }
}

fn models_body(wire: Wire, models: &[String]) -> String {
    let items: Vec<String> = models
        .iter()
        .map(|m| match wire {
            Wire::OpenAi => format!(r#"{{"id":{},"object":"model","created":1686935002,"owned_by":"lango-fake"}}"#, js(m)),
            Wire::Anthropic => format!(
                r#"{{"type":"model","id":{},"display_name":{},"created_at":"2025-02-19T00:00:00Z"}}"#,
                js(m),
                js(&display_name(m))
            ),
            Wire::Gemini => format!(
                r#"{{"name": {},"version": "001","displayName": {},"description": "A fake model.","inputTokenLimit": 1048576,"outputTokenLimit": 8192,"supportedGenerationMethods": ["generateContent","countTokens","streamGenerateContent"]}}"#,
                js(&format!("models/{m}")),
                js(&display_name(m))
            ),
            Wire::Ollama => format!(
                r#"{{"name":{0},"model":{0},"modified_at":"2025-05-04T17:37:44.706015396-07:00","size":2019393189,"digest":"a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72","details":{{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"}}}}"#,
                js(m)
            ),
        })
        .collect();
    let list = items.join(",");
    match wire {
        Wire::OpenAi => format!(r#"{{"object":"list","data":[{list}]}}"#),
        Wire::Anthropic => format!(
            r#"{{"data":[{list}],"has_more":false,"first_id":{},"last_id":{}}}"#,
            js(models.first().map(String::as_str).unwrap_or_default()),
            js(models.last().map(String::as_str).unwrap_or_default())
        ),
        Wire::Gemini => format!("{{\n  \"models\": [{list}]\n}}\n"),
        Wire::Ollama => format!(r#"{{"models":[{list}]}}"#),
    }
}

/// The embedding size of [`embed_text`].
pub const EMBEDDING_DIMS: usize = 64;

/// The fake's deterministic embedding: words hashed into [`EMBEDDING_DIMS`] buckets, then
/// L2-normalised, so texts sharing words are similar (cosine) and others are not.
pub fn embed_text(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; EMBEDDING_DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        // FNV-1a, stable across runs and platforms.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.to_lowercase().bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        v[(h % EMBEDDING_DIMS as u64) as usize] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else {
        v[0] = 1.0;
    }
    v
}

/// OpenAI `/embeddings` (`input`: string or array), Ollama `/api/embed` (same), Gemini
/// `:batchEmbedContents` (`requests[].content.parts[].text`).
fn embeddings_body(path: &str, body: &serde_json::Value) -> String {
    let vector = |t: &str| serde_json::to_string(&embed_text(t)).unwrap_or_else(|_| "[]".into());
    if path.ends_with(":batchEmbedContents") {
        let texts: Vec<String> = body["requests"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let parts = r["content"]["parts"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("")
                    })
                    .collect()
            })
            .unwrap_or_default();
        let rows: Vec<String> = texts
            .iter()
            .map(|t| format!("{{\n      \"values\": {}\n    }}", vector(t)))
            .collect();
        return format!(
            "{{\n  \"embeddings\": [\n    {}\n  ]\n}}\n",
            rows.join(",\n    ")
        );
    }
    let texts: Vec<String> = match &body["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    let model = body["model"].as_str().unwrap_or("fake-embedding");
    if path.ends_with("/api/embed") {
        let rows: Vec<String> = texts.iter().map(|t| vector(t)).collect();
        return format!(
            r#"{{"model":{},"embeddings":[{}],"total_duration":14143917,"load_duration":1019500,"prompt_eval_count":{}}}"#,
            js(model),
            rows.join(","),
            texts.len()
        );
    }
    let rows: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                r#"{{"object":"embedding","index":{i},"embedding":{}}}"#,
                vector(t)
            )
        })
        .collect();
    let tokens: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
    format!(
        r#"{{"object":"list","data":[{}],"model":{},"usage":{{"prompt_tokens":{tokens},"total_tokens":{tokens}}}}}"#,
        rows.join(","),
        js(model)
    )
}

fn display_name(model: &str) -> String {
    model
        .split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A JSON string literal.
fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Formats JSON the way Gemini does: `"key": value`, no space after commas.
fn gemini_json(value: &serde_json::Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
        ) -> std::io::Result<()> {
            writer.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    if value.serialize(&mut ser).is_err() {
        return "{}".into();
    }
    String::from_utf8(out).unwrap_or_default()
}

fn status_reply(wire: Wire, code: u16, body: &str, retry_after: Option<f64>) -> Reply {
    let body = if body.trim_start().starts_with('{') {
        body.to_string()
    } else {
        error_body(wire, code, body)
    };
    let retry = retry_after.map(|s| {
        if s.fract() == 0.0 && s >= 0.0 {
            format!("{}", s as u64)
        } else {
            format!("{s}")
        }
    });
    let headers: Vec<(&str, &str)> = retry
        .as_deref()
        .map(|v| ("Retry-After", v))
        .into_iter()
        .collect();
    Reply::head(code, "application/json", &headers).then(Action::Write(body.into_bytes()))
}

/// The provider's own error envelope around `message`.
fn error_body(wire: Wire, code: u16, message: &str) -> String {
    let message = if message.is_empty() {
        format!("fake provider: HTTP {code}")
    } else {
        message.to_string()
    };
    match wire {
        Wire::OpenAi => {
            let (kind, err_code) = match code {
                401 => ("invalid_request_error", "\"invalid_api_key\""),
                404 => ("invalid_request_error", "\"model_not_found\""),
                429 => ("requests", "\"rate_limit_exceeded\""),
                400..=499 => ("invalid_request_error", "null"),
                _ => ("server_error", "null"),
            };
            format!(
                r#"{{"error":{{"message":{},"type":"{kind}","param":null,"code":{err_code}}}}}"#,
                js(&message)
            )
        }
        Wire::Anthropic => {
            let kind = match code {
                400 => "invalid_request_error",
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                _ => "api_error",
            };
            format!(
                r#"{{"type":"error","error":{{"type":"{kind}","message":{}}}}}"#,
                js(&message)
            )
        }
        Wire::Gemini => {
            let status = match code {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                429 => "RESOURCE_EXHAUSTED",
                503 => "UNAVAILABLE",
                504 => "DEADLINE_EXCEEDED",
                _ => "INTERNAL",
            };
            format!("{{\n  \"error\": {{\n    \"code\": {code},\n    \"message\": {},\n    \"status\": \"{status}\"\n  }}\n}}\n", js(&message))
        }
        Wire::Ollama => format!(r#"{{"error":{}}}"#, js(&message)),
    }
}

// ---------------------------------------------------------------------------------------
// Stream bodies

const CREATED: u64 = 1_727_346_168;
const OLLAMA_TIME: &str = "2025-07-07T20:22:19.184789Z";

/// Everything one reply needs to know about its request.
struct Ctx {
    wire: Wire,
    model: String,
    /// The request's number (ids).
    n: usize,
    prompt_tokens: u64,
}

impl Ctx {
    fn new(wire: Wire, req: &RecordedRequest, n: usize) -> Self {
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

    fn reply(&self, turn: Turn) -> Reply {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A raw HTTP/1.1 exchange: (status, headers+body as text).
    async fn raw(
        port: u16,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out).await;
        let text = String::from_utf8_lossy(&out).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        (status, head.to_string(), body.to_string())
    }

    fn sse_data(body: &str) -> Vec<String> {
        body.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(str::to_string)
            .collect()
    }

    const CHAT: &str =
        r#"{"model":"m1","messages":[{"role":"user","content":"hi"}],"stream":true}"#;

    #[tokio::test]
    async fn openai_text_stream_has_role_chunk_deltas_usage_and_done() {
        let fake = FakeProvider::start(Script::new([Turn::text(["Hel", "lo \"x\""])])).await;
        let (status, head, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
        assert_eq!(status, 200);
        assert!(head.contains("Content-Type: text/event-stream"));
        let data = sse_data(&body);
        assert_eq!(data.last().unwrap(), "[DONE]");
        let json: Vec<serde_json::Value> = data[..data.len() - 1]
            .iter()
            .map(|d| serde_json::from_str(d).unwrap())
            .collect();
        assert_eq!(json[0]["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(json[1]["choices"][0]["delta"]["content"], "Hel");
        assert_eq!(json[2]["choices"][0]["delta"]["content"], "lo \"x\"");
        assert_eq!(json[3]["choices"][0]["finish_reason"], "stop");
        assert_eq!(json[4]["choices"].as_array().unwrap().len(), 0);
        assert_eq!(json[4]["usage"]["completion_tokens"], 2);
        assert_eq!(json[1]["model"], "m1");
        assert!(body.ends_with("data: [DONE]\n\n"));
    }

    #[tokio::test]
    async fn each_format_is_chosen_by_path() {
        let fake = FakeProvider::start(Script::new([Turn::text(["A", "B"])])).await;
        let (_, head, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
        assert!(head.contains("application/x-ndjson"));
        let lines: Vec<serde_json::Value> = body
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["message"]["content"], "A");
        assert_eq!(lines[2]["done"], true);
        assert_eq!(lines[2]["done_reason"], "stop");

        let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
        let events: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            events,
            [
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        for d in sse_data(&body) {
            let v: serde_json::Value = serde_json::from_str(&d).unwrap();
            assert!(v["type"].is_string());
        }

        let (_, _, body) = raw(
            fake.port,
            "POST",
            "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
            &[],
            "{}",
        )
        .await;
        assert!(
            body.contains("\r\n\r\n") && !body.replace("\r\n", "").contains('\n'),
            "CRLF only: {body:?}"
        );
        let chunks: Vec<serde_json::Value> = sse_data(&body)
            .iter()
            .map(|d| serde_json::from_str(d.trim_end()).unwrap())
            .collect();
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            chunks[0]["candidates"][0]["content"]["parts"][0]["text"],
            "A"
        );
        assert_eq!(chunks[1]["candidates"][0]["finishReason"], "STOP");
        assert_eq!(chunks[1]["modelVersion"], "gemini-x");
        assert!(body
            .starts_with("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"A\"}]"));
        assert_eq!(fake.turns_served(), 3);
        assert_eq!(fake.generate_requests().len(), 3);
    }

    #[tokio::test]
    async fn turns_are_consumed_in_order_and_the_last_repeats() {
        let script = Script::new([
            Turn::Status {
                code: 429,
                body: "slow down".into(),
                retry_after: Some(0.5),
            },
            Turn::tool_call("call_1", "read_file", r#"{"path":"/tmp/a.txt"}"#),
            Turn::text(["done"]),
        ]);
        let fake = FakeProvider::start(script).await;
        let (status, head, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
        assert_eq!(status, 429);
        assert!(head.contains("Retry-After: 0.5"), "{head}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["error"]["message"], "slow down");

        let (_, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
        let args: String = sse_data(&body)
            .iter()
            .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
            .filter_map(|v| {
                v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(args, r#"{"path":"/tmp/a.txt"}"#);
        assert!(body.contains(r#""finish_reason":"tool_calls""#));
        for _ in 0..2 {
            let (_, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
            assert!(body.contains(r#""content":"done""#));
        }
    }

    #[tokio::test]
    async fn tool_calls_in_every_format() {
        let turn = Turn::ToolCall {
            id: "call_7".into(),
            name: "get_weather".into(),
            arguments_json: r#"{"city":"Paris"}"#.into(),
            then_text: Some("It is sunny.".into()),
        };
        let fake = FakeProvider::start(Script::new([turn])).await;
        // Anthropic: tool_use block and input_json_delta fragments.
        let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
        let mut json = String::new();
        for d in sse_data(&body) {
            let v: serde_json::Value = serde_json::from_str(&d).unwrap();
            if let Some(p) = v["delta"]["partial_json"].as_str() {
                json.push_str(p);
            }
        }
        assert_eq!(json, r#"{"city":"Paris"}"#);
        assert!(body.contains(r#""stop_reason":"tool_use""#));
        // then_text: the next request gets the text.
        let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
        assert!(body.contains("It is sunny."));

        let fake =
            FakeProvider::start(Script::new([Turn::tool_call("c", "f", r#"{"a":1}"#)])).await;
        let (_, _, body) = raw(
            fake.port,
            "POST",
            "/v1beta/models/g:streamGenerateContent?alt=sse",
            &[],
            "{}",
        )
        .await;
        assert!(
            body.contains(r#"{"functionCall": {"args": {"a": 1},"name": "f"}}"#),
            "{body}"
        );
        let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
        let first: serde_json::Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
        assert_eq!(
            first["message"]["tool_calls"][0]["function"]["arguments"]["a"],
            1
        );
    }

    #[tokio::test]
    async fn error_events_per_format() {
        let fake = FakeProvider::start(Script::new([Turn::error_event("model exploded")])).await;
        let (s, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
        assert_eq!(s, 200);
        assert!(body.ends_with("data: {\"error\":{\"message\":\"model exploded\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"));
        assert!(!body.contains("[DONE]"));
        let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
        assert!(body.contains("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"api_error\", \"message\": \"model exploded\"}}\n\n"));
        assert!(!body.contains("message_stop"));
        let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
        assert_eq!(body, "{\"error\":\"model exploded\"}\n");
    }

    #[tokio::test]
    async fn model_lists_in_each_format() {
        let fake = FakeProvider::start(Script::default().with_models(["m-a", "m-b"])).await;
        let (_, _, body) = raw(fake.port, "GET", "/v1/models", &[], "").await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["data"][1]["id"], "m-b");
        assert_eq!(v["object"], "list");
        let (_, _, body) = raw(
            fake.port,
            "GET",
            "/v1/models",
            &[("anthropic-version", "2023-06-01")],
            "",
        )
        .await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["data"][0]["type"], "model");
        assert_eq!(v["has_more"], false);
        let (_, _, body) = raw(fake.port, "GET", "/v1beta/models", &[], "").await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["models"][0]["name"], "models/m-a");
        let (_, _, body) = raw(fake.port, "GET", "/api/tags", &[], "").await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["models"][1]["name"], "m-b");
        assert_eq!(fake.turns_served(), 0);
    }

    #[tokio::test]
    async fn required_key_rejects_other_keys_without_consuming_a_turn() {
        let fake =
            FakeProvider::start(Script::new([Turn::text(["ok"])]).with_required_key("sk-good"))
                .await;
        let (s, _, body) = raw(
            fake.port,
            "POST",
            "/v1/messages",
            &[("x-api-key", "sk-bad")],
            CHAT,
        )
        .await;
        assert_eq!(s, 401);
        assert!(body.contains("authentication_error"));
        let (s, _, _) = raw(
            fake.port,
            "POST",
            "/v1/chat/completions",
            &[("Authorization", "Bearer sk-good")],
            CHAT,
        )
        .await;
        assert_eq!(s, 200);
        let (s, _, _) = raw(
            fake.port,
            "POST",
            "/v1beta/models/x:streamGenerateContent?alt=sse&key=sk-good",
            &[],
            "{}",
        )
        .await;
        assert_eq!(s, 200);
        assert_eq!(fake.turns_served(), 2);
    }

    #[tokio::test]
    async fn embeddings_are_deterministic_and_word_based() {
        let fake = FakeProvider::start(Script::default()).await;
        let (_, _, body) = raw(
            fake.port,
            "POST",
            "/v1/embeddings",
            &[],
            r#"{"model":"e","input":["red apple","apple red","blue sky"]}"#,
        )
        .await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let rows: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                v["data"][i]["embedding"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(rows[0].len(), EMBEDDING_DIMS);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        assert!((dot(&rows[0], &rows[1]) - 1.0).abs() < 1e-6);
        assert!(dot(&rows[0], &rows[2]) < 0.9);
        let (_, _, body) = raw(
            fake.port,
            "POST",
            "/api/embed",
            &[],
            r#"{"model":"e","input":"red apple"}"#,
        )
        .await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["embeddings"].as_array().unwrap().len(), 1);
        let (_, _, body) = raw(
            fake.port,
            "POST",
            "/v1beta/models/e:batchEmbedContents",
            &[],
            r#"{"requests":[{"content":{"parts":[{"text":"red apple"}]}}]}"#,
        )
        .await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["embeddings"][0]["values"].as_array().unwrap().len(),
            EMBEDDING_DIMS
        );
        assert_eq!(fake.turns_served(), 0);
    }

    #[test]
    fn scripts_parse_from_json_objects_and_bare_arrays() {
        let s = Script::from_json(
            r#"{"turns":[{"type":"text","chunks":["a"],"delay_ms":5},
                {"type":"tool_call","name":"t","arguments_json":"{\"x\":1}","then_text":"ok"},
                {"type":"status","code":429,"retry_after":1},
                {"type":"error_event","message":"boom"},
                {"type":"reset_after","chunks":["a"]},
                {"type":"stall","chunks":[],"stall_ms":100}],
               "models":["m"],"require_key":"k"}"#,
        )
        .unwrap();
        assert_eq!(s.turns.len(), 6);
        assert_eq!(
            s.turns[2],
            Turn::Status {
                code: 429,
                body: String::new(),
                retry_after: Some(1.0)
            }
        );
        let s = Script::from_json(r#"[{"type":"text","chunks":["x"]}]"#).unwrap();
        assert_eq!(s.turns, vec![Turn::text(["x"])]);
        assert!(Script::from_json(r#"[{"type":"text","chunkz":["x"]}]"#).is_err());
        let round = serde_json::to_string(&Script::new([Turn::stall(["a"], 5)])).unwrap();
        assert_eq!(
            Script::from_json(&round).unwrap().turns,
            vec![Turn::stall(["a"], 5)]
        );
    }

    #[tokio::test]
    async fn relay_passes_bytes_resets_and_early_closes() {
        let fake = FakeProvider::start(Script::new([
            Turn::text(["x"]),
            Turn::reset_after(["a"]),
            Turn::slow_text(["a", "b"], 2_000),
        ]))
        .await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(relay(listener, fake.port));
        let (s, _, body) = raw(port, "POST", "/v1/chat/completions", &[], CHAT).await;
        assert_eq!(s, 200);
        assert!(body.ends_with("data: [DONE]\n\n"));

        // A reset upstream is a reset downstream, after the bytes sent before it.
        let mut sock = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let req = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n{CHAT}",
            CHAT.len()
        );
        sock.write_all(req.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let err = loop {
            match sock.read(&mut buf).await {
                Ok(0) => break None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => break Some(e.kind()),
            }
        };
        assert_eq!(err, Some(std::io::ErrorKind::ConnectionReset));
        assert!(String::from_utf8_lossy(&got).contains(r#""content":"a""#));

        // A client that leaves mid-stream is seen by the server.
        let mut sock = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        sock.write_all(req.as_bytes()).await.unwrap();
        let _ = sock.read(&mut buf).await.unwrap();
        drop(sock);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while fake.closed_early() == 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(fake.closed_early(), 1);
    }
}
