use std::collections::HashSet;

use lango_core::store::{MessageStatus, NewMessage, StoreError, ToolCall};

use crate::{append_n, temp_store, temp_store_with_cost};

#[tokio::test]
async fn appended_messages_round_trip_with_tool_call_json() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let call = ToolCall {
        id: "tc-1".into(),
        name: "exec".into(),
        input: r#"{"cmd":"ls"}"#.into(),
        output: String::new(),
        thought: true,
        thought_signature: "AQL//gCr".into(),
        meta: None,
    };
    let mut assistant = NewMessage::new("assistant", "Running");
    assistant.author = "lango-agent".into();
    assistant.tool_calls = vec![call.clone()];
    let stored = store.append_message("s", assistant).await.unwrap();

    let response = ToolCall {
        id: "tc-1".into(),
        name: "exec".into(),
        output: "file.txt".into(),
        ..Default::default()
    };
    let mut tool = NewMessage::new("tool", "file.txt");
    tool.tool_calls = vec![response.clone()];
    store.append_message("s", tool).await.unwrap();

    let all = store.list_messages("s").await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0], stored);
    assert_eq!(all[0].tool_calls, vec![call]);
    assert_eq!(all[0].author, "lango-agent");
    assert_eq!(all[1].tool_calls, vec![response]);
    assert!(all[0].seq < all[1].seq);
}

#[tokio::test]
async fn tool_call_json_uses_the_reference_field_names_and_omits_empty_fields() {
    let call = ToolCall {
        id: "a".into(),
        name: "n".into(),
        input: "{}".into(),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_string(&call).unwrap(),
        r#"{"id":"a","name":"n","input":"{}"}"#
    );
    let thought = ToolCall {
        thought: true,
        thought_signature: "c2ln".into(),
        ..call
    };
    assert_eq!(
        serde_json::to_string(&thought).unwrap(),
        r#"{"id":"a","name":"n","input":"{}","thought":true,"thoughtSignature":"c2ln"}"#
    );
}

#[tokio::test]
async fn appending_to_a_missing_session_is_not_found() {
    let (_d, store) = temp_store().await;
    let err = store
        .append_message("ghost", NewMessage::new("user", "hi"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn an_append_bumps_updated_at() {
    let (_d, store) = temp_store().await;
    let before = store.create_session("s", "").await.unwrap().updated_at;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    store
        .append_message("s", NewMessage::new("user", "hi"))
        .await
        .unwrap();
    assert!(store.get_session("s").await.unwrap().updated_at > before);
}

#[tokio::test]
async fn seq_is_unique_and_ordered_under_concurrent_appends_from_two_tasks() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let spawn = |tag: &'static str| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut seqs = Vec::new();
            for i in 0..200 {
                let m = store
                    .append_message("s", NewMessage::new("user", format!("{tag}{i}")))
                    .await
                    .unwrap();
                seqs.push(m.seq);
            }
            seqs
        })
    };
    let (a, b) = (spawn("a"), spawn("b"));
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    // Each task sees its own appends in increasing seq order.
    assert!(a.windows(2).all(|w| w[0] < w[1]));
    assert!(b.windows(2).all(|w| w[0] < w[1]));
    let all: HashSet<i64> = a.iter().chain(b.iter()).copied().collect();
    assert_eq!(all.len(), 400, "no seq was handed out twice");
    let listed = store.list_messages("s").await.unwrap();
    assert_eq!(listed.len(), 400);
    assert!(listed.windows(2).all(|w| w[0].seq < w[1].seq));
    // Within each task, stored order matches append order.
    let a_texts: Vec<&str> = listed
        .iter()
        .map(|m| m.content.as_str())
        .filter(|c| c.starts_with('a'))
        .collect();
    let expected: Vec<String> = (0..200).map(|i| format!("a{i}")).collect();
    assert_eq!(a_texts, expected);
}

#[tokio::test]
async fn update_message_finishes_a_streamed_reply_in_place() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let mut partial = NewMessage::new("assistant", "Hel");
    partial.status = MessageStatus::Partial;
    let m = store.append_message("s", partial).await.unwrap();
    store
        .update_message(m.id, "Hello", &[], MessageStatus::Interrupted)
        .await
        .unwrap();
    let got = &store.list_messages("s").await.unwrap()[0];
    assert_eq!(
        (got.seq, got.content.as_str(), got.status),
        (m.seq, "Hello", MessageStatus::Interrupted)
    );
}

// REFERENCE acceptance 38, against the store's tail load (cost N per message).
#[tokio::test]
async fn history_tail_keeps_the_newest_messages_that_fit_the_budget() {
    let (_d, store) = temp_store_with_cost(4).await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 150).await;
    let all = store.load_history_tail("s", 32_000).await.unwrap();
    assert_eq!(all.messages.len(), 150);
    assert!(!all.truncated);
    let tail = store.load_history_tail("s", 30).await.unwrap();
    assert_eq!(tail.messages.len(), 7);
    assert!(tail.truncated);
    assert_eq!(tail.messages.last().unwrap().content, "m149");
    assert_eq!(tail.messages.first().unwrap().content, "m143");
    assert_eq!(tail.total_tokens, 28);
}

#[tokio::test]
async fn history_tail_always_keeps_the_newest_message_even_over_budget() {
    let (_d, store) = temp_store_with_cost(10_000).await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 3).await;
    let tail = store.load_history_tail("s", 10).await.unwrap();
    assert_eq!(tail.messages.len(), 1);
    assert_eq!(tail.messages[0].content, "m2");
    store.create_session("empty", "").await.unwrap();
    assert!(store
        .load_history_tail("empty", 10)
        .await
        .unwrap()
        .messages
        .is_empty());
}

