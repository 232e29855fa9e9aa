use lango_core::store::{
    MessageKind, Observation, Recorded, Reflection, Store, StoreError, SUMMARY_PREFIX,
};

use crate::temp_store;

pub async fn save_obs(store: &Store, key: &str, content: &str) -> Observation {
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: key.into(),
            content: content.into(),
            token_count: 3,
            seq_start: 1,
            seq_end: 2,
            created_at: 0,
        })
        .await
        .unwrap()
}

pub async fn save_refl(store: &Store, key: &str, content: &str, generation: i64) -> Reflection {
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: key.into(),
            content: content.into(),
            token_count: 2,
            generation,
            seq_start: 1,
            seq_end: 2,
            source_token_count: 6,
            created_at: 0,
        })
        .await
        .unwrap()
}

fn contents<T>(items: &[T], f: impl Fn(&T) -> &str) -> Vec<String> {
    items.iter().map(|i| f(i).to_string()).collect()
}

// REFERENCE acceptance 53: listing order, isolation, recent(n), delete by ids, by session.
#[tokio::test]
async fn observations_are_listed_oldest_first_and_isolated_per_session() {
    let (_d, store) = temp_store().await;
    store.create_session("a", "").await.unwrap();
    store.create_session("b", "").await.unwrap();
    let o1 = save_obs(&store, "a", "o1").await;
    let o2 = save_obs(&store, "a", "o2").await;
    save_obs(&store, "a", "o3").await;
    save_obs(&store, "b", "other").await;

    assert_eq!(
        contents(&store.list_observations("a").await.unwrap(), |o| &o.content),
        ["o1", "o2", "o3"]
    );
    assert!(store.list_observations("unknown").await.unwrap().is_empty());
    assert_eq!(
        contents(&store.list_observations("b").await.unwrap(), |o| &o.content),
        ["other"]
    );
    assert_eq!(store.get_observation(&o1.id).await.unwrap().content, "o1");
    assert!(matches!(
        store.get_observation("missing").await,
        Err(StoreError::NotFound { .. })
    ));

    assert_eq!(store.delete_observations(&[o1.id, o2.id]).await.unwrap(), 2);
    assert_eq!(
        contents(&store.list_observations("a").await.unwrap(), |o| &o.content),
        ["o3"]
    );
    store.delete_observations_by_session("a").await.unwrap();
    assert!(store.list_observations("a").await.unwrap().is_empty());
    assert_eq!(store.list_observations("b").await.unwrap().len(), 1);
    store.delete_observations_by_session("").await.unwrap();
}

// spec 002, Requirement: Recent observations retrieval — Scenario: Retrieve limited recent observations
#[tokio::test]
async fn retrieve_limited_recent_observations() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    for c in ["o1", "o2", "o3"] {
        save_obs(&store, "s", c).await;
    }
    assert_eq!(
        contents(
            &store.list_recent_observations("s", 2).await.unwrap(),
            |o| &o.content
        ),
        ["o2", "o3"]
    );
    assert_eq!(
        store.list_recent_observations("s", 0).await.unwrap().len(),
        3,
        "0 means all"
    );
}

// spec 002, Requirement: Recent reflections retrieval — Scenario: Retrieve limited recent reflections
#[tokio::test]
async fn retrieve_limited_recent_reflections() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    for c in ["r1", "r2", "r3", "r4"] {
        save_refl(&store, "s", c, 1).await;
    }
    assert_eq!(
        contents(&store.list_recent_reflections("s", 3).await.unwrap(), |r| {
            &r.content
        }),
        ["r2", "r3", "r4"]
    );
}

// spec 002, Requirement: Delete reflections by session — Scenario: Delete all reflections for a session
#[tokio::test]
async fn delete_all_reflections_for_a_session() {
    let (_d, store) = temp_store().await;
    store.create_session("a", "").await.unwrap();
    store.create_session("b", "").await.unwrap();
    save_refl(&store, "a", "ra1", 1).await;
    save_refl(&store, "a", "ra2", 2).await;
    save_refl(&store, "b", "rb", 1).await;
    assert_eq!(store.delete_reflections_by_session("a").await.unwrap(), 2);
    assert!(store.list_reflections("a").await.unwrap().is_empty());
    assert_eq!(
        contents(&store.list_reflections("b").await.unwrap(), |r| &r.content),
        ["rb"]
    );
}

