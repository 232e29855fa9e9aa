//! Spec 002 "Context Assembly with Observations": order, formatting, session keys.

use crate::harness::*;

#[tokio::test]
async fn context_ordering() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    let old = observe(&store, "s1", "the cluster runs kubernetes with helm charts").await;
    reflect(&store, "s1", "user operates production kubernetes clusters").await;
    observe(&store, "s1", "newest note about dashboards").await;
    let inner = Arc::new(Recorder::default());
    // Only the newest observation fits the memory section, so the older one can come from RAG.
    let adapter = adapter(&inner, &store, default_counter(), limits(5, 1)).with_knowledge(true);

    let req = request("You are Lango.", "How do I upgrade kubernetes?");
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    let text = system_text(&sent);

    assert!(
        text.starts_with("You are Lango.\n\n## Semantic Context (RAG)\n"),
        "{text}"
    );
    let rag = pos(&text, "## Semantic Context (RAG)");
    let old_item = pos(
        &text,
        &format!("### [observation] {}\n{}", old.id, old.content),
    );
    let runtime = pos(&text, "## Runtime Context");
    let memory = pos(&text, "\n\n## Conversation Memory\n");
    let summary = pos(
        &text,
        "### Summary\nuser operates production kubernetes clusters\n",
    );
    let recent = pos(
        &text,
        "### Recent Observations\n- newest note about dashboards\n",
    );
    assert!(rag < old_item && old_item < runtime && runtime < memory);
    assert!(memory < summary && summary < recent);
    // The reflection is in the memory section, not repeated by RAG.
    assert_eq!(
        text.matches("user operates production kubernetes").count(),
        1
    );
    // Recent messages follow as contents, unchanged; everything else untouched.
    assert_eq!(sent.contents, req.contents);
    assert_eq!(sent.config.tools, req.config.tools);
    assert_eq!(sent.config.temperature, req.config.temperature);
    assert_eq!(sent.model, req.model);
}

#[tokio::test]
async fn no_observations_available() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let mut req = request("You are Lango.", "hello");
    // Several instruction parts, one empty: must survive exactly.
    req.config.system_instruction = Some(Content::new(
        roles::SYSTEM,
        vec![
            Part::text("You are Lango."),
            Part::text(""),
            Part::text("Be brief."),
        ],
    ));
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    assert_eq!(sent, req);
    assert_eq!(
        serde_json::to_vec(&sent.config.system_instruction).unwrap(),
        serde_json::to_vec(&req.config.system_instruction).unwrap()
    );
    // No instruction at all stays None.
    let bare = request("", "hello");
    assert_eq!(send(&adapter, &inner, Some("s1"), bare.clone()).await, bare);
    // A session the store does not know behaves the same.
    assert_eq!(send(&adapter, &inner, Some("nope"), req.clone()).await, req);
}

#[tokio::test]
async fn observation_formatting() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "obs one").await;
    reflect(&store, "s1", "refl one").await;
    observe(&store, "s1", "obs two").await;
    reflect(&store, "s1", "refl two").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let sent = send(&adapter, &inner, Some("s1"), request("Base.", "hi")).await;
    assert_eq!(
        system_text(&sent),
        "Base.\n\n## Conversation Memory\n\n### Summary\nrefl one\nrefl two\n\n\
         ### Recent Observations\n- obs one\n- obs two\n"
    );
}

#[tokio::test]
async fn session_key_resolved_from_request_context() {
    let (_d, store) = temp_store().await;
    session(&store, "alpha").await;
    session(&store, "beta").await;
    observe(&store, "alpha", "alpha likes tea").await;
    observe(&store, "beta", "beta likes coffee").await;
    let inner = Arc::new(Recorder::default());
    // One adapter, constructed without any key: the key comes from each call.
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());

    let a = system_text(&send(&adapter, &inner, Some("alpha"), request("B", "x")).await);
    assert!(
        a.contains("- alpha likes tea") && !a.contains("beta"),
        "{a}"
    );
    let b = system_text(&send(&adapter, &inner, Some("beta"), request("B", "x")).await);
    assert!(
        b.contains("- beta likes coffee") && !b.contains("alpha"),
        "{b}"
    );
    let a2 = system_text(&send(&adapter, &inner, Some("alpha"), request("B", "x")).await);
    assert_eq!(a, a2);
}

