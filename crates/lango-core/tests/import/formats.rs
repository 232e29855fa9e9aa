//! What a ChatGPT or Claude export becomes: the current branch only, original times and
//! titles, tool activity and attachments as text, notes for images, unicode intact; and a
//! broken file imports nothing.

use lango_core::import::{ImportError, ImportProgress, SkipReason, Source};

use super::*;

#[tokio::test]
async fn a_chatgpt_export_imports_the_current_branch_with_original_times_and_titles() {
    let (_dir, store) = store().await;
    let (summary, events) = import(&store, &fixture("chatgpt.json")).await;
    let summary = summary.expect("import");
    assert_eq!(summary.source, Source::ChatGpt);
    assert_eq!((summary.conversations, summary.created), (3, 2));
    assert_eq!(summary.messages_imported, 4 + 6);

    let key = key_of(&store, "Sourdough starter").await;
    let rows = messages(&store, &key).await;
    let texts: Vec<(&str, &str)> = rows
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("user", "How often should I feed a sourdough starter? 🍞"),
            ("assistant", "Once a day: equal weights of flour and water."),
            (
                "user",
                "شكرا جزيلا — and in Hebrew: תודה רבה, in Chinese: 非常感谢你的帮助, in Thai: ขอบคุณมากครับ, in Hindi: बहुत धन्यवाद"
            ),
            ("assistant", "You're welcome! 😊"),
        ]
    );
    // Original times, in order; the session sorts by its own activity, not the import's.
    let times: Vec<i64> = rows.iter().map(|m| m.created_at).collect();
    assert_eq!(
        times,
        [
            1_700_000_100_000,
            1_700_000_200_000,
            1_700_000_300_000,
            1_700_000_400_500
        ]
    );
    let session = store.get_session(&key).await.unwrap();
    assert_eq!(session.created_at, 1_700_000_000_000);
    assert_eq!(session.updated_at, 1_700_000_400_500);
    // The abandoned branch and the hidden reasoning are nowhere.
    assert!(store
        .search("ABANDONED", None, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .search("secret reasoning", None, 10)
        .await
        .unwrap()
        .is_empty());

    let skipped: Vec<(SkipReason, usize)> = summary
        .skipped_messages
        .iter()
        .map(|s| (s.reason, s.count))
        .collect();
    assert_eq!(
        skipped,
        [
            (SkipReason::HiddenSystemMessage, 2),
            (SkipReason::HiddenMessage, 1),
            (SkipReason::Reasoning, 1),
        ]
    );
    assert_eq!(summary.skipped_conversations.len(), 1);
    assert_eq!(
        summary.skipped_conversations[0].reason,
        SkipReason::EmptyConversation
    );
    assert_eq!(summary.skipped_conversations[0].titles, ["Nothing said"]);
    assert!(matches!(
        events.last(),
        Some(ImportProgress::Writing { done: 3, total: 3 })
    ));
    assert!(events
        .iter()
        .any(|e| matches!(e, ImportProgress::Reading { .. })));
}

