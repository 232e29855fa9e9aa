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
        Box::pin(futures_util::stream::iter(vec![Ok(LlmResponse {
            content: Some(Content::model_text("ok")),
            turn_complete: true,
            ..LlmResponse::default()
        })]))
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

// ---------------------------------------------------------------------------------------
// Hybrid retrieval
// ---------------------------------------------------------------------------------------

const QUERY: &str = "And the vacation?";
const TRIP: &str = "I booked a trip to Lisbon for May";

#[tokio::test]
async fn hybrid_retrieval_finds_a_related_item_that_bm25_alone_misses() {
    // "vacation" and "trip" share a bucket of the fake embedding: related for the vectors,
    // while the full-text search has no word of the query in the message.
    let (q, t) = (embed_text(QUERY), embed_text(TRIP));
    assert!(cosine(&q, &t) >= MIN_SIMILARITY, "{}", cosine(&q, &t));
    let trip_words = TRIP.to_lowercase();
    assert!(keywords(QUERY)
        .iter()
        .all(|w| !trip_words.contains(w.as_str())));

    let (_d, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    let trip = say(&store, "s", "user", TRIP).await;
    let noted = say(&store, "s", "assistant", "Noted: Lisbon in May.").await;
    let tiles = say(&store, "s", "user", "Kitchen tiles arrive on Tuesday").await;
    observe(&store, "s", "User is renovating a kitchen").await;
    let fake = FakeProvider::start(Script::default()).await;
    embed_messages(&store, &fake, "s", &[&trip, &noted, &tiles]).await;

    // BM25 alone: nothing about the trip.
    let inner = Arc::new(Recorder::default());
    let bm25 = adapter(&inner, &store);
    let text = send(&bm25, &inner, "s", QUERY).await;
    assert!(!text.contains("Lisbon"), "{text}");
    let counter = default_counter();
    assert_eq!(
        knowledge_section(&store, "s", QUERY, counter.as_ref(), 0)
            .await
            .unwrap(),
        None
    );

    // Hybrid: the trip comes first, found by its vector.
    let before = embed_requests(&fake.requests()).len();
    let hybrid = adapter(&inner, &store)
        .with_embedder(QueryEmbedder::new(embedder(&fake), Duration::from_secs(10)));
    let text = send(&hybrid, &inner, "s", QUERY).await;
    assert!(
        text.contains(&format!(
            "## Semantic Context (RAG)\n\n### [message] {}\n{TRIP}\n",
            trip.id
        )),
        "{text}"
    );
    assert!(!text.contains("Kitchen tiles"), "unrelated: {text}");
    let queries = embed_requests(&fake.requests());
    assert_eq!(
        queries.len(),
        before + 1,
        "one embedding call per model call"
    );
    assert_eq!(queries.last().unwrap()["input"], json!([QUERY]));
    assert_eq!(queries.last().unwrap()["model"], "fake-embed");
    assert_eq!(hybrid.embedding_fallbacks(), 0);
    assert_eq!(hybrid.retrieval_failures(), 0);

    // The retrieval function itself, with the query's vector.
    let (section, _) = knowledge_section_hybrid(&store, "s", QUERY, Some(&q), counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("a related item");
    assert!(section.contains(TRIP), "{section}");
    // Still filtered by the session key: another session's vectors are never candidates.
    store.create_session("other", "other").await.unwrap();
    let theirs = say(
        &store,
        "other",
        "user",
        "Our trip to Porto was a great vacation",
    )
    .await;
    embed_messages(&store, &fake, "other", &[&theirs]).await;
    let text = send(&hybrid, &inner, "s", QUERY).await;
    assert!(!text.contains("Porto"), "{text}");
}

/// A session whose message about zebras BM25 finds, with vectors, so the embedder is asked.
async fn zebra_session(store: &Store) {
    store.create_session("z", "z").await.unwrap();
    let m = say(
        store,
        "z",
        "user",
        "The zebra migration crosses the Mara river in July",
    )
    .await;
    observe(store, "z", "User plans a safari").await;
    store
        .save_vectors(&[VectorRow {
            session_key: "z".into(),
            collection: "message".into(),
            item_id: m.id.to_string(),
            model: "fake-embed".into(),
            vector: embed_text(&m.content),
        }])
        .await
        .unwrap();
}

#[tokio::test]
async fn a_slow_embedder_falls_back_to_bm25_within_the_timeout() {
    let (_d, store) = temp_store().await;
    zebra_session(&store).await;
    let inner = Arc::new(Recorder::default());
    let expected = send(&adapter(&inner, &store), &inner, "z", "zebra migration?").await;
    assert!(expected.contains("Mara river"), "BM25 finds it: {expected}");

    // Answers correctly, but only after 5 s.
    let slow = TestServer::start(|req: &RecordedRequest, _| {
        let text = req.json()["input"][0]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let body = json!({"data": [{"index": 0, "embedding": embed_text(&text)}]});
        let mut reply = Reply::full(200, "application/json", body.to_string());
        reply
            .actions
            .insert(0, Action::Sleep(Duration::from_secs(5)));
        reply
    })
    .await;
    let hybrid = adapter(&inner, &store).with_embedder(QueryEmbedder::new(
        client(&format!("{}/v1", slow.base_url())),
        Duration::from_millis(150),
    ));
    let started = Instant::now();
    let text = send(&hybrid, &inner, "z", "zebra migration?").await;
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(3),
        "the reply was held for {waited:?}"
    );
    assert_eq!(text, expected, "exactly what BM25 alone sends");
    assert_eq!(hybrid.embedding_fallbacks(), 1);
    assert_eq!(
        hybrid.retrieval_failures(),
        0,
        "a fallback is not a failed retrieval"
    );
    assert_eq!(slow.requests().len(), 1);
}

#[tokio::test]
async fn a_failing_embedder_falls_back_to_bm25() {
    let (_d, store) = temp_store().await;
    zebra_session(&store).await;
    let inner = Arc::new(Recorder::default());
    let expected = send(&adapter(&inner, &store), &inner, "z", "zebra migration?").await;

    let broken =
        TestServer::start(|_: &RecordedRequest, _| Reply::full(500, "application/json", "{}"))
            .await;
    let hybrid = adapter(&inner, &store).with_embedder(QueryEmbedder::new(
        client(&format!("{}/v1", broken.base_url())),
        Duration::from_secs(10),
    ));
    assert_eq!(
        send(&hybrid, &inner, "z", "zebra migration?").await,
        expected
    );
    assert_eq!(
        send(&hybrid, &inner, "z", "zebra migration?").await,
        expected
    );
    assert_eq!(hybrid.embedding_fallbacks(), 2, "each failure is counted");
    assert_eq!(hybrid.retrieval_failures(), 0);
    assert_eq!(broken.requests().len(), 2);
}

#[tokio::test]
async fn a_session_without_vectors_never_calls_the_embedder() {
    let (_d, store) = temp_store().await;
    store.create_session("z", "z").await.unwrap();
    say(
        &store,
        "z",
        "user",
        "The zebra migration crosses the Mara river in July",
    )
    .await;
    observe(&store, "z", "User plans a safari").await;
    let server =
        TestServer::start(|_: &RecordedRequest, _| Reply::full(500, "application/json", "{}"))
            .await;
    let inner = Arc::new(Recorder::default());
    let hybrid = adapter(&inner, &store).with_embedder(QueryEmbedder::new(
        client(&format!("{}/v1", server.base_url())),
        Duration::from_secs(10),
    ));
    let text = send(&hybrid, &inner, "z", "zebra migration?").await;
    assert!(text.contains("Mara river"), "{text}");
    assert!(
        server.requests().is_empty(),
        "nothing to compare a query vector with"
    );
    assert_eq!(hybrid.embedding_fallbacks(), 0);
}

// ---------------------------------------------------------------------------------------
// The embedding feed
// ---------------------------------------------------------------------------------------

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

#[tokio::test]
async fn messages_and_observations_are_embedded_after_a_turn() {
    let (_home, fake, engine) = two_embedded_turns().await;
    let store = &engine.store;

    // Every user and assistant message, archived or not, has its vector: the fake's
    // embedding of its text, by the configured model.
    let vectors = store
        .session_vectors("trip", Some("message"))
        .await
        .unwrap();
    let mut texts = Vec::new();
    for (_, id, vector) in &vectors {
        let text: String = store
            .page_messages("trip", None, 100)
            .await
            .unwrap()
            .into_iter()
            .find(|m| m.id.to_string() == *id)
            .map(|m| m.content)
            .expect("the vector's message");
        assert_eq!(vector, &embed_text(&text), "{text}");
        texts.push(text);
    }
    texts.sort();
    assert_eq!(
        texts,
        [
            "I booked a trip to Lisbon for May",
            "Kitchen tiles arrive on Tuesday",
            "Lisbon in May, noted.",
            "The tiles are on the list.",
        ]
    );
    // The observation the second cycle made was embedded as it was saved.
    let observations = store.list_observations("trip").await.unwrap();
    assert_eq!(observations.len(), 1);
    let observed = store
        .session_vectors("trip", Some("observation"))
        .await
        .unwrap();
    assert_eq!(observed.len(), 1);
    assert_eq!(observed[0].1, observations[0].id);
    assert_eq!(observed[0].2, embed_text(&observations[0].content));
    let calls = embed_requests(&fake.requests());
    assert!(!calls.is_empty());
    assert!(calls.iter().all(|c| c["model"] == "fake-embed"));
    let memory = engine.memory.as_ref().unwrap();
    assert_eq!(memory.embeddings.as_ref().unwrap().dropped_count(), 0);
}

#[tokio::test]
async fn an_edited_observation_is_embedded_again() {
    let (_home, fake, engine) = two_embedded_turns().await;
    let store = engine.store.clone();
    let observation = store.list_observations("trip").await.unwrap().remove(0);
    store
        .update_observation(&observation.id, "User flies to Lisbon on May 3", 8)
        .await
        .unwrap();
    assert!(
        store
            .session_vectors("trip", Some("observation"))
            .await
            .unwrap()
            .is_empty(),
        "the old vector no longer describes the text"
    );
    // The next cycle queues it again (a fresh cycle: the engine's memory was stopped).
    let buffer = Arc::new(EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        256,
        32,
        LONG,
    ));
    let cycle = quiet_cycle(&store).with_embeddings(Arc::clone(&buffer));
    cycle.run("trip").await;
    cycle.shutdown().await;
    let vectors = store
        .session_vectors("trip", Some("observation"))
        .await
        .unwrap();
    assert_eq!(vectors.len(), 1);
    assert_eq!(vectors[0].2, embed_text("User flies to Lisbon on May 3"));
}