#[tokio::test]
async fn no_session_key_in_context_skips_memory() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "secret note").await;
    let inner = Arc::new(Recorder::default());
    let adapter =
        adapter(&inner, &store, default_counter(), MemoryConfig::default()).with_knowledge(true);

    let req = request("Base.", "secret note?");
    let sent = send(&adapter, &inner, None, req.clone()).await;
    assert_eq!(sent, req);
    assert!(!system_text(&sent).contains("Conversation Memory"));
    // An empty key counts as no key.
    let ctx = RequestContext {
        session_key: Some(String::new()),
        ..RequestContext::default()
    };
    let _: Vec<_> = adapter
        .generate_content(&ctx, req.clone(), false)
        .collect()
        .await;
    assert_eq!(inner.last(), req);

    // Proof the store is never touched: on a closed store every query fails (and is counted),
    // yet a call without a key records no failure.
    store.close().await;
    assert_eq!(send(&adapter, &inner, None, req.clone()).await, req);
    assert_eq!(adapter.retrieval_failures(), 0, "no key → no store query");
    // Control: with a key the same closed store is queried (fails, degrades, still sends;
    // only the runtime context, which needs no store, is added).
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    assert_eq!(sent.contents, req.contents);
    assert!(!system_text(&sent).contains("Conversation Memory"));
    assert!(adapter.retrieval_failures() >= 2);
    assert_eq!(adapter.runtime_context().session_key(), "s1");
}

#[tokio::test]
async fn session_key_propagated_to_runtime_context_adapter() {
    let (_d, store) = temp_store().await;
    let inner = Arc::new(Recorder::default());
    let shared = Arc::new(RuntimeContext::new(true, false, false));
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default())
        .with_runtime_context(Arc::clone(&shared));

    send(
        &adapter,
        &inner,
        Some("telegram:123:456"),
        request("B", "x"),
    )
    .await;
    assert_eq!(shared.session_key(), "telegram:123:456");
    assert_eq!(shared.channel(), "telegram");
    assert_eq!(
        shared.render(),
        "## Runtime Context\nSession: telegram:123:456 | Channel: telegram | Tools: 1 | \
         Encryption: true | Knowledge: false | Memory: true"
    );
    send(&adapter, &inner, Some("tui-1"), request("B", "x")).await;
    assert_eq!(shared.session_key(), "tui-1");
    assert_eq!(shared.channel(), "direct");
    // A call without a key leaves it alone.
    send(&adapter, &inner, None, request("B", "x")).await;
    assert_eq!(shared.session_key(), "tui-1");
}

#[tokio::test]
async fn session_key_propagated_to_rag_retrieval() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    session(&store, "s2").await;
    let mine = observe(&store, "s1", "the user studied zebras in Kenya").await;
    observe(&store, "s1", "newest unrelated note").await;
    let theirs = observe(
        &store,
        "s2",
        "zebras are striped, noted in the other session",
    )
    .await;
    store
        .append_message("s2", NewMessage::new("user", "zebras everywhere in s2"))
        .await
        .unwrap();
    // Earlier turns' messages: the memory cycle indexes them after each turn (retrieval
    // itself does not, to keep writes off the send path).
    store.index_pending_messages().await.unwrap();
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), limits(5, 1)).with_knowledge(true);

    let text = system_text(
        &send(
            &adapter,
            &inner,
            Some("s1"),
            request("B", "Tell me about zebras"),
        )
        .await,
    );
    assert!(
        text.contains(&format!(
            "### [observation] {}\nthe user studied zebras in Kenya\n",
            mine.id
        )),
        "{text}"
    );
    assert!(
        !text.contains(&theirs.id) && !text.contains("striped") && !text.contains("everywhere"),
        "{text}"
    );

    // The retrieval function itself, both ways round.
    let counter = default_counter();
    let (s1, _) = knowledge_section(&store, "s1", "zebras", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s1 has a match");
    assert!(s1.starts_with("## Semantic Context (RAG)\n\n### [observation] "));
    assert!(s1.contains("Kenya") && !s1.contains("striped"));
    let (s2, _) = knowledge_section(&store, "s2", "zebras", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s2 has a match");
    assert!(s2.contains("striped") && !s2.contains("Kenya"));
    assert!(s2.contains("### [message] "), "{s2}");
    // The query's own message is not echoed back.
    let (s2, _) = knowledge_section(&store, "s2", "zebras everywhere in s2", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s2 has a match");
    assert!(s2.contains("striped") && !s2.contains("[message]"), "{s2}");
    assert_eq!(
        knowledge_section(&store, "s1", "giraffes", counter.as_ref(), 0)
            .await
            .unwrap(),
        None
    );
}
