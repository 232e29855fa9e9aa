//! What every provider test shares: the four wire formats, a generation folded into an
//! [`Outcome`] (checking the invariants every stream keeps), and the fixture files each
//! format's module must cover.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use lango_core::provider::anthropic::Anthropic;
use lango_core::provider::assembler::ToolCallAssembler;
use lango_core::provider::gemini::Gemini;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::ollama::Ollama;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    GenerateParams, ImageInput, Message, Provider, ProviderConfig, ProviderError, StopReason,
    StreamEvent, ToolCallRequest, Usage,
};
use lango_core::secrets::ApiKey;
use lango_testkit::RecordedRequest;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

pub const WIRES: [Wire; 4] = [Wire::OpenAi, Wire::Anthropic, Wire::Gemini, Wire::Ollama];

impl Wire {
    /// A client for a server at `root` (`http://127.0.0.1:N`), with the URL layout the real
    /// services use, the key `sk-test-key` and the model `fake-model`.
    pub fn client(self, root: &str, http: HttpSettings) -> Box<dyn Provider> {
        self.build(
            ProviderConfig::new("p", self.base(root))
                .with_key(ApiKey::new("sk-test-key"))
                .with_default_model("fake-model")
                .with_http(http),
        )
    }

    /// The base URL the real service has under `root`.
    pub fn base(self, root: &str) -> String {
        match self {
            Wire::OpenAi => format!("{root}/v1"),
            Wire::Gemini => format!("{root}/v1beta"),
            Wire::Anthropic | Wire::Ollama => root.to_string(),
        }
    }

    /// The client, or the error its constructor gave.
    pub fn try_build(self, config: ProviderConfig) -> Result<Box<dyn Provider>, ProviderError> {
        Ok(match self {
            Wire::OpenAi => Box::new(OpenAiCompatible::new(config)?),
            Wire::Anthropic => Box::new(Anthropic::new(config)?),
            Wire::Gemini => Box::new(Gemini::new(config)?),
            Wire::Ollama => Box::new(Ollama::new(config)?),
        })
    }

    pub fn build(self, config: ProviderConfig) -> Box<dyn Provider> {
        self.try_build(config).expect("client")
    }

    /// The fixture folders of this format and the files its module replays.
    pub fn fixtures(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Wire::OpenAi => (&["openai", "openai-compatible"], super::openai::COVERED),
            Wire::Anthropic => (&["anthropic"], super::anthropic::COVERED),
            Wire::Gemini => (&["gemini"], super::gemini::COVERED),
            Wire::Ollama => (&["ollama"], super::ollama::COVERED),
        }
    }
}

/// No retries, a 10 s idle timeout.
pub fn no_retries() -> HttpSettings {
    HttpSettings {
        max_retries: 0,
        idle_timeout: Duration::from_secs(10),
        ..HttpSettings::default()
    }
}

/// One quick retry, so the 5xx fixtures do not wait for real backoff.
pub fn fast_http() -> HttpSettings {
    HttpSettings {
        max_retries: 1,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        idle_timeout: Duration::from_secs(10),
        ..HttpSettings::default()
    }
}

/// A real 1×1 red PNG, base64: the image every format's image request test sends.
pub const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// "What is in this image?" with [`RED_PIXEL_PNG`] attached, after a system message.
pub fn user_shows_an_image() -> GenerateParams {
    GenerateParams {
        messages: vec![
            Message::system("S"),
            Message::user_with_images(
                "What is in this image?",
                vec![ImageInput {
                    mime_type: "image/png".into(),
                    data: RED_PIXEL_PNG.into(),
                }],
            ),
        ],
        ..GenerateParams::default()
    }
}

pub fn user_says(text: &str) -> GenerateParams {
    GenerateParams {
        messages: vec![Message::user(text)],
        ..GenerateParams::default()
    }
}

/// What one generation amounted to.
#[derive(Debug)]
pub struct Outcome {
    pub text: String,
    pub thought: String,
    /// The calls as the assembler finished them.
    pub calls: Vec<ToolCallRequest>,
    /// The last `Usage` event.
    pub usage_event: Option<Usage>,
    pub terminal: StreamEvent,
    /// What the server received, where the test recorded it.
    pub requests: Vec<RecordedRequest>,
}

impl Outcome {
    /// (id, name, parsed arguments) per assembled call.
    pub fn calls(&self) -> Vec<(String, String, Value)> {
        self.calls
            .iter()
            .map(|c| {
                (
                    c.id.clone(),
                    c.name.clone(),
                    serde_json::from_str(&c.arguments).expect("assembled arguments are JSON"),
                )
            })
            .collect()
    }

    pub fn done_usage(&self) -> Option<Usage> {
        match &self.terminal {
            StreamEvent::Done { usage, .. } => *usage,
            other => panic!("expected Done, got {other:?}"),
        }
    }

