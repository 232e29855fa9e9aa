use lango_core::store::{NewMessage, SearchHitKind};

use crate::{append_n, temp_store};

#[tokio::test]
async fn full_text_search_finds_messages_across_sessions_ranked_and_filtered() {
    let (_d, store) = temp_store().await;
    store
        .create_session("rust", "Rust questions")
        .await
        .unwrap();
    store.create_session("cooking", "Dinner").await.unwrap();
    store
        .append_message(
            "rust",
            NewMessage::new("user", "How does the borrow checker work?"),
        )
        .await
        .unwrap();
    store
        .append_message(
            "rust",
            NewMessage::new("assistant", "The borrow checker enforces ownership."),
        )
        .await
        .unwrap();
    store
        .append_message(
            "cooking",
            NewMessage::new("user", "Can I borrow your pan recipe?"),
        )
        .await
        .unwrap();

    let hits = store.search("borrow", None, 10).await.unwrap();
    assert_eq!(hits.len(), 3);
    assert!(hits.iter().all(|h| h.kind == SearchHitKind::Message));
    assert!(
        hits[0].snippet.contains("[borrow]"),
        "{:?}",
        hits[0].snippet
    );

    let only_rust = store.search("borrow", Some("rust"), 10).await.unwrap();
    assert_eq!(only_rust.len(), 2);
    assert!(only_rust
        .iter()
        .all(|h| h.session_key == "rust" && h.session_title == "Rust questions"));

    // Prefix of the last word, words in any order, punctuation harmless.
    assert_eq!(
        store.search("checker bor", None, 10).await.unwrap().len(),
        2
    );
    assert!(store.search("\"(*", None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn archived_messages_and_memory_stay_searchable() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    store
        .append_message("s", NewMessage::new("user", "my cat is called Zorro"))
        .await
        .unwrap();
    append_n(&store, "s", 3).await;
    store
        .compact_messages("s", 2, "user has a cat")
        .await
        .unwrap();
    crate::memory::save_obs(&store, "s", "The user owns a cat named Zorro").await;
    crate::memory::save_refl(&store, "s", "Zorro the cat matters to the user", 1).await;

    let hits = store.search("zorro", None, 10).await.unwrap();
    let mut kinds: Vec<(SearchHitKind, bool)> = hits.iter().map(|h| (h.kind, h.archived)).collect();
    kinds.sort_by_key(|(k, _)| *k as u8);
    assert_eq!(
        kinds,
        [
            (SearchHitKind::Message, true),
            (SearchHitKind::Observation, false),
            (SearchHitKind::Reflection, false)
        ]
    );
    let message = hits
        .iter()
        .find(|h| h.kind == SearchHitKind::Message)
        .unwrap();
    assert_eq!(message.seq, Some(1));
    // The summary row itself is not a search result.
    assert!(store
        .search("Compacted", None, 10)
        .await
        .unwrap()
        .is_empty());
}
