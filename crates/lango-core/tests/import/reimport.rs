//! Importing again adds no duplicates: unchanged conversations are left alone, a grown one
//! gets only its new messages, and one that changed in the source or was continued in Lango
//! is left as it is (and the summary says why).

use lango_core::import::SkipReason;
use lango_core::store::NewMessage;
use serde_json::{json, Value};

use super::*;

/// The ChatGPT fixture with one more exchange after the current node of its first
/// conversation.
fn grown() -> Value {
    let mut export = fixture_json("chatgpt.json");
    let conv = &mut export[0];
    conv["mapping"]["n-5"]["children"] = json!(["n-6"]);
    conv["mapping"]["n-6"] = json!({"id": "n-6", "parent": "n-5", "children": ["n-7"],
        "message": {"id": "m-6", "author": {"role": "user"}, "create_time": 1700000500.0,
            "content": {"content_type": "text", "parts": ["And rye flour?"]}, "metadata": {}}});
    conv["mapping"]["n-7"] = json!({"id": "n-7", "parent": "n-6", "children": [],
        "message": {"id": "m-7", "author": {"role": "assistant"}, "create_time": 1700000600.0,
            "content": {"content_type": "text", "parts": ["Rye works too."]}, "metadata": {}}});
    conv["current_node"] = json!("n-7");
    export
}

fn skipped(summary: &ImportSummary, reason: SkipReason) -> &lango_core::import::SkipCount {
    summary
        .skipped_conversations
        .iter()
        .find(|s| s.reason == reason)
        .unwrap_or_else(|| panic!("nothing skipped for {reason:?}: {summary:?}"))
}

#[tokio::test]
async fn importing_the_same_file_twice_adds_nothing() {
    let (_dir, store) = store().await;
    let path = fixture("chatgpt.json");
    import(&store, &path).await.0.unwrap();
    let before = store.list_sessions(10, 0).await.unwrap();
    let again = import(&store, &path).await.0.unwrap();
    assert_eq!((again.created, again.updated, again.unchanged), (0, 0, 2));
    assert_eq!(again.messages_imported, 0);
    assert_eq!(store.list_sessions(10, 0).await.unwrap(), before);
    let key = key_of(&store, "Sourdough starter").await;
    assert_eq!(messages(&store, &key).await.len(), 4);
    // Imported yesterday, memory wanted today: the same file again offers to build it.
    let mut offered = again.sessions.clone();
    offered.sort();
    let mut all: Vec<String> = before.iter().map(|s| s.key.clone()).collect();
    all.sort();
    assert_eq!(offered, all);
}

#[tokio::test]
async fn a_grown_conversation_gets_only_its_new_messages() {
    let (dir, store) = store().await;
    import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    let path = write_json(&dir, "conversations.json", &grown());
    let summary = import(&store, &path).await.0.unwrap();
    assert_eq!(
        (summary.created, summary.updated, summary.unchanged),
        (0, 1, 1)
    );
    assert_eq!(summary.messages_imported, 2);
    let key = key_of(&store, "Sourdough starter").await;
    let rows = messages(&store, &key).await;
    let texts: Vec<&str> = rows.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts.len(), 6);
    assert_eq!(
        &texts[3..],
        ["You're welcome! 😊", "And rye flour?", "Rye works too."]
    );
    assert!(rows.windows(2).all(|w| w[0].seq < w[1].seq));
    // Both are offered for building memory: the grown one and the one left as it was.
    assert_eq!(summary.sessions.len(), 2);
    assert!(summary.sessions.contains(&key));
}

#[tokio::test]
async fn a_conversation_continued_in_lango_is_not_appended_to() {
    let (dir, store) = store().await;
    import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    let key = key_of(&store, "Sourdough starter").await;
    store
        .append_message(&key, NewMessage::new("user", "Asked in Lango"))
        .await
        .unwrap();
    let path = write_json(&dir, "conversations.json", &grown());
    let summary = import(&store, &path).await.0.unwrap();
    assert_eq!(summary.updated, 0);
    let skipped = skipped(&summary, SkipReason::ContinuedInLango);
    assert_eq!(
        (skipped.count, &skipped.titles[..]),
        (1, &["Sourdough starter".to_owned()][..])
    );
    let last = messages(&store, &key).await.pop().unwrap();
    assert_eq!(last.content, "Asked in Lango");
}

#[tokio::test]
async fn a_conversation_whose_branch_changed_in_the_source_is_left_as_it_was() {
    let (dir, store) = store().await;
    import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    let mut export = fixture_json("chatgpt.json");
    // The user went back to the other answer in ChatGPT.
    export[0]["current_node"] = json!("n-2a");
    let path = write_json(&dir, "conversations.json", &export);
    let summary = import(&store, &path).await.0.unwrap();
    assert_eq!(skipped(&summary, SkipReason::ChangedSinceImport).count, 1);
    let key = key_of(&store, "Sourdough starter").await;
    assert_eq!(messages(&store, &key).await.len(), 4);
    assert!(store
        .search("ABANDONED", None, 10)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_deleted_import_can_be_imported_again() {
    let (_dir, store) = store().await;
    import(&store, &fixture("claude.json")).await.0.unwrap();
    let key = key_of(&store, "Trip to Kyoto 🇯🇵").await;
    store.delete_session(&key).await.unwrap();
    let summary = import(&store, &fixture("claude.json")).await.0.unwrap();
    assert_eq!(summary.created, 1);
    assert_eq!(
        messages(&store, &key_of(&store, "Trip to Kyoto 🇯🇵").await)
            .await
            .len(),
        3
    );
}
