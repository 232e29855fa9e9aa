use lango_core::store::{Observation, Reflection, Store, StoreError, SUMMARY_PREFIX};

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

    let (saved, summary) = store
        .record_observation(observation("s", "User plans a trip.", 1, 4), true)
        .await
        .unwrap();
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
async fn recording_an_observation_without_compaction_keeps_every_row_and_never_moves_the_cursor_back(
) {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    crate::append_n(&store, "s", 4).await;
    store
        .record_observation(observation("s", "first", 1, 3), false)
        .await
        .unwrap();
    store
        .record_observation(observation("s", "stale", 1, 2), false)
        .await
        .unwrap();
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
    assert_eq!(store.list_observations("s").await.unwrap().len(), 2);
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
    let gen1 = store
        .record_reflection(r.clone(), &[o1.id, o2.id], &[])
        .await
        .unwrap();
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
