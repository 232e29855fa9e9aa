//! Embedding and graph buffers, vectors and triples (REFERENCE §3.9, spec 002 "Buffer drops
//! logged at warn level with counters"; acceptance 59 and the batch parts of 60).
//!
//! Real SQLite and the fake provider's embeddings over real HTTP. Flushes are awaited through
//! `shutdown()` or by polling the store with a deadline, never by sleeping.

use std::sync::Arc;
use std::time::Duration;

use lango_core::memory::embedding::{cosine, EmbedItem, EmbeddingBuffer};
use lango_core::memory::graph::{
    contains_triple, meta_reflection_triples, observation_triples, reflection_triples, GraphBuffer,
    Triple,
};
use lango_core::provider::http::HttpSettings;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{Provider, ProviderConfig};
use lango_core::secrets::ApiKey;
use lango_core::store::{Observation, Reflection, Store, VectorRow};
use lango_testkit::fake::embed_text;
use lango_testkit::{FakeProvider, RecordedRequest, Reply, Script, TestServer};
use tempfile::TempDir;

const LONG: Duration = Duration::from_secs(3600);

async fn store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

async fn session(store: &Store, key: &str) {
    store.create_session(key, key).await.expect("session");
}

fn embedder(fake: &FakeProvider) -> Arc<dyn Provider> {
    let config = ProviderConfig::new("openai", format!("{}/v1", fake.base_url()))
        .with_key(ApiKey::new("sk-test"))
        .with_default_model("fake-embed");
    Arc::new(OpenAiCompatible::new(config).expect("openai client"))
}

fn item(key: &str, collection: &str, id: &str) -> EmbedItem {
    EmbedItem {
        session_key: key.into(),
        collection: collection.into(),
        item_id: id.into(),
        text: format!("text number {id} about rust"),
    }
}

fn embed_calls(fake: &FakeProvider) -> Vec<usize> {
    fake.requests()
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .map(|r| r.json()["input"].as_array().map_or(1, Vec::len))
        .collect()
}

async fn observation(store: &Store, key: &str, id: &str) -> Observation {
    store
        .save_observation(Observation {
            id: id.into(),
            session_key: key.into(),
            content: format!("observation {id}"),
            token_count: 3,
            seq_start: 1,
            seq_end: 2,
            created_at: 0,
        })
        .await
        .expect("save observation")
}

/// Polls until `n` vectors of `key` are stored (a deadline, not a sleep assertion).
async fn wait_for_vectors(store: &Store, key: &str, n: usize) -> Vec<(String, String, Vec<f32>)> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let v = store.session_vectors(key, None).await.unwrap();
            if v.len() >= n {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("vectors were not stored in time")
}

#[tokio::test]
async fn acceptance_60_a_full_batch_is_flushed_without_waiting_for_the_timer() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    let fake = FakeProvider::start(Script::default()).await;
    let buf = EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        256,
        5,
        LONG,
    );
    for i in 0..10 {
        assert!(buf.enqueue(item("s1", "message", &i.to_string())));
    }
    let stored = wait_for_vectors(&store, "s1", 10).await;
    assert_eq!(stored.len(), 10);
    assert_eq!(embed_calls(&fake), [5, 5]);
    // The stored vector is the provider's, round-tripped through the BLOB.
    let (_, id, v) = stored.iter().find(|(_, id, _)| id == "3").unwrap();
    assert_eq!(v, &embed_text(&format!("text number {id} about rust")));
    buf.shutdown().await;
    assert_eq!(buf.dropped_count(), 0);
}

#[tokio::test]
async fn acceptance_60_a_partial_batch_is_flushed_by_the_timer() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    let fake = FakeProvider::start(Script::default()).await;
    let buf = EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        256,
        32,
        Duration::from_millis(50),
    );
    for i in 0..3 {
        assert!(buf.enqueue(item("s1", "message", &format!("m{i}"))));
    }
    // No shutdown: only the timer can flush these three.
    let stored = wait_for_vectors(&store, "s1", 3).await;
    assert_eq!(stored.len(), 3);
    assert_eq!(embed_calls(&fake).iter().sum::<usize>(), 3);
    buf.shutdown().await;
}