#[tokio::test]
async fn chatgpt_tool_activity_and_images_are_kept_as_text() {
    let (_dir, store) = store().await;
    let summary = import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    assert_eq!(summary.notes, 1, "the image");
    // Untitled: named after its first message, without the image note.
    let key = key_of(
        &store,
        "Compute the squares of 0 to 3, like in this picture.",
    )
    .await;
    let rows = messages(&store, &key).await;
    let texts: Vec<&str> = rows.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts[0],
        "[image: file-Plot123]\n\nCompute the squares of 0 to 3, like in this picture."
    );
    assert_eq!(
        texts[1],
        "[tool call: python]\n```python\nprint([x * x for x in range(4)])\n```"
    );
    assert_eq!(texts[2], "[tool result: python]\n```\n[0, 1, 4, 9]\n```");
    assert_eq!(
        texts[3],
        "[tool result: browser]\nSquares: wikipedia says 0, 1, 4, 9"
    );
    let roles: Vec<&str> = rows.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "assistant",
            "assistant",
            "assistant",
            "user"
        ]
    );
    // The hidden custom instructions are not imported.
    assert!(store.search("teacher", None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_claude_export_keeps_tool_use_attachments_and_unicode() {
    let (_dir, store) = store().await;
    let summary = import(&store, &fixture("claude.json")).await.0.unwrap();
    assert_eq!(summary.source, Source::Claude);
    assert_eq!((summary.created, summary.messages_imported), (1, 3));
    assert_eq!(
        summary.skipped_conversations[0].reason,
        SkipReason::EmptyConversation
    );
    let key = key_of(&store, "Trip to Kyoto 🇯🇵").await;
    let rows = messages(&store, &key).await;
    assert_eq!(rows[0].role, "user");
    assert!(rows[0]
        .content
        .contains("[attachment: notes.txt]\n```\nTemples, 抹茶, no rush.\n```"));
    assert!(rows[0].content.ends_with("[file: map.png]"));
    let reply = &rows[1].content;
    assert!(reply.starts_with("[tool call: web_search]"), "{reply}");
    assert!(reply.contains("[tool result: web_search]\nKinkaku-ji opens at 9:00."));
    assert!(reply.ends_with("Day 1: Kinkaku-ji at 9:00, then matcha in Uji."));
    assert!(!reply.contains("hidden chain of thought"));
    assert_eq!(rows[2].content, "מעולה, תודה!");
    assert_eq!(rows[2].created_at, 1_714_554_600_000);
    // Searchable like any message, and marked as imported.
    let hits = store.search("Kinkaku", None, 10).await.unwrap();
    assert!(hits.iter().any(|h| h.session_key == key));
    let origins = store.import_origins().await.unwrap();
    assert_eq!(origins.get(&key).map(String::as_str), Some("claude"));
}

#[tokio::test]
async fn a_malformed_conversation_imports_nothing_and_says_which() {
    let (dir, store) = store().await;
    let mut export = fixture_json("chatgpt.json");
    export[1]["mapping"] = serde_json::json!("not a tree");
    let path = write_json(&dir, "conversations.json", &export);
    let err = import(&store, &path).await.0.unwrap_err();
    match &err {
        ImportError::BadConversation { number, .. } => assert_eq!(*number, 2),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("Nothing was imported"), "{err}");
    assert!(store.list_sessions(10, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_cut_file_or_another_apps_json_imports_nothing() {
    let (dir, store) = store().await;
    let text = std::fs::read_to_string(fixture("claude.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() - 200]).unwrap();
    assert!(matches!(
        import(&store, &cut).await.0.unwrap_err(),
        ImportError::Truncated { .. }
    ));
    let other = write_json(&dir, "other.json", &serde_json::json!([{"messages": []}]));
    let err = import(&store, &other).await.0.unwrap_err();
    assert!(matches!(err, ImportError::NotAnExport { .. }), "{err:?}");
    assert!(err.to_string().contains("not a ChatGPT or Claude export"));
    let missing = import(&store, &dir.path().join("nope.json"))
        .await
        .0
        .unwrap_err();
    assert!(matches!(missing, ImportError::Io { .. }));
    assert!(store.list_sessions(10, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_stopped_import_keeps_whole_conversations_and_says_so() {
    use std::sync::Arc;

    use lango_core::import::import_file;
    use tokio_util::sync::CancellationToken;

    // Stopped before the file is read: nothing at all.
    let (_dir, store) = store().await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = import_file(&store, &fixture("chatgpt.json"), Arc::new(|_| {}), cancel)
        .await
        .unwrap_err();
    assert!(matches!(err, ImportError::Cancelled), "{err:?}");
    assert!(store.list_sessions(10, 0).await.unwrap().is_empty());

    // Stopped once the first conversation is saved: it stays, whole; the rest is not written.
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let summary = import_file(
        &store,
        &fixture("chatgpt.json"),
        Arc::new(move |p| {
            if matches!(p, ImportProgress::Writing { done: 1, .. }) {
                stop.cancel();
            }
        }),
        cancel,
    )
    .await
    .unwrap();
    assert!(summary.cancelled);
    assert_eq!(summary.created, 1);
    let sessions = store.list_sessions(10, 0).await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(messages(&store, &sessions[0].key).await.len(), 4);
}
