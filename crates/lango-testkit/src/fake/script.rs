//! What the fake answers: a [`Script`] of [`Turn`]s, one consumed per generate request.
//! Plain serde data, so the `lango-fake-provider` binary reads scripts from JSON files.

use serde::{Deserialize, Serialize};

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
    /// When set, a generate request whose prompt is over this many tokens (counted as a
    /// request body's bytes / 4) is refused as llama.cpp's server refuses it — HTTP 400
    /// `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx` — without consuming a
    /// turn: a model served with a smaller context than its name suggests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
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

    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
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