// spec 002, Requirement: Delete reflections by session — Scenario: Delete from empty session
#[tokio::test]
async fn delete_from_empty_session() {
    let (_d, store) = temp_store().await;
    store.create_session("empty", "").await.unwrap();
    assert_eq!(
        store.delete_reflections_by_session("empty").await.unwrap(),
        0
    );
    assert_eq!(
        store
            .delete_reflections_by_session("no-such-session")
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn reflections_keep_generation_and_what_they_condensed() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let r = save_refl(&store, "s", "gen two", 2).await;
    let listed = store.list_reflections("s").await.unwrap();
    assert_eq!(listed, vec![r]);
    assert_eq!((listed[0].generation, listed[0].source_token_count), (2, 6));
}

#[tokio::test]
async fn an_edited_observation_is_what_later_reads_return() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let o = save_obs(&store, "s", "user likes Go").await;
    store
        .update_observation(&o.id, "user likes Rust", 4)
        .await
        .unwrap();
    let got = store.get_observation(&o.id).await.unwrap();
    assert_eq!(
        (got.content.as_str(), got.token_count),
        ("user likes Rust", 4)
    );
    assert_eq!(store.search("Rust", Some("s"), 5).await.unwrap().len(), 1);
    assert!(store.search("Go", Some("s"), 5).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_memory_cursor_is_durable_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        let store = Store::open(&path).await.unwrap();
        store.create_session("s", "").await.unwrap();
        assert_eq!(store.observed_through_seq("s").await.unwrap(), 0);
        store.set_observed_through_seq("s", 42).await.unwrap();
        store.close().await;
    }
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.observed_through_seq("s").await.unwrap(), 42);
}

fn observation(key: &str, content: &str, start: i64, end: i64) -> Observation {
    Observation {
        id: String::new(),
        session_key: key.into(),
        content: content.into(),
        token_count: 5,
        seq_start: start,
        seq_end: end,
        created_at: 0,
    }
}

#[tokio::test]
async fn recording_an_observation_moves_the_cursor_and_compacts_exactly_the_covered_rows() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    crate::append_n(&store, "s", 6).await; // seq 1..=6
    assert_eq!(store.list_messages_after("s", 0).await.unwrap().len(), 6);

    let Recorded::Saved((saved, summary)) = store
        .record_observation(observation("s", "User plans a trip.", 1, 4), true)
        .await
        .unwrap()
    else {
        panic!("the first observation of these rows is saved");
    };
    assert!(!saved.id.is_empty());
    assert_eq!(store.observed_through_seq("s").await.unwrap(), 4);
    let history: Vec<String> = store
        .list_messages("s")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(
        history,
        [
            format!("{SUMMARY_PREFIX}User plans a trip."),
            "m4".into(),
            "m5".into()
        ]
    );
    assert_eq!(
        summary.unwrap().seq,
        4,
        "the summary sorts just before the first kept row"
    );
    let archived: Vec<String> = store
        .archived_messages("s", 1, 4)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(archived, ["m0", "m1", "m2", "m3"]);
    // What is left to observe: the rows after the cursor.
    let rest: Vec<String> = store
        .list_messages_after("s", 4)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(rest, ["m4", "m5"]);
}

#[tokio::test]
async fn recording_an_observation_without_compaction_keeps_every_row_and_drops_an_already_observed_range(
) {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    crate::append_n(&store, "s", 4).await;
    let first = store
        .record_observation(observation("s", "first", 1, 3), false)
        .await
        .unwrap();
    assert!(matches!(first, Recorded::Saved(_)));
    let stale = store
        .record_observation(observation("s", "stale", 1, 2), false)
        .await
        .unwrap();
    assert_eq!(stale, Recorded::Stale, "rows 1..=2 were observed already");
    assert_eq!(store.observed_through_seq("s").await.unwrap(), 3);
    assert_eq!(store.list_messages("s").await.unwrap().len(), 4);
    let err = store
        .record_observation(observation("s", "   ", 4, 4), false)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Constraint(_)),
        "an empty reply saves nothing: {err:?}"
    );
    assert_eq!(
        contents(&store.list_observations("s").await.unwrap(), |o| &o.content),
        ["first"]
    );
}

#[tokio::test]
async fn recording_a_reflection_deletes_exactly_what_it_condensed_in_the_same_transaction() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let o1 = save_obs(&store, "s", "o1").await;
    let o2 = save_obs(&store, "s", "o2").await;
    let o3 = save_obs(&store, "s", "o3").await;
    let r = Reflection {
        id: String::new(),
        session_key: "s".into(),
        content: "condensed".into(),
        token_count: 1,
        generation: 1,
        seq_start: 1,
        seq_end: 2,
        source_token_count: 6,
        created_at: 0,
    };
    let Recorded::Saved(gen1) = store
        .record_reflection(r.clone(), &[o1.id, o2.id], &[])
        .await
        .unwrap()
    else {
        panic!("its sources exist: the reflection is saved");
    };
    assert_eq!(
        contents(&store.list_observations("s").await.unwrap(), |o| &o.content),
        ["o3"]
    );
    let old = save_refl(&store, "s", "older", 1).await;
    let meta = Reflection {
        generation: 2,
        content: "meta".into(),
        ..r
    };
    store
        .record_reflection(meta, &[], &[gen1.id.clone(), old.id.clone()])
        .await
        .unwrap();
    let left: Vec<(String, i64)> = store
        .list_reflections("s")
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.content, r.generation))
        .collect();
    assert_eq!(left, [("meta".to_string(), 2)]);
    assert_eq!(store.list_observations("s").await.unwrap()[0].id, o3.id);
}

