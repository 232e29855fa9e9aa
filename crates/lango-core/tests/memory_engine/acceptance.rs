//! REFERENCE §6 acceptance 45–49, 51, 52, adapted to `seq` ranges and the persisted cursor
//! (REFERENCE §3.1 [FIX]) and to decision (a) of §3.6: the newest complete exchange is never
//! observed, so each case appends one after the rows it means.

use lango_core::store::{StoreError, SUMMARY_PREFIX};

use super::*;

#[tokio::test]
async fn acceptance_45_observation_range() {
    let (_dir, store, counter) = store_tiktoken().await;
    let llm = ScriptedLlm::texts(["  User is building a REST API in Rust.\n"]);
    let obs = observer(&llm, &counter, &config(1, 100_000));

    // No rows → no call.
    assert!(obs.observe(&store, KEY, false).await.unwrap().is_none());
    assert_eq!(llm.call_count(), 0);

    // 3 rows, none observed (+ the newest exchange) → seq 1..3.
    append(&store, "user", "I want to build a REST API").await;
    append(&store, "assistant", "In which language?").await;
    append(&store, "user", "Rust, with axum").await;
    pairs(&store, 0..1).await;
    let o = obs
        .observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(o.content, "User is building a REST API in Rust.", "trimmed");
    assert_eq!((o.seq_start, o.seq_end), (1, 3));
    assert!(o.token_count > 0);
    assert_eq!(o.token_count as usize, counter.count(&o.content));
    assert!(!o.id.is_empty());

    // All observed → no call.
    assert!(obs.observe(&store, KEY, false).await.unwrap().is_none());
    assert_eq!(llm.call_count(), 1);

    // 4 rows observed through seq 2 → seq 3..4.
    let (_dir2, store2, counter2) = store_tiktoken().await;
    pairs(&store2, 0..3).await;
    store2.set_observed_through_seq(KEY, 2).await.unwrap();
    let obs2 = observer(&llm, &counter2, &config(1, 100_000));
    let o = obs2
        .observe(&store2, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!((o.seq_start, o.seq_end), (3, 4));
    assert_eq!(llm.calls()[1].input(), "[user]: u1\n[assistant]: a1\n");
}

#[tokio::test]
async fn acceptance_46_observer_input() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["n1", "n2"]);
    let obs = observer(&llm, &counter, &config(1, 100_000));
    append(&store, "user", "Hello").await;
    append(&store, "assistant", "Hi there").await;
    pairs(&store, 0..1).await;
    obs.observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(
        llm.calls()[0].input(),
        "[user]: Hello\n[assistant]: Hi there\n"
    );

    append_calls(
        &store,
        "assistant",
        "Running",
        vec![call("exec", "cargo build", "")],
    )
    .await;
    pairs(&store, 1..2).await;
    obs.observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    // The previous newest exchange (u0/a0) is observed now, then the new row.
    assert_eq!(
        llm.calls()[1].input(),
        "[user]: u0\n[assistant]: a0\n[assistant]: Running\n  [tool:exec] cargo build\n"
    );
}

