//! Spec 002 "Reflector Agent" scenarios and REFERENCE §3.4.

use super::*;

#[tokio::test]
async fn reflection_trigger_on_observation_token_threshold() {
    // No observing (threshold out of reach); reflect at Σ observation tokens ≥ 300.
    let (_dir, store, counter) = store_with_cost(100).await;
    let llm = ScriptedLlm::texts(["The user is building a CLI in Rust."]);
    let c = cycle(&store, &llm, &counter, &config(1_000_000, 300));
    save_observation(&store, "o1", 100, (1, 2)).await;
    save_observation(&store, "o2", 100, (3, 4)).await;
    let report = c.run(KEY).await;
    assert!(report.reflection.is_none());
    assert_eq!(llm.call_count(), 0, "200 < 300: no reflection");

    save_observation(&store, "o3", 100, (5, 8)).await;
    let report = c.run(KEY).await;
    let done = report.reflection.expect("reflected at exactly 300");
    assert_eq!(done.condensed(), 3);
    let r = done.reflection;
    assert_eq!(r.content, "The user is building a CLI in Rust.");
    assert_eq!(r.token_count, 100, "token_count = counter.count(content)");
    assert_eq!(r.generation, 1);
    assert_eq!((r.seq_start, r.seq_end), (1, 8));
    assert_eq!(r.source_token_count, 300);
    assert_eq!(store.list_reflections(KEY).await.unwrap(), vec![r]);

    // The reflector's prompt (REFERENCE §3.4).
    let system = llm.calls()[0].system();
    for want in [
        "ONE coherent summary",
        "three to eight",
        "Merge",
        "overlap",
        "trust the later",
    ] {
        assert!(system.contains(want), "{want:?}: {system}");
    }
    assert_eq!(llm.calls()[0].request.config.max_output_tokens, Some(1024));
}

#[tokio::test]
async fn observation_replacement_after_reflection() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["summary"]);
    let r = reflector(&llm, &counter, &config(1, 1));
    let o1 = save_observation(&store, "o1", 10, (1, 2)).await;
    let o2 = save_observation(&store, "o2", 10, (3, 4)).await;
    // An observation saved while the reflector's model call runs was not condensed: it stays.
    let racing = store.clone();
    llm.set_hook(move || {
        let store = racing.clone();
        async move {
            save_observation(&store, "late", 10, (5, 6)).await;
        }
    });
    let done = r.reflect(&store, KEY).await.unwrap().expect("reflected");
    assert_eq!(done.condensed(), 2);
    assert_eq!(
        llm.calls()[0].input(),
        format!(
            "Observation 1:\n{}\n\nObservation 2:\n{}\n\n",
            o1.content, o2.content
        )
    );
    let left = store.list_observations(KEY).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].content, "late");
    assert_eq!(store.list_reflections(KEY).await.unwrap().len(), 1);
}

#[tokio::test]
async fn multi_generation_reflections() {
    // Reflections accumulate to the consolidation threshold → one of the next generation.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["gen 2 summary", "gen 3 summary"]);
    let config = MemoryConfig {
        reflection_consolidation_threshold: 2,
        ..config(1_000_000, 1_000_000)
    };
    let c = cycle(&store, &llm, &counter, &config);
    let r1 = save_reflection(&store, "r1", 1).await;
    let r2 = save_reflection(&store, "r2", 1).await;
    let report = c.run(KEY).await;
    let meta = report.meta_reflection.expect("meta-reflected").reflection;
    assert_eq!(meta.generation, 2);
    assert_eq!(meta.source_token_count, 20);
    assert_eq!(
        llm.calls()[0].input(),
        format!(
            "Reflection 1 (gen 1):\n{}\n\nReflection 2 (gen 1):\n{}\n\n",
            r1.content, r2.content
        )
    );
    assert_eq!(
        store.list_reflections(KEY).await.unwrap(),
        vec![meta.clone()]
    );

    // Another one joins → generation 3.
    save_reflection(&store, "r3", 1).await;
    let meta3 = c.run(KEY).await.meta_reflection.expect("again").reflection;
    assert_eq!(meta3.generation, 3);
    let left = store.list_reflections(KEY).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].content, "gen 3 summary");
}

#[tokio::test]
async fn observations_too_long_for_the_memory_models_context_are_condensed_oldest_half_first() {
    let (_dir, store, counter) = store_with_cost(100).await;
    let llm = ScriptedLlm::new([Reply::TooLong, Reply::Text("The older half.".into())]);
    let c = cycle(&store, &llm, &counter, &config(1_000_000, 300));
    for (n, seq) in [(1, (1, 2)), (2, (3, 4)), (3, (5, 6)), (4, (7, 8))] {
        save_observation(&store, &format!("o{n}"), 100, seq).await;
    }
    let report = c.run(KEY).await;
    let done = report.reflection.expect("the older half condensed");
    assert_eq!(done.condensed(), 2);
    assert_eq!((done.reflection.seq_start, done.reflection.seq_end), (1, 4));
    let calls = llm.calls();
    assert_eq!(calls.len(), 2);
    assert!(calls[0].input().contains("o4") && !calls[1].input().contains("o3"));
    // The newer half waits for the next cycle, untouched.
    let left: Vec<String> = store
        .list_observations(KEY)
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.content)
        .collect();
    assert_eq!(left, ["o3", "o4"]);
}