#[tokio::test]
async fn acceptance_59_a_full_queue_drops_and_counts() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    let fake = FakeProvider::start(Script::default()).await;
    let buf = EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        2,
        32,
        LONG,
    );
    // The current-thread runtime does not run the worker between these calls, so only the
    // queue's capacity is accepted.
    let accepted = (0..20)
        .filter(|i| buf.enqueue(item("s1", "message", &i.to_string())))
        .count();
    assert_eq!(accepted, 2);
    assert_eq!(buf.dropped_count(), 18);
    buf.shutdown().await;
    assert_eq!(store.session_vectors("s1", None).await.unwrap().len(), 2);

    let graph = GraphBuffer::start_with(store.clone(), 1, 64, LONG);
    assert!(graph.enqueue("s1", observation_triples("o1", "s1", None)));
    assert!(!graph.enqueue("s1", observation_triples("o2", "s1", Some("o1"))));
    assert_eq!(graph.dropped_count(), 1);
    graph.shutdown().await;
}

#[tokio::test]
async fn acceptance_60_shutdown_drains_everything_queued_then_refuses() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    let fake = FakeProvider::start(Script::default()).await;
    let buf = EmbeddingBuffer::start_with(
        embedder(&fake),
        "fake-embed".into(),
        store.clone(),
        256,
        4,
        LONG,
    );
    for i in 0..10 {
        assert!(buf.enqueue(item("s1", "message", &i.to_string())));
    }
    buf.shutdown().await;
    assert_eq!(store.session_vectors("s1", None).await.unwrap().len(), 10);
    let mut calls = embed_calls(&fake);
    calls.sort_unstable();
    assert_eq!(calls, [2, 4, 4], "drained in batch-size chunks");
    assert!(!buf.enqueue(item("s1", "message", "late")));
    assert_eq!(buf.dropped_count(), 0, "a refused item is not a drop");
    buf.shutdown().await; // idempotent

    let graph = GraphBuffer::start_with(store.clone(), 256, 2, LONG);
    for i in 0..5 {
        assert!(graph.enqueue("s1", observation_triples(&format!("o{i}"), "s1", None)));
    }
    graph.shutdown().await;
    assert_eq!(store.list_triples("s1").await.unwrap().len(), 5);
}

#[tokio::test]
async fn embedding_failures_are_skipped_and_the_buffer_carries_on() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    // Every embedding call fails (no retries, so the test is quick).
    let server =
        TestServer::start(|_: &RecordedRequest, _| Reply::full(400, "application/json", "{}"))
            .await;
    let config = ProviderConfig::new("openai", format!("{}/v1", server.base_url()))
        .with_key(ApiKey::new("sk-test"))
        .with_default_model("fake-embed")
        .with_http(HttpSettings {
            max_retries: 0,
            ..HttpSettings::default()
        });
    let broken: Arc<dyn Provider> = Arc::new(OpenAiCompatible::new(config).unwrap());
    let buf = EmbeddingBuffer::start_with(broken, "m".into(), store.clone(), 256, 2, LONG);
    for i in 0..3 {
        assert!(buf.enqueue(item("s1", "message", &i.to_string())));
    }
    buf.shutdown().await;
    assert!(store.session_vectors("s1", None).await.unwrap().is_empty());
    // Both batches were tried: the first failure did not stop the worker.
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn deleting_an_observation_or_reflection_deletes_its_vector() {
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    observation(&store, "s1", "o1").await;
    observation(&store, "s1", "o2").await;
    store
        .save_reflection(Reflection {
            id: "r1".into(),
            session_key: "s1".into(),
            content: "reflection".into(),
            token_count: 1,
            generation: 1,
            seq_start: 1,
            seq_end: 2,
            source_token_count: 6,
            created_at: 0,
        })
        .await
        .unwrap();
    let row = |collection: &str, id: &str| VectorRow {
        session_key: "s1".into(),
        collection: collection.into(),
        item_id: id.into(),
        model: "m".into(),
        vector: vec![1.0, -2.5, 0.25],
    };
    let saved = store
        .save_vectors(&[
            row("observation", "o1"),
            row("observation", "o2"),
            row("reflection", "r1"),
            row("observation", "gone"), // no such observation: skipped
        ])
        .await
        .unwrap();
    assert_eq!(saved, 3);
    // Upsert: saving again replaces, does not duplicate.
    store
        .save_vectors(&[row("observation", "o1")])
        .await
        .unwrap();
    assert_eq!(
        store
            .session_vectors("s1", Some("observation"))
            .await
            .unwrap()
            .len(),
        2
    );

    store
        .delete_observations(&["o1".to_string()])
        .await
        .unwrap();
    store.delete_reflections(&["r1".to_string()]).await.unwrap();
    let left = store.session_vectors("s1", None).await.unwrap();
    assert_eq!(
        left,
        [(
            "observation".to_string(),
            "o2".to_string(),
            vec![1.0, -2.5, 0.25]
        )]
    );
}

