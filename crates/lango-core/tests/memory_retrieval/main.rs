//! Hybrid knowledge retrieval, the embedding feed and the cached memory section (issue 5:
//! "Knowledge retrieval", REFERENCE §3.8–§3.9).
//!
//! Real SQLite files and real HTTP: the fake provider answers `/embeddings` with
//! `lango_testkit::fake::embed_text` (words hashed into 64 buckets, so texts sharing a word
//! bucket are similar). Flushes are awaited through `shutdown()`/`stop_memory()` or by polling
//! the store with a deadline, never by sleeping.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::agent::{
    roles, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, LlmStream, Part, RequestContext,
};
use lango_core::config::{validate_value, Settings};
use lango_core::engine::Engine;
use lango_core::memory::context::{ContextAwareModelAdapter, QueryEmbedder};
use lango_core::memory::cycle::MemoryCycle;
use lango_core::memory::embedding::{cosine, EmbedItem, EmbeddingBuffer};
use lango_core::memory::knowledge::{
    keywords, knowledge_section, knowledge_section_hybrid, MIN_SIMILARITY,
};
use lango_core::memory::observer::Observer;
use lango_core::memory::reflector::Reflector;
use lango_core::memory::MemoryConfig;
use lango_core::paths::AppPaths;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{Provider, ProviderConfig};
use lango_core::secrets::ApiKey;
use lango_core::store::{NewMessage, Observation, Store, StoredMessage, VectorRow};
use lango_core::tokens::default_counter;
use lango_testkit::fake::embed_text;
use lango_testkit::{Action, FakeProvider, RecordedRequest, Reply, Script, TestServer, Turn};
use serde_json::{json, Value};

mod cache;
mod deletion;
mod feed;
mod hybrid;
mod section;
mod setting;
use tempfile::TempDir;

const LONG: Duration = Duration::from_secs(3600);

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

/// A message of an earlier turn: appended, then indexed for search as the memory cycle does
/// after each turn (retrieval itself does not index, to keep writes off the send path).
async fn say(store: &Store, key: &str, role: &str, text: &str) -> StoredMessage {
    let message = store
        .append_message(key, NewMessage::new(role, text))
        .await
        .expect("append");
    store.index_pending_messages().await.expect("index");
    message
}

async fn observe(store: &Store, key: &str, content: &str) -> Observation {
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: key.to_owned(),
            content: content.to_owned(),
            token_count: 3,
            seq_start: 0,
            seq_end: 0,
            created_at: 0,
        })
        .await
        .expect("save observation")
}

/// An OpenAI-compatible client of `base` (`…/v1`) embedding with "fake-embed", no retries.
fn client(base: &str) -> Arc<dyn Provider> {
    let config = ProviderConfig::new("openai", base.to_owned())
        .with_key(ApiKey::new("sk-test"))
        .with_default_model("fake-embed")
        .with_http(HttpSettings {
            max_retries: 0,
            ..HttpSettings::default()
        });
    Arc::new(OpenAiCompatible::new(config).expect("openai client"))
}

fn embedder(fake: &FakeProvider) -> Arc<dyn Provider> {
    client(&format!("{}/v1", fake.base_url()))
}

fn embed_requests(requests: &[RecordedRequest]) -> Vec<Value> {
    requests
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .map(RecordedRequest::json)
        .collect()
}

/// Embeds these messages of `key` through an [`EmbeddingBuffer`] and waits for the vectors.
async fn embed_messages(
    store: &Store,
    fake: &FakeProvider,
    key: &str,
    messages: &[&StoredMessage],
) {
    let buffer = EmbeddingBuffer::start_with(
        embedder(fake),
        "fake-embed".into(),
        store.clone(),
        256,
        32,
        LONG,
    );
    for m in messages {
        assert!(buffer.enqueue(EmbedItem {
            session_key: key.into(),
            collection: "message".into(),
            item_id: m.id.to_string(),
            text: m.content.clone(),
        }));
    }
    buffer.shutdown().await;
    assert_eq!(
        store
            .session_vectors(key, Some("message"))
            .await
            .unwrap()
            .len(),
        messages.len()
    );
}

/// A fake `Llm` that records every request and answers "ok".
#[derive(Debug, Default)]
struct Recorder {
    calls: Mutex<Vec<LlmRequest>>,
}

impl Llm for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn generate_content(&self, _: &RequestContext, request: LlmRequest, _: bool) -> LlmStream {
        self.calls.lock().unwrap().push(request);
        Box::pin(futures_util::stream::iter(vec![Ok(
            LlmResponse::complete_text("ok"),
        )]))
    }
}

