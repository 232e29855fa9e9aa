//! The embedding feed: messages and observations are embedded after a turn, an edited
//! observation again, and a full queue drops, counts and queues the rest next cycle.

use super::*;

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