#[tokio::test]
async fn deleting_a_session_deletes_its_vectors_and_triples_only() {
    let (_dir, store) = store().await;
    for key in ["s1", "s2"] {
        session(&store, key).await;
        store
            .save_vectors(&[VectorRow {
                session_key: key.into(),
                collection: "message".into(),
                item_id: format!("{key}-m1"),
                model: "m".into(),
                vector: vec![0.5; 4],
            }])
            .await
            .unwrap();
        store
            .add_triples(key, &observation_triples(&format!("{key}-o1"), key, None))
            .await
            .unwrap();
    }
    assert!(store.delete_session("s1").await.unwrap());
    assert!(store.session_vectors("s1", None).await.unwrap().is_empty());
    assert!(store.list_triples("s1").await.unwrap().is_empty());
    assert_eq!(store.session_vectors("s2", None).await.unwrap().len(), 1);
    assert_eq!(store.list_triples("s2").await.unwrap().len(), 1);
    // A queued write for the deleted session adds nothing.
    assert_eq!(
        store
            .add_triples("s1", &observation_triples("late", "s1", None))
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn acceptance_59_triples_for_observations_and_reflections() {
    let first = observation_triples("o1", "s1", None);
    assert_eq!(
        first,
        [Triple::new("observation:o1", "in_session", "session:s1")]
    );
    let second = observation_triples("o2", "s1", Some("o1"));
    assert_eq!(second.len(), 2);
    assert_eq!(
        second[1],
        Triple::new("observation:o2", "follows", "observation:o1")
    );
    let refl = reflection_triples("r1", "s1", &["o1".to_string(), "o2".to_string()]);
    assert_eq!(
        refl,
        [
            Triple::new("reflection:r1", "in_session", "session:s1"),
            Triple::new("reflection:r1", "reflects_on", "observation:o1"),
            Triple::new("reflection:r1", "reflects_on", "observation:o2"),
        ]
    );
    let meta = meta_reflection_triples("r2", "s1", &["r1".to_string()]);
    assert_eq!(
        meta[1],
        Triple::new("reflection:r2", "reflects_on", "reflection:r1")
    );
    assert_eq!(
        contains_triple("observation", "o1"),
        Triple::new("observation:o1", "contains", "collection:observation")
    );

    // Through the graph buffer into the store; duplicates are ignored.
    let (_dir, store) = store().await;
    session(&store, "s1").await;
    let graph = GraphBuffer::start_with(store.clone(), 256, 64, LONG);
    assert!(graph.enqueue("s1", first.clone()));
    assert!(graph.enqueue("s1", second));
    assert!(graph.enqueue("s1", refl));
    assert!(graph.enqueue("s1", first));
    graph.shutdown().await;
    assert_eq!(store.list_triples("s1").await.unwrap().len(), 1 + 2 + 3);
}

#[test]
fn cosine_of_identical_vectors_is_one() {
    let v = embed_text("rust ownership and borrowing");
    assert!((cosine(&v, &v) - 1.0).abs() < 1e-6);
    assert!((cosine(&[1.0, 0.0], &[0.0, 2.0])).abs() < 1e-6);
    assert_eq!(cosine(&[1.0], &[1.0, 2.0]), 0.0);
    assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), 0.0);
}
