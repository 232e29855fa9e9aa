//! Find in a conversation (the chat's Ctrl+F).

use lango_core::store::NewMessage;

use super::temp_store;

async fn seed(store: &lango_core::store::Store, key: &str, texts: &[&str]) -> Vec<i64> {
    store.create_session(key, "").await.unwrap();
    let mut seqs = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let m = store
            .append_message(key, NewMessage::new(role, *text))
            .await
            .unwrap();
        seqs.push(m.seq);
    }
    seqs
}

#[tokio::test]
async fn find_matches_any_part_of_a_word_case_insensitively_oldest_first() {
    let (_d, store) = temp_store().await;
    let seqs = seed(
        &store,
        "s",
        &[
            "The Borrow checker",
            "no match here",
            "borrowing rules, e.g. `&mut`",
            "Re-borrow!",
        ],
    )
    .await;
    let found = store.find_in_session("s", "BORROW").await.unwrap();
    assert_eq!(found.seqs, [seqs[0], seqs[2], seqs[3]]);
    assert!(!found.truncated);
    // Punctuation and code are found as typed (not the search index's words).
    let code = store.find_in_session("s", "`&mut`").await.unwrap();
    assert_eq!(code.seqs, [seqs[2]]);
}

#[tokio::test]
async fn find_stays_in_its_conversation_and_blank_text_finds_nothing() {
    let (_d, store) = temp_store().await;
    let a = seed(&store, "a", &["shared word", "other"]).await;
    seed(&store, "b", &["shared word too"]).await;
    assert_eq!(
        store.find_in_session("a", "shared").await.unwrap().seqs,
        [a[0]]
    );
    assert!(store
        .find_in_session("a", "   ")
        .await
        .unwrap()
        .seqs
        .is_empty());
}

#[tokio::test]
async fn find_includes_messages_compaction_archived_but_not_the_summary() {
    let (_d, store) = temp_store().await;
    let seqs = seed(&store, "s", &["alpha one", "beta", "alpha two", "gamma"]).await;
    store
        .compact_messages("s", 2, "alpha summarised")
        .await
        .unwrap();
    let found = store.find_in_session("s", "alpha").await.unwrap();
    assert_eq!(
        found.seqs,
        [seqs[0], seqs[2]],
        "the archived rows are found, the summary row is not a message of the list"
    );
}
