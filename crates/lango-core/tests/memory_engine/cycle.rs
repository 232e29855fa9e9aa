//! Spec 002 "Memory buffer compaction", "SetCompactor", "Auto meta-reflection" scenarios and
//! the per-trigger cycle of REFERENCE §3.5.

use lango_core::memory::{MemoryEvent, MemoryPhase};
use lango_core::store::{MessageKind, SUMMARY_PREFIX};

use super::*;

#[tokio::test]
async fn compaction_after_observation() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["The user asked about u0 and u1."]);
    let c = cycle(&store, &llm, &counter, &config(1, 1_000_000)).with_compactor(true);
    assert!(c.compactor());
    pairs(&store, 0..3).await;
    let o = c.run(KEY).await.observation.expect("observed");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));

    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(
        contents(&history),
        vec![
            format!("{SUMMARY_PREFIX}{}", o.content),
            "u2".into(),
            "a2".into()
        ]
    );
    assert_eq!(history[0].kind, MessageKind::Summary);
    assert_eq!(history[0].role, "system");
    assert!(history[0].seq < history[1].seq);
    // The covered rows are archived, not destroyed.
    let archived = store
        .archived_messages(KEY, o.seq_start, o.seq_end)
        .await
        .unwrap();
    assert_eq!(contents(&archived), vec!["u0", "a0", "u1", "a1"]);
}

#[tokio::test]
async fn compactor_not_set() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["note"]);
    let mut c = cycle(&store, &llm, &counter, &config(1, 1_000_000));
    assert!(!c.compactor(), "compaction is off unless set");
    pairs(&store, 0..3).await;
    let before = store.list_messages(KEY).await.unwrap();
    let o = c.run(KEY).await.observation.expect("observed");
    assert_eq!(
        store.list_messages(KEY).await.unwrap(),
        before,
        "all rows stay"
    );
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), o.seq_end);

    // SetCompactor at run time: the next observation compacts.
    c.set_compactor(true);
    pairs(&store, 3..4).await;
    c.run(KEY).await.observation.expect("observed again");
    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(history[0].kind, MessageKind::Summary);
    assert_eq!(contents(&history[1..]), vec!["u3", "a3"]);
}

#[tokio::test]
async fn index_reset_after_compaction() {
    // The reference reset a position index to 0 after compaction; ours keeps a seq cursor,
    // so after compaction the next cycle observes exactly the new rows.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["first note", "second note"]);
    let c = cycle(&store, &llm, &counter, &config(1, 1_000_000)).with_compactor(true);
    pairs(&store, 0..3).await;
    let first = c.run(KEY).await.observation.expect("first");
    assert_eq!(
        store.observed_through_seq(KEY).await.unwrap(),
        first.seq_end
    );

    pairs(&store, 3..5).await;
    let second = c.run(KEY).await.observation.expect("second");
    assert_eq!((second.seq_start, second.seq_end), (first.seq_end + 1, 8));
    assert_eq!(
        llm.calls()[1].input(),
        "[user]: u2\n[assistant]: a2\n[user]: u3\n[assistant]: a3\n",
        "neither the old rows nor the summary are observed again"
    );
    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(
        contents(&history),
        vec![
            format!("{SUMMARY_PREFIX}second note"),
            "u4".into(),
            "a4".into()
        ],
        "the earlier summary is compacted together with the rows it precedes"
    );
    // Nothing new → no call.
    c.run(KEY).await;
    assert_eq!(llm.call_count(), 2);
}

#[tokio::test]
async fn default_consolidation_threshold() {
    assert_eq!(
        MemoryConfig::default().reflection_consolidation_threshold,
        5
    );
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["merged"]);
    let config = MemoryConfig::default();
    let c = cycle(&store, &llm, &counter, &config);
    for i in 0..4 {
        save_reflection(&store, &format!("r{i}"), 1).await;
    }
    assert!(c.run(KEY).await.meta_reflection.is_none());
    assert_eq!(llm.call_count(), 0, "4 < 5");
    save_reflection(&store, "r4", 1).await;
    let meta = c.run(KEY).await.meta_reflection.expect("5 ≥ 5");
    assert_eq!(meta.condensed(), 5);
}

#[tokio::test]
async fn meta_reflection_triggered() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["consolidated"]);
    let config = MemoryConfig {
        reflection_consolidation_threshold: 3,
        ..config(1_000_000, 1_000_000)
    };
    let c = cycle(&store, &llm, &counter, &config);
    for g in [1, 2, 1] {
        save_reflection(&store, &format!("gen {g}"), g).await;
    }
    let meta = c.run(KEY).await.meta_reflection.expect("meta").reflection;
    assert_eq!(meta.generation, 3);
    assert_eq!(store.list_reflections(KEY).await.unwrap(), vec![meta]);
}