#[tokio::test]
async fn acceptance_47_reflect_and_meta_reflect() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["merged", "meta", "meta again"]);
    let r = reflector(&llm, &counter, &config(1, 1));

    // None → nothing, no call.
    assert!(r.reflect(&store, KEY).await.unwrap().is_none());
    assert!(r.meta_reflect(&store, KEY).await.unwrap().is_none());
    assert_eq!(llm.call_count(), 0);

    // Reflect over 2 observations → 1 reflection gen 1, 0 observations left.
    save_observation(&store, "A", 10, (1, 4)).await;
    save_observation(&store, "B", 10, (5, 6)).await;
    let done = r.reflect(&store, KEY).await.unwrap().expect("reflected");
    assert_eq!(
        llm.calls()[0].input(),
        "Observation 1:\nA\n\nObservation 2:\nB\n\n"
    );
    assert_eq!(done.reflection.generation, 1);
    assert_eq!((done.reflection.seq_start, done.reflection.seq_end), (1, 6));
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
    assert_eq!(store.list_reflections(KEY).await.unwrap().len(), 1);

    // Meta over 2 gen-1 → one gen-2 remains.
    save_reflection(&store, "R2", 1).await;
    let meta = r.meta_reflect(&store, KEY).await.unwrap().expect("meta");
    assert_eq!(meta.reflection.generation, 2);
    assert_eq!(
        store.list_reflections(KEY).await.unwrap(),
        vec![meta.reflection]
    );

    // Generations [1, 3, 2] → 4.
    let (_dir, store, _) = store_with_cost(10).await;
    for g in [1, 3, 2] {
        save_reflection(&store, &format!("g{g}"), g).await;
    }
    let meta = r.meta_reflect(&store, KEY).await.unwrap().expect("meta");
    assert_eq!(meta.reflection.generation, 4);
    assert_eq!(meta.condensed(), 3);
    assert_eq!(
        llm.calls()[2].input(),
        "Reflection 1 (gen 1):\ng1\n\nReflection 2 (gen 3):\ng3\n\nReflection 3 (gen 2):\ng2\n\n"
    );
    assert_eq!(store.list_reflections(KEY).await.unwrap().len(), 1);
}

#[tokio::test]
async fn acceptance_48_one_trigger() {
    // 20 rows cost 30, thresholds 10/100000, no compactor, one trigger → exactly 1 observation.
    let (_dir, store, counter) = store_with_cost(30).await;
    let llm = ScriptedLlm::texts(["note"]);
    let c = cycle(&store, &llm, &counter, &config(10, 100_000));
    pairs(&store, 0..10).await;
    let report = c.run(KEY).await;
    assert_eq!(store.list_observations(KEY).await.unwrap().len(), 1);
    assert_eq!(llm.call_count(), 1);
    let o = report.observation.unwrap();
    assert_eq!((o.seq_start, o.seq_end), (1, 18));
    assert_eq!(store.list_messages(KEY).await.unwrap().len(), 20);

    // Thresholds 1000/2000; un-observed cost exactly 1000; old observations + the new one sum
    // to exactly 2000; 4 gen-1 reflections → observe, reflect (5th), meta → 1 gen-2, 0 obs.
    let (_dir, store, counter) = store_with_cost(500).await;
    let llm = ScriptedLlm::texts(["observed", "reflected", "consolidated"]);
    let c = cycle(&store, &llm, &counter, &config(1000, 2000));
    for i in 0..4 {
        save_reflection(&store, &format!("r{i}"), 1).await;
    }
    for i in 0..3 {
        save_observation(&store, &format!("old {i}"), 500, (0, 0)).await;
    }
    pairs(&store, 0..2).await; // rows 1, 2 observable → 1000
    let report = c.run(KEY).await;
    assert!(report.observation.is_some());
    assert_eq!(report.reflection.as_ref().unwrap().condensed(), 4);
    assert_eq!(report.meta_reflection.as_ref().unwrap().condensed(), 5);
    assert_eq!(
        llm.call_count(),
        3,
        "up to three sequential calls per trigger"
    );
    let reflections = store.list_reflections(KEY).await.unwrap();
    assert_eq!(reflections.len(), 1);
    assert_eq!(reflections[0].generation, 2);
    assert_eq!(reflections[0].content, "consolidated");
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
}

#[tokio::test]
async fn acceptance_49_observer_error_and_empty_reply() {
    // Observer error → no reflection check; the next trigger retries.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::new([Reply::Fail("boom".into())]);
    let c = cycle(&store, &llm, &counter, &config(1, 10));
    save_observation(&store, "old", 10, (0, 0)).await; // would trigger a reflection
    pairs(&store, 0..2).await;
    let report = c.run(KEY).await;
    assert!(report.observe_error.is_some());
    assert!(report.reflection.is_none() && report.reflect_error.is_none());
    assert_eq!(
        llm.call_count(),
        1,
        "the cycle ended at the failed observation"
    );
    assert_eq!(store.list_observations(KEY).await.unwrap().len(), 1);
    assert_eq!(c.empty_replies(), 0);

    let report = c.run(KEY).await;
    assert!(report.observation.is_some() && report.reflection.is_some());
    assert_eq!(llm.call_count(), 3);

    // Reply "  " → nothing saved, pointer unchanged, empty-output counter + 1.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["  "]);
    let c = cycle(&store, &llm, &counter, &config(1, 10)).with_compactor(true);
    pairs(&store, 0..2).await;
    let report = c.run(KEY).await;
    assert!(report.observe_error.is_some());
    assert_eq!(c.empty_replies(), 1);
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 0);
    assert_eq!(store.list_messages(KEY).await.unwrap().len(), 4);
    // Retried on the next trigger.
    assert!(c.run(KEY).await.observation.is_some());
    assert_eq!(c.empty_replies(), 1);
}