    pub fn error(&self) -> &ProviderError {
        match &self.terminal {
            StreamEvent::Error(e) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    /// Complete: the provider said the reply is finished.
    pub fn assert_done(&self, usage: Option<Usage>) {
        let stop = StopReason::Finished;
        assert_eq!(
            self.terminal,
            StreamEvent::Done { usage, stop },
            "terminal event"
        );
    }

    /// Complete, but cut at the output limit.
    pub fn assert_truncated(&self, usage: Option<Usage>) {
        let stop = StopReason::OutputLimit;
        assert_eq!(
            self.terminal,
            StreamEvent::Done { usage, stop },
            "terminal event"
        );
    }

    pub fn assert_interrupted(&self, fragment: &str) {
        match &self.terminal {
            StreamEvent::Error(ProviderError::Interrupted { message }) => assert!(
                message.contains(fragment),
                "message {message:?} lacks {fragment:?}"
            ),
            other => panic!("expected Interrupted containing {fragment:?}, got {other:?}"),
        }
    }

    pub fn assert_calls(&self, expected: &[(&str, &str, Value)]) {
        let expected: Vec<(String, String, Value)> = expected
            .iter()
            .map(|(id, name, args)| (id.to_string(), name.to_string(), args.clone()))
            .collect();
        assert_eq!(self.calls(), expected, "assembled tool calls");
    }

    pub fn assert_no_text_thought_or_calls(&self) {
        assert_eq!(self.text, "");
        assert_eq!(self.thought, "");
        assert!(self.calls.is_empty(), "{:?}", self.calls);
    }
}

/// Folds events into an outcome, checking the invariants every stream must keep: exactly one
/// terminal event and it comes last, no empty text or thought deltas, and `Done` carries the
/// last `Usage` event.
pub fn fold(events: Vec<StreamEvent>, requests: Vec<RecordedRequest>) -> Outcome {
    let terminals = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error(_)))
        .count();
    assert_eq!(terminals, 1, "exactly one terminal event: {events:?}");
    let terminal = events.last().cloned().expect("at least one event");
    assert!(
        matches!(terminal, StreamEvent::Done { .. } | StreamEvent::Error(_)),
        "terminal last: {events:?}"
    );
    let (mut text, mut thought, mut assembler, mut usage_event) =
        (String::new(), String::new(), ToolCallAssembler::new(), None);
    for event in &events {
        match event {
            StreamEvent::TextDelta(t) => {
                assert!(!t.is_empty(), "empty text delta");
                text.push_str(t);
            }
            StreamEvent::Thought(t) => {
                assert!(!t.is_empty(), "empty thought delta");
                thought.push_str(t);
            }
            StreamEvent::ToolCall(c) => assembler.push(c),
            StreamEvent::Usage(u) => usage_event = Some(*u),
            StreamEvent::Done { usage, .. } => {
                assert_eq!(*usage, usage_event, "Done carries the last usage")
            }
            StreamEvent::Error(_) => {}
        }
    }
    Outcome {
        text,
        thought,
        calls: assembler.finish(),
        usage_event,
        terminal,
        requests,
    }
}

/// Every event of one generation (a stream silent for 20 s fails the test).
pub async fn events(provider: &dyn Provider, params: GenerateParams) -> Vec<StreamEvent> {
    let mut stream = provider.generate(params, CancellationToken::new());
    let mut events = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .expect("the stream stalled")
    {
        events.push(event);
    }
    events
}

/// One generation, folded (no requests recorded).
pub async fn collect(provider: &dyn Provider, params: GenerateParams) -> Outcome {
    fold(events(provider, params).await, Vec::new())
}

/// Every fixture file (not `*.request.json` or a README) under `folder` of the fixtures, as
/// paths relative to the fixtures root.
pub fn fixture_files(folder: &str) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(root, &path, out);
                continue;
            }
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.ends_with(".request.json") || name.starts_with("README") {
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(relative);
        }
    }
    let root = lango_testkit::fixtures_dir();
    let mut out = BTreeSet::new();
    walk(&root, &root.join(folder), &mut out);
    out
}

/// The image message of `format`'s own documentation (`tests/fixtures/vision/`), filled in
/// with [`user_shows_an_image`]'s text and image; keys in lowerCamelCase when `camel`.
pub fn documented_image_message(format: &str, camel: bool) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/vision")
        .join(format!("{format}.message.json"));
    let text = std::fs::read_to_string(&path).expect("the documented message");
    let filled = text
        .replace("<TEXT>", "What is in this image?")
        .replace("<MIME>", "image/png")
        .replace("<BASE64>", RED_PIXEL_PNG);
    let value: serde_json::Value = serde_json::from_str(&filled).expect("JSON");
    if camel {
        camel_keys(value)
    } else {
        value
    }
}

/// Every object key `snake_case` → `lowerCamelCase` (Google's JSON mapping takes either).
fn camel_keys(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let mut out = String::new();
                    let mut upper = false;
                    for c in k.chars() {
                        if c == '_' {
                            upper = true;
                        } else if upper {
                            out.extend(c.to_uppercase());
                            upper = false;
                        } else {
                            out.push(c);
                        }
                    }
                    (out, camel_keys(v))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_keys).collect()),
        other => other,
    }
}
