//! Hybrid retrieval: BM25 and vectors fused find what BM25 alone misses; a slow or failing
//! embedder falls back to BM25; a session without vectors never calls the embedder.

use super::*;

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
