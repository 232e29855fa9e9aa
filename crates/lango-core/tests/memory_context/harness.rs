//! The shared harness: `Recorder` (a fake inner `Llm` that records every request and
//! answers "ok"), `CostTable` (a token counter with set costs), temp stores and seeders.

#![allow(unused_imports)] // re-exported for the test modules

pub use std::collections::HashMap;
pub use std::sync::{Arc, Mutex};

pub use futures_util::StreamExt;
pub use lango_core::agent::{
    roles, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, LlmStream, Part, RequestContext,
};
pub use lango_core::memory::context::{
    assemble, memory_section, AssemblyOptions, ContextAwareModelAdapter,
    DEFAULT_MEMORY_TOKEN_BUDGET,
};
pub use lango_core::memory::knowledge::knowledge_section;
pub use lango_core::memory::runtime_context::{channel_type, RuntimeContext};
pub use lango_core::memory::MemoryConfig;
pub use lango_core::provider::ToolSpec;
pub use lango_core::store::{NewMessage, Observation, Reflection, Store};
pub use lango_core::tokens::{default_counter, TokenCounter};
pub use serde_json::json;
pub use tempfile::TempDir;

#[derive(Debug, Default)]
pub struct Recorder {
    pub calls: Mutex<Vec<(Option<String>, LlmRequest)>>,
}

impl Recorder {
    pub fn last(&self) -> LlmRequest {
        self.calls
            .lock()
            .unwrap()
            .last()
            .expect("the inner model was called")
            .1
            .clone()
    }

    pub fn count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }
}

impl Llm for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn generate_content(&self, ctx: &RequestContext, request: LlmRequest, _: bool) -> LlmStream {
        self.calls
            .lock()
            .unwrap()
            .push((ctx.session_key.clone(), request));
        Box::pin(futures_util::stream::iter(vec![Ok(
            LlmResponse::complete_text("ok"),
        )]))
    }
}

/// Counts a text as its entry in the table, else 1 ("cost N" per item).
#[derive(Debug, Default)]
pub struct CostTable(pub HashMap<String, usize>);

impl CostTable {
    pub fn new(entries: &[(&str, usize)]) -> Arc<Self> {
        Arc::new(Self(
            entries.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect(),
        ))
    }
}

impl TokenCounter for CostTable {
    fn count(&self, text: &str) -> usize {
        self.0.get(text).copied().unwrap_or(1)
    }
}

pub async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

pub async fn session(store: &Store, key: &str) {
    store.create_session(key, key).await.expect("session");
}

pub async fn observe(store: &Store, key: &str, content: &str) -> Observation {
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: key.to_owned(),
            content: content.to_owned(),
            token_count: 0,
            seq_start: 0,
            seq_end: 0,
            created_at: 0,
        })
        .await
        .expect("save observation")
}

pub async fn reflect(store: &Store, key: &str, content: &str) -> Reflection {
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: key.to_owned(),
            content: content.to_owned(),
            token_count: 0,
            generation: 1,
            seq_start: 0,
            seq_end: 0,
            source_token_count: 0,
            created_at: 0,
        })
        .await
        .expect("save reflection")
}

pub fn request(base: &str, user: &str) -> LlmRequest {
    LlmRequest {
        model: "m".into(),
        contents: vec![
            Content::user_text("earlier question"),
            Content::model_text("earlier answer"),
            Content::user_text(user),
        ],
        config: GenerateConfig {
            system_instruction: (!base.is_empty())
                .then(|| Content::new(roles::SYSTEM, vec![Part::text(base)])),
            temperature: Some(0.2),
            max_output_tokens: Some(512),
            tools: vec![ToolSpec {
                name: "exec".into(),
                description: "run".into(),
                parameters: json!({"type": "object"}),
            }],
        },
    }
}

pub fn adapter(
    inner: &Arc<Recorder>,
    store: &Store,
    counter: Arc<dyn TokenCounter>,
    config: MemoryConfig,
) -> ContextAwareModelAdapter {
    ContextAwareModelAdapter::new(
        Arc::clone(inner) as Arc<dyn Llm>,
        store.clone(),
        counter,
        config,
    )
}

/// Sends through the adapter, drains the stream, returns what the inner model got.
pub async fn send(
    adapter: &ContextAwareModelAdapter,
    inner: &Recorder,
    key: Option<&str>,
    req: LlmRequest,
) -> LlmRequest {
    let ctx = match key {
        Some(k) => RequestContext::for_session(k, "root"),
        None => RequestContext::default(),
    };
    let before = inner.count();
    let responses: Vec<_> = adapter.generate_content(&ctx, req, false).collect().await;
    assert_eq!(responses.len(), 1);
    assert!(responses[0].is_ok());
    assert_eq!(inner.count(), before + 1, "exactly one inner call");
    inner.last()
}

pub fn system_text(req: &LlmRequest) -> String {
    req.config
        .system_instruction
        .as_ref()
        .map(|c| {
            c.parts
                .iter()
                .filter_map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

pub fn pos(haystack: &str, needle: &str) -> usize {
    haystack
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing in {haystack:?}"))
}

pub fn section_lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

pub fn limits(reflections: usize, observations: usize) -> MemoryConfig {
    MemoryConfig {
        max_reflections_in_context: reflections,
        max_observations_in_context: observations,
        ..MemoryConfig::default()
    }
}

pub async fn seed_many(store: &Store, key: &str, reflections: usize, observations: usize) {
    session(store, key).await;
    for i in 0..reflections {
        reflect(store, key, &format!("reflection {i:02}")).await;
    }
    for i in 0..observations {
        observe(store, key, &format!("observation {i:02}")).await;
    }
}

pub fn memory_items(text: &str) -> (Vec<String>, Vec<String>) {
    let lines = section_lines(text);
    let refl = lines
        .iter()
        .filter(|l| l.starts_with("reflection "))
        .cloned()
        .collect();
    let obs = lines
        .iter()
        .filter_map(|l| l.strip_prefix("- observation "))
        .map(|n| format!("observation {n}"))
        .collect();
    (refl, obs)
}

pub fn names(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("{prefix} {i:02}")).collect()
}