/// A model that must not be called.
#[derive(Debug)]
struct NoModel;

impl Llm for NoModel {
    fn name(&self) -> &str {
        "none"
    }

    fn generate_content(&self, _: &RequestContext, _: LlmRequest, _: bool) -> LlmStream {
        panic!("no model call expected");
    }
}

/// A cycle whose thresholds are never reached (no model call), so it only feeds embeddings.
fn quiet_cycle(store: &Store) -> MemoryCycle {
    let llm: Arc<dyn Llm> = Arc::new(NoModel);
    let config = MemoryConfig {
        message_token_threshold: 1_000_000,
        observation_token_threshold: 1_000_000,
        ..MemoryConfig::default()
    };
    MemoryCycle::new(
        Observer::new(llm.clone(), default_counter(), config.clone()),
        Reflector::new(llm, default_counter(), config),
        store.clone(),
    )
}

/// Polls until `key` has `n` message vectors.
async fn wait_for_message_vectors(store: &Store, key: &str, n: usize) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while store
            .session_vectors(key, Some("message"))
            .await
            .unwrap()
            .len()
            < n
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("vectors were not stored in time");
}

#[tokio::test]
async fn a_full_embedding_queue_drops_and_counts_and_the_rest_is_queued_next_cycle() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    for i in 0..5 {
        say(&store, "s", "user", &format!("message number {i}")).await;
    }
    let fake = FakeProvider::start(Script::default()).await;
    // Two queued items at most; a batch of two is embedded at once.
    let buffer = Arc::new(EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        2,
        2,
        LONG,
    ));
    let cycle = quiet_cycle(&store).with_embeddings(Arc::clone(&buffer));

    cycle.run("s").await;
    assert_eq!(
        buffer.dropped_count(),
        1,
        "the third message found the queue full"
    );
    wait_for_message_vectors(&store, "s", 2).await;
    cycle.run("s").await;
    assert_eq!(buffer.dropped_count(), 2);
    wait_for_message_vectors(&store, "s", 4).await;
    cycle.run("s").await;
    assert_eq!(buffer.dropped_count(), 2, "one left: it fits");
    // A lone item waits for the timer or the shutdown, which flushes it.
    cycle.shutdown().await;
    wait_for_message_vectors(&store, "s", 5).await;
    // Each message was embedded exactly once.
    let inputs: Vec<String> = embed_requests(&fake.requests())
        .iter()
        .flat_map(|c| c["input"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    assert_eq!(inputs.len(), 5, "{inputs:?}");
    assert_eq!(buffer.dropped_count(), 2);
}

// ---------------------------------------------------------------------------------------
// Deletion
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn deleting_a_session_deletes_its_vectors_and_triples() {
    let (_home, _fake, engine) = two_embedded_turns().await;
    let store = &engine.store;
    assert!(!store
        .session_vectors("trip", None)
        .await
        .unwrap()
        .is_empty());
    assert!(
        !store.list_triples("trip").await.unwrap().is_empty(),
        "the observation's triples"
    );
    store.create_session("kept", "kept").await.unwrap();
    let kept = say(store, "kept", "user", "kept message").await;
    store
        .save_vectors(&[VectorRow {
            session_key: "kept".into(),
            collection: "message".into(),
            item_id: kept.id.to_string(),
            model: "fake-embed".into(),
            vector: embed_text("kept message"),
        }])
        .await
        .unwrap();

    engine.runner.sessions().delete("trip").await.unwrap();
    assert!(store
        .session_vectors("trip", None)
        .await
        .unwrap()
        .is_empty());
    assert!(store.list_triples("trip").await.unwrap().is_empty());
    assert_eq!(store.session_vectors("kept", None).await.unwrap().len(), 1);
    // No orphans under any session (the cascade removed the rows, not just the join).
    let counts = store.memory_state("kept").await.unwrap().unwrap();
    assert_eq!(counts.vectors, 1);
}

#[tokio::test]
async fn rewinding_messages_deletes_their_vectors() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    let first = say(&store, "s", "user", "first question").await;
    let reply = say(&store, "s", "assistant", "first answer").await;
    let fake = FakeProvider::start(Script::default()).await;
    embed_messages(&store, &fake, "s", &[&first, &reply]).await;
    store.delete_messages_from("s", reply.seq).await.unwrap();
    let left = store.session_vectors("s", None).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].1, first.id.to_string());
}

