use lango_core::store::{NewMessage, StoreError};
use serde_json::json;

use crate::{append_n, temp_store};

#[tokio::test]
async fn create_keeps_the_key_and_get_returns_it() {
    let (_d, store) = temp_store().await;
    let created = store
        .create_session("new-session", "Trip plans")
        .await
        .unwrap();
    assert_eq!(created.key, "new-session");
    assert_eq!(created.title, "Trip plans");
    assert_eq!(store.get_session("new-session").await.unwrap(), created);
}

#[tokio::test]
async fn creating_an_existing_key_is_a_duplicate_error() {
    let (_d, store) = temp_store().await;
    store.create_session("k", "").await.unwrap();
    let err = store.create_session("k", "").await.unwrap_err();
    assert!(
        matches!(err, StoreError::Duplicate { ref key } if key == "k"),
        "{err:?}"
    );
}

#[tokio::test]
async fn get_of_a_missing_session_is_not_found_and_get_or_create_creates_it() {
    let (_d, store) = temp_store().await;
    assert!(matches!(
        store.get_session("nope").await,
        Err(StoreError::NotFound { .. })
    ));
    let s = store.get_or_create_session("nope").await.unwrap();
    assert_eq!(s.key, "nope");
    assert_eq!(store.list_sessions(10, 0).await.unwrap().len(), 1);
}

#[tokio::test]
async fn concurrent_get_or_create_of_a_new_key_all_succeed_with_one_session() {
    let (_d, store) = temp_store().await;
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.get_or_create_session("race-session").await
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap().unwrap().key, "race-session");
    }
    assert_eq!(store.list_sessions(100, 0).await.unwrap().len(), 1);
}

#[tokio::test]
async fn state_round_trips_exactly_and_a_numeric_string_stays_a_string() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let state = json!({"foo": "bar", "n": "123", "obj": {"a": 1}, "list": [1, "2"]});
    store
        .set_session_state("s", state.as_object().unwrap())
        .await
        .unwrap();
    let got = store.get_session("s").await.unwrap().state;
    assert_eq!(serde_json::Value::Object(got), state);

    let delta = json!({"foo": "baz", "new": true});
    store
        .apply_state_delta("s", delta.as_object().unwrap())
        .await
        .unwrap();
    let got = store.get_session("s").await.unwrap().state;
    assert_eq!(got["foo"], "baz");
    assert_eq!(got["n"], "123");
    assert_eq!(got["new"], true);
}

#[tokio::test]
async fn list_shows_pinned_first_then_most_recent_activity_and_pages() {
    let (_d, store) = temp_store().await;
    for key in ["a", "b", "c", "d"] {
        store.create_session(key, key).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    // "a" gets new activity, "c" is pinned.
    store
        .append_message("a", NewMessage::new("user", "hi"))
        .await
        .unwrap();
    store.pin_session("c", true).await.unwrap();

    let keys: Vec<String> = store
        .list_sessions(10, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.key)
        .collect();
    assert_eq!(keys, ["c", "a", "d", "b"]);
    let page2: Vec<String> = store
        .list_sessions(2, 2)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.key)
        .collect();
    assert_eq!(page2, ["d", "b"]);
}

/// Every key of the list, `limit` at a time, each page after the cursor of the one before;
/// `between` runs after the first page.
async fn every_page(
    store: &lango_core::store::Store,
    limit: u32,
    between: impl AsyncFnOnce(),
) -> Vec<String> {
    let (first, mut next) = store.list_sessions_after(limit, None).await.unwrap();
    let mut keys: Vec<String> = first.into_iter().map(|s| s.key).collect();
    between().await;
    while let Some(after) = next {
        let (page, after) = store.list_sessions_after(limit, Some(after)).await.unwrap();
        keys.extend(page.into_iter().map(|s| s.key));
        next = after;
    }
    keys
}

#[tokio::test]
async fn pages_of_the_list_start_where_the_last_ended_and_a_conversation_moving_to_the_top_hides_none(
) {
    let (_d, store) = temp_store().await;
    for i in 0..7 {
        store.create_session(&format!("s{i}"), "").await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    store.pin_session("s1", true).await.unwrap();
    // Pinned first, then the newest activity: s1, s6, s5, s4, s3, s2, s0 — three a page.
    let all = every_page(&store, 3, async || {}).await;
    assert_eq!(all, ["s1", "s6", "s5", "s4", "s3", "s2", "s0"]);

    // After the first page (s1, s6, s5), s2 gets a reply and moves to the top: the pages
    // that follow hold every other conversation once (an offset would list s5 twice:
    // everything above s2's old place shifted down by one).
    let keys = every_page(&store, 3, async || {
        store
            .append_message("s2", NewMessage::new("user", "hi"))
            .await
            .unwrap();
    })
    .await;
    assert_eq!(keys, ["s1", "s6", "s5", "s4", "s3", "s0"]);
    let (top, _) = store.list_sessions_after(3, None).await.unwrap();
    assert_eq!(
        top[1].key, "s2",
        "the list from the top has it first after the pinned"
    );
    // A page as long as what is left says there is no next page once it is empty.
    let (_, next) = store.list_sessions_after(7, None).await.unwrap();
    let (rest, none) = store.list_sessions_after(7, next).await.unwrap();
    assert_eq!((rest.len(), none), (0, None));
}

#[tokio::test]
async fn rename_changes_the_title_and_a_missing_session_is_not_found() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "old").await.unwrap();
    store.rename_session("s", "new title").await.unwrap();
    assert_eq!(store.get_session("s").await.unwrap().title, "new title");
    assert!(matches!(
        store.rename_session("missing", "x").await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn deleting_a_session_removes_its_messages_archive_and_memory_and_leaves_others_untouched() {
    let (_d, store) = temp_store().await;
    for key in ["doomed", "kept"] {
        store.create_session(key, "").await.unwrap();
        append_n(&store, key, 6).await;
        store.compact_messages(key, 2, "summary").await.unwrap();
        crate::memory::save_obs(&store, key, "an observation").await;
        crate::memory::save_refl(&store, key, "a reflection", 1).await;
        store.set_observed_through_seq(key, 3).await.unwrap();
    }
    assert!(store.delete_session("doomed").await.unwrap());
    assert!(
        !store.delete_session("doomed").await.unwrap(),
        "second delete is a no-op"
    );

    assert!(matches!(
        store.get_session("doomed").await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(store.list_observations("doomed").await.unwrap().is_empty());
    assert!(store.list_reflections("doomed").await.unwrap().is_empty());
    assert!(store
        .search("m1", Some("doomed"), 10)
        .await
        .unwrap()
        .is_empty());

    // Recreating the key starts from nothing: no memory leaks into the new session.
    let fresh = store.create_session("doomed", "").await.unwrap();
    assert_eq!(fresh.observed_through_seq, 0);
    assert!(store.list_messages("doomed").await.unwrap().is_empty());
    assert!(store
        .page_messages("doomed", None, 100)
        .await
        .unwrap()
        .is_empty());

    // The other session is intact.
    assert_eq!(store.list_messages("kept").await.unwrap().len(), 4); // summary + m3..m5
    assert_eq!(
        store.page_messages("kept", None, 100).await.unwrap().len(),
        6
    );
    assert_eq!(store.list_observations("kept").await.unwrap().len(), 1);
    assert_eq!(store.list_reflections("kept").await.unwrap().len(), 1);
    assert_eq!(store.observed_through_seq("kept").await.unwrap(), 3);
    assert!(!store
        .search("m1", Some("kept"), 10)
        .await
        .unwrap()
        .is_empty());
}
