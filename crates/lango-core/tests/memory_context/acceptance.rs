//! REFERENCE acceptance 54–57.

use crate::harness::*;

const EXAMPLE: &str = "## Conversation Memory\n\n### Summary\nexperienced developer\n\n### Recent Observations\n- user prefers Rust\n";

#[tokio::test]
async fn acceptance_54_exact_memory_section() {
    let counter = default_counter();
    let (text, _) = memory_section(
        &["experienced developer"],
        &["user prefers Rust"],
        counter.as_ref(),
        4000,
    )
    .unwrap();
    assert_eq!(text, EXAMPLE);

    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "experienced developer").await;
    observe(&store, "s1", "user prefers Rust").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    let sent = send(
        &adapter,
        &inner,
        Some("s1"),
        request("You are Lango.", "hi"),
    )
    .await;
    assert_eq!(system_text(&sent), format!("You are Lango.\n\n{EXAMPLE}"));
    // No base prompt: the section alone, no leading blank lines.
    let sent = send(&adapter, &inner, Some("s1"), request("", "hi")).await;
    assert_eq!(system_text(&sent), EXAMPLE);
    assert_eq!(sent.config.system_instruction.unwrap().role, roles::SYSTEM);
}

#[tokio::test]
async fn acceptance_55_budget_walk_and_nothing_fits() {
    let counter = CostTable::new(&[
        ("R1", 1500),
        ("R2", 2000),
        ("R3", 1000),
        ("O1", 300),
        ("O2", 600),
        ("BIG", 5000),
    ]);
    let (text, used) =
        memory_section(&["R1", "R2", "R3"], &["O1", "O2"], counter.as_ref(), 4000).unwrap();
    assert_eq!(
        text,
        "## Conversation Memory\n\n### Summary\nR1\nR2\n\n### Recent Observations\n- O1\n"
    );
    assert_eq!(used, 3800);
    // Budget 0 → 4000.
    assert_eq!(
        memory_section(&["R1", "R2", "R3"], &["O1", "O2"], counter.as_ref(), 0)
            .unwrap()
            .0,
        text
    );
    // [FIX] nothing fits → no section (no empty headings).
    let none: [&str; 0] = [];
    assert_eq!(
        memory_section(&["BIG"], &none, counter.as_ref(), 4000),
        None
    );
    assert_eq!(memory_section(&none, &none, counter.as_ref(), 4000), None);

    // … and through the adapter the instruction stays untouched.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "BIG").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    let req = request("Base.", "hi");
    assert_eq!(send(&adapter, &inner, Some("s1"), req.clone()).await, req);
}

#[tokio::test]
async fn acceptance_55_builds_on_the_requests_own_instruction() {
    // [FIX] Whatever the runtime put into THIS request's instruction is kept.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "user prefers Rust").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let first = send(
        &adapter,
        &inner,
        Some("s1"),
        request("Agent A prompt.", "hi"),
    )
    .await;
    assert!(system_text(&first).starts_with("Agent A prompt.\n\n## Conversation Memory"));
    let mut req = request("Agent B prompt.", "hi");
    req.config.system_instruction = Some(Content::new(
        roles::SYSTEM,
        vec![
            Part::text("Agent B prompt."),
            Part::text("Runtime addition."),
        ],
    ));
    let second = send(&adapter, &inner, Some("s1"), req).await;
    let parts = &second.config.system_instruction.as_ref().unwrap().parts;
    assert_eq!(parts[0].text.as_deref(), Some("Agent B prompt."));
    assert_eq!(
        parts[1].text.as_deref(),
        Some("Runtime addition.\n\n## Conversation Memory\n\n### Recent Observations\n- user prefers Rust\n")
    );
    assert!(!system_text(&second).contains("Agent A"));
}

#[tokio::test]
async fn acceptance_56_limits_and_key_resolution() {
    let (_d, store) = temp_store().await;
    seed_many(&store, "telegram:123:456", 6, 6).await;
    let inner = Arc::new(Recorder::default());
    let a = adapter(&inner, &store, default_counter(), limits(3, 5));
    let text = system_text(&send(&a, &inner, Some("telegram:123:456"), request("B", "x")).await);
    assert!(text.contains("Conversation Memory"));
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 3..6));
    assert_eq!(obs, names("observation", 1..6));

    let all = adapter(&inner, &store, default_counter(), limits(0, 0));
    let text = system_text(&send(&all, &inner, Some("telegram:123:456"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 0..6));
    assert_eq!(obs, names("observation", 0..6));

    // No key → the store is never called (a closed store would fail any query).
    store.close().await;
    let req = request("B", "x");
    assert_eq!(send(&all, &inner, None, req.clone()).await, req);
    assert_eq!(all.retrieval_failures(), 0);
}

#[tokio::test]
async fn acceptance_57_channel_types() {
    for key in [
        "",
        "noseparator",
        "unknown:1:2",
        "http:x",
        "tui-1",
        "5f0c9a0e-1b2c-4d3e-8f90-123456789abc",
    ] {
        assert_eq!(channel_type(key), "direct", "{key:?}");
    }
    for (key, channel) in [
        ("telegram:1:2", "telegram"),
        ("discord:g:c", "discord"),
        ("slack:t:c", "slack"),
    ] {
        assert_eq!(channel_type(key), channel);
        let rc = RuntimeContext::default();
        rc.set_session(key);
        assert_eq!((rc.session_key().as_str(), rc.channel()), (key, channel));
        assert!(rc.render().starts_with(&format!(
            "## Runtime Context\nSession: {key} | Channel: {channel} |"
        )));
    }
}