// ---------------------------------------------------------------------------------------
// The cached memory section
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn edits_invalidate_the_cached_memory_section() {
    let (dir, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    let o = observe(&store, "s", "user prefers Go").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store);
    let first = send(&adapter, &inner, "s", "hi").await;
    assert!(first.contains("- user prefers Go"), "{first}");
    assert_eq!(
        send(&adapter, &inner, "s", "hi").await,
        first,
        "unchanged memory, same text"
    );

    // Edited through another handle on the same file (another process: the CLI next to the
    // desktop app): the next request carries the edit.
    let other = Store::open(&dir.path().join("lango.db")).await.unwrap();
    other
        .update_observation(&o.id, "user prefers Rust", 4)
        .await
        .unwrap();
    let edited = send(&adapter, &inner, "s", "hi").await;
    assert!(
        edited.contains("- user prefers Rust") && !edited.contains("Go"),
        "{edited}"
    );
    // A new note, then deleting everything.
    observe(&other, "s", "user works on a desktop app").await;
    let more = send(&adapter, &inner, "s", "hi").await;
    assert!(more.contains("- user works on a desktop app"), "{more}");
    other.delete_observations_by_session("s").await.unwrap();
    let gone = send(&adapter, &inner, "s", "hi").await;
    assert!(!gone.contains("Conversation Memory"), "{gone}");
    other.close().await;

    // A session deleted and created again under the same key starts empty.
    observe(&store, "s", "a note of the old session").await;
    assert!(send(&adapter, &inner, "s", "hi")
        .await
        .contains("old session"));
    store.delete_session("s").await.unwrap();
    store.create_session("s", "s").await.unwrap();
    let fresh = send(&adapter, &inner, "s", "hi").await;
    assert!(!fresh.contains("Conversation Memory"), "{fresh}");
}