#[tokio::test]
async fn a_reflection_whose_sources_were_condensed_elsewhere_is_dropped_and_deletes_nothing() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let o1 = save_obs(&store, "s", "o1").await;
    let o2 = save_obs(&store, "s", "o2").await;
    let reflection = |content: &str| Reflection {
        id: String::new(),
        session_key: "s".into(),
        content: content.into(),
        token_count: 1,
        generation: 1,
        seq_start: 1,
        seq_end: 2,
        source_token_count: 6,
        created_at: 0,
    };
    let sources = [o1.id.clone(), o2.id.clone()];
    // Two processes read [o1, o2] and asked their models; the first one saves.
    let winner = store
        .record_reflection(reflection("winner"), &sources, &[])
        .await
        .unwrap();
    assert!(matches!(winner, Recorded::Saved(_)));
    let o3 = save_obs(&store, "s", "o3").await;
    let loser = store
        .record_reflection(reflection("loser"), &[o1.id, o3.id], &[])
        .await
        .unwrap();
    assert_eq!(loser, Recorded::Stale);
    assert_eq!(
        contents(&store.list_reflections("s").await.unwrap(), |r| &r.content),
        ["winner"]
    );
    assert_eq!(
        contents(&store.list_observations("s").await.unwrap(), |o| &o.content),
        ["o3"],
        "the stale reflection deleted nothing"
    );
}

/// Two opens of one file are what two processes (the app and the CLI) see.
async fn two_handles() -> (tempfile::TempDir, Store, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    let a = Store::open(&path).await.unwrap();
    let b = Store::open(&path).await.unwrap();
    (dir, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_observing_the_same_rows_at_once_store_one_observation_and_one_summary() {
    for round in 0..5 {
        let (_d, a, b) = two_handles().await;
        a.create_session("s", "").await.unwrap();
        crate::append_n(&a, "s", 6).await;
        // Both read cursor 0 and asked their models about rows 1..=4; now both record.
        let (ra, rb) = tokio::join!(
            a.record_observation(observation("s", "from a", 1, 4), true),
            b.record_observation(observation("s", "from b", 1, 4), true),
        );
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        let saved = [&ra, &rb]
            .iter()
            .filter(|r| matches!(r, Recorded::Saved(_)))
            .count();
        assert_eq!(saved, 1, "round {round}: exactly one wins: {ra:?} / {rb:?}");
        assert_eq!(a.list_observations("s").await.unwrap().len(), 1);
        let history = b.list_messages("s").await.unwrap();
        let summaries = history
            .iter()
            .filter(|m| m.kind == MessageKind::Summary)
            .count();
        assert_eq!(summaries, 1, "round {round}: {history:?}");
        assert!(
            b.archived_messages("s", 0, i64::MAX)
                .await
                .unwrap()
                .iter()
                .all(|m| m.kind == MessageKind::Message),
            "no summary was archived by a second compaction"
        );
        assert_eq!(b.observed_through_seq("s").await.unwrap(), 4);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_writes_of_two_processes_at_once_wait_for_each_other_instead_of_failing_busy() {
    let (_d, a, b) = two_handles().await;
    a.create_session("a", "").await.unwrap();
    b.create_session("b", "").await.unwrap();
    // Each process runs memory cycles on its own conversation. A write transaction that read
    // before asking for the lock would fail at once when the other one wrote meanwhile
    // (SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT), whatever the busy timeout.
    let cycles = |store: Store, key: &'static str| async move {
        for seq in 1..=100 {
            store
                .record_observation(observation(key, "note", seq, seq), true)
                .await
                .map_err(|e| format!("{key}: observation {seq} failed: {e}"))?;
        }
        Ok::<_, String>(())
    };
    let (ra, rb) = tokio::join!(
        tokio::spawn(cycles(a.clone(), "a")),
        tokio::spawn(cycles(b.clone(), "b"))
    );
    ra.unwrap().unwrap();
    rb.unwrap().unwrap();
    assert_eq!(a.list_observations("a").await.unwrap().len(), 100);
    assert_eq!(a.list_observations("b").await.unwrap().len(), 100);
}
