//! Spec 002 "Configurable memory context limits" and "Memory token budgeting in context assembly".

use crate::harness::*;

#[tokio::test]
async fn default_limits_applied() {
    let config = MemoryConfig::default();
    assert_eq!(config.max_reflections_in_context, 5);
    assert_eq!(config.max_observations_in_context, 20);
    let (_d, store) = temp_store().await;
    seed_many(&store, "s1", 7, 25).await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), config);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 2..7));
    assert_eq!(obs, names("observation", 5..25));
}

#[tokio::test]
async fn custom_limits_applied() {
    let (_d, store) = temp_store().await;
    seed_many(&store, "s1", 7, 25).await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), limits(3, 10));
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 4..7));
    assert_eq!(obs, names("observation", 15..25));
}

// ---------------------------------------------------------------------------------------
// Spec 002: Memory token budgeting in context assembly
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn default_memory_token_budget() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    for r in ["r-2000", "r-1999", "r-2"] {
        reflect(&store, "s1", r).await;
    }
    let inner = Arc::new(Recorder::default());
    let counter = CostTable::new(&[("r-2000", 2000), ("r-1999", 1999), ("r-2", 2)]);
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    assert_eq!(adapter.memory_token_budget(), DEFAULT_MEMORY_TOKEN_BUDGET);
    assert_eq!(DEFAULT_MEMORY_TOKEN_BUDGET, 4000);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    // 2000 + 1999 = 3999 fits; + 2 = 4001 does not.
    assert!(
        text.contains("r-2000\nr-1999\n") && !text.contains("r-2\n"),
        "{text}"
    );
}

#[tokio::test]
async fn reflections_exceed_budget() {
    let counter = CostTable::new(&[("R1", 60), ("R2", 60), ("O1", 50), ("O2", 50)]);
    let (text, used) = memory_section(&["R1", "R2"], &["O1", "O2"], counter.as_ref(), 100).unwrap();
    assert_eq!(text, "## Conversation Memory\n\n### Summary\nR1\n");
    assert_eq!(used, 60);
    // Reflections filling the budget exactly: observations skipped even if free.
    let counter = CostTable::new(&[("R1", 50), ("R2", 50), ("R3", 50), ("O1", 0)]);
    let (text, used) = memory_section(&["R1", "R2", "R3"], &["O1"], counter.as_ref(), 100).unwrap();
    assert_eq!(text, "## Conversation Memory\n\n### Summary\nR1\nR2\n");
    assert_eq!(used, 100);

    // Through the adapter.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "R1").await;
    reflect(&store, "s1", "R2").await;
    observe(&store, "s1", "O1").await;
    let inner = Arc::new(Recorder::default());
    let counter = CostTable::new(&[("R1", 60), ("R2", 60), ("O1", 50)]);
    let adapter =
        adapter(&inner, &store, counter, MemoryConfig::default()).with_memory_token_budget(100);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    assert_eq!(text, "B\n\n## Conversation Memory\n\n### Summary\nR1\n");
}

#[tokio::test]
async fn budget_shared_between_reflections_and_observations() {
    let counter = CostTable::new(&[("R1", 40), ("O1", 30), ("O2", 30), ("O3", 30)]);
    let (text, used) = memory_section(&["R1"], &["O1", "O2", "O3"], counter.as_ref(), 100).unwrap();
    assert_eq!(
        text,
        "## Conversation Memory\n\n### Summary\nR1\n\n### Recent Observations\n- O1\n- O2\n"
    );
    assert_eq!(used, 100);
    // Stops at the first observation that does not fit, even if a later one would.
    let counter = CostTable::new(&[("R1", 40), ("O1", 30), ("O2", 50), ("O3", 1)]);
    let (text, _) = memory_section(&["R1"], &["O1", "O2", "O3"], counter.as_ref(), 100).unwrap();
    assert!(text.ends_with("- O1\n"), "{text}");
}

#[tokio::test]
async fn custom_budget_via_with_memory_token_budget() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "R1").await;
    reflect(&store, "s1", "R2").await;
    let inner = Arc::new(Recorder::default());
    let counter: Arc<dyn TokenCounter> = CostTable::new(&[("R1", 30), ("R2", 30)]);
    let custom = adapter(
        &inner,
        &store,
        Arc::clone(&counter),
        MemoryConfig::default(),
    )
    .with_memory_token_budget(50);
    assert_eq!(custom.memory_token_budget(), 50);
    let text = system_text(&send(&custom, &inner, Some("s1"), request("B", "x")).await);
    assert_eq!(text, "B\n\n## Conversation Memory\n\n### Summary\nR1\n");
    // Non-positive keeps the default.
    let zero =
        adapter(&inner, &store, counter, MemoryConfig::default()).with_memory_token_budget(0);
    assert_eq!(zero.memory_token_budget(), 4000);
    let text = system_text(&send(&zero, &inner, Some("s1"), request("B", "x")).await);
    assert!(text.ends_with("### Summary\nR1\nR2\n"));
}