#[tokio::test]
async fn an_edit_between_turns_is_in_the_next_chat_request() {
    // Through the engine: the memory is read when the turn starts (prefetch) and cached.
    let fake = FakeProvider::start(Script::new([Turn::text(["ok"])])).await;
    let home = tempfile::tempdir().unwrap();
    let engine = engine(
        &home,
        settings(&format!("{}/v1", fake.base_url()), json!({"enabled": true})),
    )
    .await;
    engine.store.create_session("e", "e").await.unwrap();
    let o = observe(&engine.store, "e", "user prefers Go").await;
    turn(&engine, "e", "hello").await;
    turn(&engine, "e", "hello again").await;
    engine
        .store
        .update_observation(&o.id, "user prefers Rust", 4)
        .await
        .unwrap();
    turn(&engine, "e", "and now?").await;
    engine.shutdown().await;
    let systems = chat_system_texts(&fake);
    assert_eq!(systems.len(), 3);
    assert!(systems[0].contains("- user prefers Go") && systems[1].contains("- user prefers Go"));
    assert!(
        systems[2].contains("- user prefers Rust") && !systems[2].contains("Go"),
        "{}",
        systems[2]
    );
}

// ---------------------------------------------------------------------------------------
// The setting
// ---------------------------------------------------------------------------------------

