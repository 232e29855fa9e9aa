use lango_core::store::{MessageKind, StoreError, SUMMARY_PREFIX};

use crate::{append_n, temp_store};

// spec 002, Requirement: Session store CompactMessages — Scenario: Compact messages
#[tokio::test]
async fn compact_messages() {
    let (_d, store) = temp_store().await;
    store.create_session("session:123", "").await.unwrap();
    append_n(&store, "session:123", 8).await;
    let summary = store
        .compact_messages("session:123", 5, "User discussed weather")
        .await
        .unwrap();

    let history = store.list_messages("session:123").await.unwrap();
    let texts: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            &format!("{SUMMARY_PREFIX}User discussed weather"),
            "m6",
            "m7"
        ]
    );
    assert_eq!(history[0], summary);
    assert_eq!(summary.kind, MessageKind::Summary);
    assert_eq!(summary.role, "system");
    assert!(
        summary.seq < history[1].seq,
        "the summary sorts before every remaining row"
    );

    // The compacted rows are not destroyed: they are archived, viewable by seq range.
    let archived = store.archived_messages("session:123", 1, 6).await.unwrap();
    let archived_texts: Vec<&str> = archived.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(archived_texts, ["m0", "m1", "m2", "m3", "m4", "m5"]);
    assert!(archived.iter().all(|m| m.archived));
}

// spec 002, Requirement: Session store CompactMessages — Scenario: Compact with no messages to delete
#[tokio::test]
async fn compact_with_no_messages_to_delete() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 3).await;
    store.compact_messages("s", 0, "nothing yet").await.unwrap();
    let history = store.list_messages("s").await.unwrap();
    assert_eq!(history.len(), 4);
    assert_eq!(history[0].content, format!("{SUMMARY_PREFIX}nothing yet"));
    assert_eq!(history[1].content, "m0");

    // Also on an empty session.
    store.create_session("empty", "").await.unwrap();
    store.compact_messages("empty", 0, "s").await.unwrap();
    assert_eq!(store.list_messages("empty").await.unwrap().len(), 1);
}

#[tokio::test]
async fn compacting_past_the_end_of_the_history_is_out_of_range_and_changes_nothing() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 8).await;
    let err = store.compact_messages("s", 8, "x").await.unwrap_err();
    assert!(
        matches!(err, StoreError::OutOfRange { index: 8, len: 8 }),
        "{err:?}"
    );
    assert_eq!(store.list_messages("s").await.unwrap().len(), 8);
    assert!(store
        .archived_messages("s", 0, 100)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_second_compaction_archives_the_earlier_summary_and_the_new_one_sorts_first() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 6).await;
    store.compact_messages("s", 2, "one").await.unwrap(); // [S1, m3, m4, m5]
    append_n(&store, "s", 2).await; // [S1, m3, m4, m5, m0', m1']
    store.compact_messages("s", 2, "two").await.unwrap(); // archives S1, m3, m4
    let texts: Vec<String> = store
        .list_messages("s")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(
        texts,
        [
            format!("{SUMMARY_PREFIX}two"),
            "m5".into(),
            "m0".into(),
            "m1".into()
        ]
    );
}

#[tokio::test]
async fn messages_appended_after_compaction_sort_after_the_summary() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 4).await;
    store.compact_messages("s", 3, "all four").await.unwrap();
    append_n(&store, "s", 1).await;
    let history = store.list_messages("s").await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].kind, MessageKind::Summary);
    assert_eq!(history[1].content, "m0");
}

#[tokio::test]
async fn a_replys_model_and_tokens_stay_with_it_when_compaction_archives_it() {
    use lango_core::store::{NewMessage, ReplyInfo};
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let reply = ReplyInfo {
        provider: "local".into(),
        model: "llama3.2".into(),
        input_tokens: Some(120),
        output_tokens: Some(8),
        cost: None,
    };
    store
        .append_message("s", NewMessage::new("user", "hi"))
        .await
        .unwrap();
    let stored = store
        .append_message(
            "s",
            NewMessage {
                reply: Some(reply.clone()),
                ..NewMessage::new("assistant", "hello")
            },
        )
        .await
        .unwrap();
    assert_eq!(stored.reply.as_ref(), Some(&reply));
    append_n(&store, "s", 4).await;
    store.compact_messages("s", 2, "greetings").await.unwrap();

    let archived = store.archived_messages("s", 1, 2).await.unwrap();
    assert_eq!(archived[1].reply.as_ref(), Some(&reply));
    assert_eq!(store.replies_of("s").await.unwrap(), [reply]);
    assert!(store
        .replies_of("no such conversation")
        .await
        .unwrap()
        .is_empty());
}