fn request(user: &str) -> LlmRequest {
    LlmRequest {
        model: "m".into(),
        contents: vec![
            Content::user_text("earlier question"),
            Content::model_text("earlier answer"),
            Content::user_text(user),
        ],
        config: GenerateConfig {
            system_instruction: Some(Content::new(roles::SYSTEM, vec![Part::text("Base.")])),
            ..GenerateConfig::default()
        },
    }
}

fn adapter(inner: &Arc<Recorder>, store: &Store) -> ContextAwareModelAdapter {
    ContextAwareModelAdapter::new(
        Arc::clone(inner) as Arc<dyn Llm>,
        store.clone(),
        default_counter(),
        MemoryConfig::default(),
    )
    .with_knowledge(true)
}

/// Sends through the adapter and returns the system text the inner model got.
async fn send(
    adapter: &ContextAwareModelAdapter,
    inner: &Recorder,
    key: &str,
    user: &str,
) -> String {
    let ctx = RequestContext::for_session(key, "root");
    let responses: Vec<_> = adapter
        .generate_content(&ctx, request(user), false)
        .collect()
        .await;
    assert!(responses.iter().all(Result::is_ok));
    let sent = inner.calls.lock().unwrap().last().cloned().expect("a call");
    sent.config
        .system_instruction
        .map(|c| c.text())
        .unwrap_or_default()
}

/// Settings with one OpenAI-compatible provider `emb` (its key from the environment).
fn settings(base_url: &str, memory: Value) -> Settings {
    std::env::set_var("LANGO_EMB_API_KEY", "sk-test");
    let value = json!({
        "providers": {"emb": {"type": "openai-compatible", "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "emb", "systemPrompt": "You are a test assistant."},
        "observationalMemory": memory,
    });
    validate_value(&value).expect("valid settings").0
}

async fn engine(home: &TempDir, settings: Settings) -> Engine {
    let paths = AppPaths::under(home.path());
    let store = Store::open_app(&paths).await.expect("store");
    Engine::from_parts(&paths, settings, store).expect("engine")
}

/// One turn through the runner, as the CLI plays it, then the after-turn trigger.
async fn turn(engine: &Engine, key: &str, text: &str) {
    let ctx = RequestContext::for_session(key, engine.runner.root().name.clone());
    let mut stream = engine.runner.run(ctx, key, text, true);
    let mut complete = false;
    while let Some(event) = stream.next().await {
        complete |= event.expect("turn").turn_complete;
    }
    assert!(complete, "the turn completed");
    drop(stream);
    engine.after_turn(key);
}

/// Waits until the memory buffer has no cycle running or queued.
async fn memory_idle(memory: &lango_core::engine::Memory) {
    for _ in 0..2_000 {
        if memory.buffer.in_progress().is_none() && memory.buffer.queued() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the memory cycle did not finish within 10 s");
}

/// The system text of each chat request the fake provider received.
fn chat_system_texts(fake: &FakeProvider) -> Vec<String> {
    fake.generate_requests()
        .iter()
        .map(RecordedRequest::json)
        .filter_map(|body| {
            let messages = body["messages"].as_array()?.clone();
            let system = messages
                .iter()
                .find(|m| m["role"] == "system")?
                .get("content")?
                .as_str()?
                .to_owned();
            system
                .starts_with("You are a test assistant.")
                .then_some(system)
        })
        .collect()
}

/// Two turns with embeddings on and a low observation threshold: the second turn's cycle
/// observes the first exchange. Memory is stopped (everything flushed) on return.
async fn two_embedded_turns() -> (TempDir, FakeProvider, Engine) {
    let fake = FakeProvider::start(Script::new([
        Turn::text(["Lisbon in May, noted."]),
        Turn::text(["The tiles are on the list."]),
        Turn::text(["User booked a trip to Lisbon for May."]),
    ]))
    .await;
    let home = tempfile::tempdir().unwrap();
    let settings = settings(
        &format!("{}/v1", fake.base_url()),
        json!({"enabled": true, "embeddingModel": "fake-embed", "messageTokenThreshold": 5}),
    );
    let engine = engine(&home, settings).await;
    let memory = engine.memory.as_ref().expect("memory on");
    assert!(memory.embeddings.is_some() && memory.query_embedder.is_some());
    turn(&engine, "trip", "I booked a trip to Lisbon for May").await;
    // The first cycle must finish before the next turn: run alongside it, it sees a second
    // exchange, observes the first one, and its request races the turn's for the script.
    memory_idle(memory).await;
    turn(&engine, "trip", "Kitchen tiles arrive on Tuesday").await;
    engine.stop_memory().await;
    (home, fake, engine)
}