#[tokio::test]
async fn meta_reflection_failure_is_non_fatal() {
    let (_dir, store, counter) = store_with_cost(10).await;
    // Observe ok, meta-reflect fails.
    let llm = ScriptedLlm::new([
        Reply::Text("note".into()),
        Reply::Fail("rate limited".into()),
    ]);
    let config = MemoryConfig {
        reflection_consolidation_threshold: 2,
        ..config(1, 1_000_000)
    };
    let c = cycle(&store, &llm, &counter, &config);
    save_reflection(&store, "r1", 1).await;
    save_reflection(&store, "r2", 1).await;
    pairs(&store, 0..2).await;
    let report = c.run(KEY).await;
    assert!(report.observation.is_some(), "the observation is kept");
    assert!(report.meta_reflect_error.unwrap().contains("rate limited"));
    assert_eq!(
        store.list_reflections(KEY).await.unwrap().len(),
        2,
        "nothing lost"
    );
    assert_eq!(store.list_observations(KEY).await.unwrap().len(), 1);

    // Normal operation continues: the next trigger consolidates.
    let meta = c.run(KEY).await.meta_reflection.expect("retried");
    assert_eq!(meta.reflection.generation, 2);
    assert_eq!(store.list_reflections(KEY).await.unwrap().len(), 1);
}

#[tokio::test]
async fn events_and_status() {
    let (_dir, store, counter) = store_with_cost(100).await;
    let llm = ScriptedLlm::texts(["note", "summary"]);
    let (tx, mut rx) = tokio::sync::broadcast::channel(32);
    let c = cycle(&store, &llm, &counter, &config(200, 100)).with_events(tx);
    pairs(&store, 0..2).await; // rows 1, 2 observable (u1/a1 stay) → 200

    let status = c.status(KEY).await.unwrap();
    assert_eq!(status.phase, MemoryPhase::Idle);
    assert_eq!(
        (status.unobserved_tokens, status.message_token_threshold),
        (200, 200)
    );
    assert_eq!((status.observations, status.reflections), (0, 0));

    // Runs on another task: the cycle's future is Send.
    let c = Arc::new(c);
    let runner = c.clone();
    let report = tokio::spawn(async move { runner.run(KEY).await })
        .await
        .unwrap();
    assert!(report.observation.is_some() && report.reflection.is_some());

    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            MemoryEvent::Status(s) => format!("status:{:?}", s.phase),
            MemoryEvent::ObservationAdded(_) => "observation".into(),
            MemoryEvent::ReflectionAdded { condensed, .. } => format!("reflection:{condensed}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "status:Observing",
            "observation",
            "status:Reflecting",
            "reflection:1",
            "status:Idle"
        ]
    );
    let status = c.status(KEY).await.unwrap();
    assert_eq!(status.phase, MemoryPhase::Idle);
    assert_eq!(
        (
            status.unobserved_tokens,
            status.observations,
            status.reflections
        ),
        (0, 0, 1)
    );
}

#[tokio::test]
async fn a_memory_reply_far_beyond_its_output_limit_fails_the_cycle_and_archives_nothing() {
    // A model that ignores max_output_tokens and answers with 2 MB.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["x".repeat(2_000_000)]);
    let c = cycle(&store, &llm, &counter, &config(1, 1_000_000)).with_compactor(true);
    pairs(&store, 0..3).await;
    let before = store.list_messages(KEY).await.unwrap();

    let report = c.run(KEY).await;
    assert!(report.observation.is_none());
    let error = report.observe_error.expect("the cycle failed");
    assert!(error.contains("output limit"), "{error}");
    assert_eq!(
        store.list_messages(KEY).await.unwrap(),
        before,
        "nothing archived"
    );
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
    assert_eq!(
        store.observed_through_seq(KEY).await.unwrap(),
        0,
        "retried next trigger"
    );

    // The next trigger with a sane reply observes the same rows.
    let o = c.run(KEY).await.observation.expect("observed on retry");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));
}

#[tokio::test]
async fn a_note_the_memory_section_cannot_show_leaves_its_messages_in_the_history() {
    // Each text costs 10 tokens; a memory budget of 5 can show no note at all.
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["The user asked about u0 and u1."]);
    let config = MemoryConfig {
        memory_token_budget: 5,
        ..config(1, 1_000_000)
    };
    let c = cycle(&store, &llm, &counter, &config).with_compactor(true);
    pairs(&store, 0..3).await;
    let before = store.list_messages(KEY).await.unwrap();

    let o = c.run(KEY).await.observation.expect("the note is kept");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));
    assert_eq!(
        store.list_messages(KEY).await.unwrap(),
        before,
        "the rows stay in the history, uncompacted"
    );
    assert!(store.archived_messages(KEY, 1, 4).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_failed_memory_call_shows_in_the_status_until_a_cycle_succeeds() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::new([Reply::Fail("provider said 503".into())]);
    let c = cycle(&store, &llm, &counter, &config(1, 1_000_000));
    pairs(&store, 0..3).await;

    assert!(c.run(KEY).await.observe_error.is_some());
    // Any process reading the store sees it: a fresh cycle on the same store.
    let other = cycle(&store, &llm, &counter, &config(1, 1_000_000));
    let failure = other.status(KEY).await.unwrap().last_error.expect("kept");
    assert!(failure.error.contains("observing"), "{}", failure.error);
    assert!(
        failure.error.contains("provider said 503"),
        "{}",
        failure.error
    );
    assert!(failure.failed_at > 0);

    c.run(KEY).await.observation.expect("observed on retry");
    assert_eq!(c.status(KEY).await.unwrap().last_error, None);
}