#[test]
fn the_embedding_model_setting_is_validated() {
    let check = |providers: Value, memory: Value| {
        validate_value(&json!({
            "providers": providers,
            "observationalMemory": memory,
        }))
    };
    let openai = json!({"o": {"type": "openai"}});
    // Default: off.
    let (s, warnings) = check(openai.clone(), json!({"enabled": true})).unwrap();
    assert_eq!(s.observational_memory.embedding_model, "");
    assert!(warnings.is_empty(), "{warnings:?}");
    let (s, warnings) = check(
        openai.clone(),
        json!({"enabled": true, "embeddingModel": " text-embedding-3-small "}),
    )
    .unwrap();
    assert_eq!(
        s.observational_memory.embedding_model,
        "text-embedding-3-small"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        s.to_value()["observationalMemory"]["embeddingModel"],
        "text-embedding-3-small"
    );

    let problems = check(openai.clone(), json!({"embeddingModel": "text embedding"})).unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");
    assert!(
        problems[0].message.contains("without spaces"),
        "{problems:?}"
    );
    let problems = check(openai.clone(), json!({"embeddingModel": 3})).unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");

    // Anthropic has no embeddings API: an error naming the way out.
    let problems = check(
        json!({"c": {"type": "anthropic"}}),
        json!({"enabled": true, "embeddingModel": "voyage-3"}),
    )
    .unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");
    assert!(
        problems[0].message.contains("no")
            && problems[0].message.contains("observationalMemory.provider"),
        "{problems:?}"
    );
    // …unless the memory uses another provider that can embed.
    let (_, warnings) = check(
        json!({"c": {"type": "anthropic"}, "o": {"type": "openai"}}),
        json!({"enabled": true, "provider": "o", "embeddingModel": "text-embedding-3-small"}),
    )
    .unwrap_or_else(|p| panic!("{p:?}"));
    assert!(
        warnings.iter().all(|w| !w.contains("embeddingModel")),
        "{warnings:?}"
    );
    // Warnings: memory off; a Gemini model that is not an embedding model.
    let (_, warnings) = check(openai, json!({"embeddingModel": "text-embedding-3-small"})).unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("no effect")),
        "{warnings:?}"
    );
    let (_, warnings) = check(
        json!({"g": {"type": "gemini"}}),
        json!({"enabled": true, "embeddingModel": "gemini-2.0-flash"}),
    )
    .unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("Gemini")),
        "{warnings:?}"
    );
}