#[tokio::test]
async fn history_tail_spans_several_read_pages() {
    let (_d, store) = temp_store_with_cost(1).await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 700).await;
    let tail = store.load_history_tail("s", 300).await.unwrap();
    assert_eq!(tail.messages.len(), 300);
    assert_eq!(tail.messages[0].content, "m400");
    assert!(tail.messages.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[tokio::test]
async fn paging_walks_the_whole_history_including_archived_rows() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    append_n(&store, "s", 25).await;
    store.compact_messages("s", 9, "first ten").await.unwrap();
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = store.page_messages("s", before, 7).await.unwrap();
        if page.is_empty() {
            break;
        }
        before = Some(page[0].seq);
        let mut texts: Vec<(String, bool)> =
            page.into_iter().map(|m| (m.content, m.archived)).collect();
        texts.extend(seen);
        seen = texts;
    }
    let expected: Vec<(String, bool)> = (0..25).map(|i| (format!("m{i}"), i < 10)).collect();
    assert_eq!(seen, expected);
}

/// Appends run inline on their own connection and never wait there; when another process
/// holds the write lock, the append waits for it (like every other write) instead of failing.
#[tokio::test]
async fn append_waits_for_another_process_holding_the_write_lock() {
    use sqlx::Connection as _;

    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let url = format!("sqlite://{}", dir.path().join("lango.db").display());
    let mut other = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();

    let appending = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .append_message("s", NewMessage::new("user", "waited for the lock"))
                .await
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!appending.is_finished(), "the lock is still held");

    sqlx::query("COMMIT").execute(&mut other).await.unwrap();
    let appended = appending.await.unwrap().expect("the append went through");
    assert_eq!(appended.seq, 1);
    assert_eq!(store.list_messages("s").await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_large_tool_result_is_kept_beside_its_row_and_read_whole_only_when_asked() {
    use lango_core::store::{ToolCallMeta, HEAD_BYTES, INLINE_RESULT_BYTES};
    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    store
        .append_message("s", NewMessage::new("user", "read it"))
        .await
        .unwrap();
    // A 2 MB file read: its whole result for the card, a cut copy for the prompt.
    let whole = format!(
        "{{\"content\":\"{}\"}}",
        "line of the file\\n".repeat(120_000)
    );
    let call = ToolCall {
        id: "c1".into(),
        name: "files__read_text_file".into(),
        output: "the prompt's cut copy".into(),
        meta: Some(ToolCallMeta {
            full_output: Some(whole.clone()),
            ..ToolCallMeta::default()
        }),
        ..ToolCall::default()
    };
    let small = ToolCall {
        id: "c2".into(),
        name: "files__list".into(),
        output: "a.txt".into(),
        meta: Some(ToolCallMeta {
            full_output: Some("a.txt, b.txt".into()),
            ..ToolCallMeta::default()
        }),
        ..ToolCall::default()
    };
    let mut tool = NewMessage::new("tool", "the prompt's cut copy\na.txt");
    tool.tool_calls = vec![call.clone(), small.clone()];
    let stored = store.append_message("s", tool).await.unwrap();
    assert_eq!(
        stored.tool_calls,
        vec![call.clone(), small.clone()],
        "the live message is whole"
    );

    // What every page, history tail and inspection reads holds the result's start only.
    let raw = rusqlite::Connection::open(dir.path().join("lango.db")).unwrap();
    let (calls_bytes, results_bytes): (i64, i64) = raw
        .query_row(
            "SELECT length(CAST(tool_calls AS BLOB)), length(CAST(tool_results AS BLOB)) FROM messages WHERE id = ?1",
            [stored.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        calls_bytes < 2 * HEAD_BYTES as i64,
        "{calls_bytes} bytes of calls"
    );
    assert!(results_bytes > whole.len() as i64, "{results_bytes}");
    let page = store.page_messages("s", None, 10).await.unwrap();
    let meta = page[1].tool_calls[0].meta.clone().unwrap();
    let head = meta.full_output.unwrap();
    assert!(whole.starts_with(&head) && head.len() <= HEAD_BYTES);
    assert_eq!(meta.full_output_bytes, Some(whole.len() as u64));
    assert_eq!(
        page[1].tool_calls[1], small,
        "a result within {INLINE_RESULT_BYTES} bytes stays inline"
    );

    // Asked for, it is whole; so after compaction archives the row; so in a JSON export.
    assert_eq!(
        store.tool_calls_at("s", stored.seq).await.unwrap(),
        vec![call.clone(), small.clone()]
    );
    store
        .append_message("s", NewMessage::new("assistant", "Read it."))
        .await
        .unwrap();
    store.compact_messages("s", 2, "read a file").await.unwrap();
    let archived = store.page_messages("s", None, 10).await.unwrap();
    assert!(archived[1].archived && archived[1].seq == stored.seq);
    assert_eq!(
        store.tool_calls_at("s", stored.seq).await.unwrap(),
        vec![call.clone(), small.clone()]
    );
    let export = lango_core::export::to_json(&store, "s").await.unwrap();
    let row = export
        .messages
        .iter()
        .find(|m| m.seq == stored.seq)
        .unwrap();
    assert_eq!(row.tool_calls, vec![call, small]);
}