#[tokio::test]
async fn acceptance_51_compaction() {
    // m0..m7 observed → all moved out of the history, the summary first.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["the note"]);
    let c = cycle(&store, &llm, &counter, &config(1, 100_000)).with_compactor(true);
    for i in 0..8 {
        append(
            &store,
            if i % 2 == 0 { "user" } else { "assistant" },
            &format!("m{i}"),
        )
        .await;
    }
    append(&store, "user", "m8").await;
    append(&store, "assistant", "m9").await;
    let o = c.run(KEY).await.observation.expect("observed");
    assert_eq!((o.seq_start, o.seq_end), (1, 8));
    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(
        contents(&history),
        vec![
            format!("{SUMMARY_PREFIX}the note"),
            "m8".into(),
            "m9".into()
        ]
    );
    assert_eq!(history[0].role, "system");
    assert_eq!(history[0].author, "");

    // The positional API still refuses an index past the end.
    let err = store.compact_messages(KEY, 10, "x").await.unwrap_err();
    assert!(matches!(err, StoreError::OutOfRange { .. }), "{err:?}");
}

#[tokio::test]
async fn acceptance_52_concurrent_append_restart_and_delete() {
    let (dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["first note", "second note"]);
    let c = cycle(&store, &llm, &counter, &config(1, 100_000)).with_compactor(true);
    pairs(&store, 0..5).await; // seq 1..=10; 1..=8 observable

    // A message appended while the observer's model call runs survives the compaction.
    let racing = store.clone();
    llm.set_hook(move || {
        let store = racing.clone();
        async move {
            append(&store, "user", "late").await;
        }
    });
    let o = c.run(KEY).await.observation.expect("observed");
    llm.clear_hook();
    assert_eq!((o.seq_start, o.seq_end), (1, 8));
    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(
        contents(&history),
        vec![
            format!("{SUMMARY_PREFIX}first note"),
            "u4".into(),
            "a4".into(),
            "late".into()
        ]
    );
    assert!(history[0].seq < history[1].seq);
    assert_eq!(history[3].seq, 11);

    // After a restart, the rows after the cursor are observed once each.
    store.close().await;
    drop(c);
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        counter.clone(),
    )
    .await
    .expect("reopen");
    let c = cycle(&store, &llm, &counter, &config(1, 100_000)).with_compactor(true);
    append(&store, "assistant", "late answer").await;
    pairs(&store, 5..6).await;
    let o = c
        .run(KEY)
        .await
        .observation
        .expect("observed after restart");
    assert_eq!((o.seq_start, o.seq_end), (9, 12));
    assert_eq!(
        llm.calls()[1].input(),
        "[user]: u4\n[assistant]: a4\n[user]: late\n[assistant]: late answer\n"
    );
    c.run(KEY).await;
    assert_eq!(llm.call_count(), 2, "nothing is observed twice");

    // Deleting the session removes its observations, reflections and cursor; others stay.
    store.create_session("other", "other").await.unwrap();
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: "other".into(),
            content: "kept".into(),
            token_count: 1,
            seq_start: 0,
            seq_end: 0,
            created_at: 0,
        })
        .await
        .unwrap();
    save_reflection(&store, "r", 1).await;
    assert!(store.delete_session(KEY).await.unwrap());
    store.create_session(KEY, "again").await.unwrap();
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
    assert!(store.list_reflections(KEY).await.unwrap().is_empty());
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 0);
    assert_eq!(store.list_observations("other").await.unwrap().len(), 1);
}
