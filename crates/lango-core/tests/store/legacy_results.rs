//! Rows written before large tool results were kept beside their rows (migration 0015) get
//! that shape in the background: every page of their conversation stops parsing megabytes,
//! the whole result still reads back the same, and nothing else in the row changes.

use std::time::Duration;

use lango_core::store::{NewMessage, Store, ToolCall, ToolCallMeta, HEAD_BYTES};
use tokio_util::sync::CancellationToken;

use super::temp_store;

fn file_read(id: &str, whole: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "files__read_text_file".into(),
        output: "the prompt's cut copy".into(),
        meta: Some(ToolCallMeta {
            full_output: Some(whole.to_owned()),
            ..ToolCallMeta::default()
        }),
        ..ToolCall::default()
    }
}

/// Appends a user message and a tool row holding `call`; the tool row's id and seq.
async fn tool_row(store: &Store, call: &ToolCall) -> (i64, i64) {
    store
        .append_message("s", NewMessage::new("user", "read it"))
        .await
        .unwrap();
    let mut tool = NewMessage::new("tool", "the prompt's cut copy");
    tool.tool_calls = vec![call.clone()];
    let stored = store.append_message("s", tool).await.unwrap();
    store
        .append_message("s", NewMessage::new("assistant", "Read it."))
        .await
        .unwrap();
    (stored.id, stored.seq)
}

/// (bytes of `tool_calls`, whether `tool_results` is set) of row `id` in `table`.
fn columns(raw: &rusqlite::Connection, table: &str, id: i64) -> (i64, bool) {
    raw.query_row(
        &format!(
            "SELECT octet_length(tool_calls), tool_results IS NOT NULL FROM {table} WHERE id = ?1"
        ),
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

#[tokio::test]
async fn earlier_versions_large_results_move_beside_their_rows_and_read_back_whole() {
    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let whole = format!(
        "{{\"content\":\"{}\"}}",
        "line of the file\\n".repeat(60_000)
    );
    let archived_call = file_read("c1", &whole);
    let live_call = file_read("c2", &format!("{whole} again"));
    let (archived_id, archived_seq) = tool_row(&store, &archived_call).await;
    store.compact_messages("s", 2, "read a file").await.unwrap();
    let (live_id, live_seq) = tool_row(&store, &live_call).await;
    store.close().await;

    // Made as an earlier version wrote them: the whole result inline, nothing beside; and a
    // row whose large calls are not a list of calls.
    let path = dir.path().join("lango.db");
    let raw = rusqlite::Connection::open(&path).unwrap();
    for (table, id, call) in [
        ("archived_messages", archived_id, &archived_call),
        ("messages", live_id, &live_call),
    ] {
        let inline = serde_json::to_string(&vec![call.clone()]).unwrap();
        raw.execute(
            &format!("UPDATE {table} SET tool_calls = ?1, tool_results = NULL WHERE id = ?2"),
            rusqlite::params![inline, id],
        )
        .unwrap();
    }
    let unreadable = format!("{{\"not a list\": \"{}\"}}", "x".repeat(70_000));
    let unreadable_id: i64 = raw
        .query_row(
            "SELECT id FROM messages WHERE role = 'user' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    raw.execute(
        "UPDATE messages SET tool_calls = ?1 WHERE id = ?2",
        rusqlite::params![unreadable, unreadable_id],
    )
    .unwrap();
    raw.execute_batch(
        "DELETE FROM legacy_results_scan;
         INSERT INTO legacy_results_scan SELECT 'messages', 0, max(id) FROM messages;
         INSERT INTO legacy_results_scan SELECT 'archived_messages', 0, max(id) FROM archived_messages;",
    )
    .unwrap();
    assert!(columns(&raw, "messages", live_id).0 > whole.len() as i64);

    // The app starts the move when it opens the store.
    let store = Store::open(&path).await.unwrap();
    store.start_moving_legacy_results();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let left: i64 = raw
            .query_row("SELECT count(*) FROM legacy_results_scan", [], |r| r.get(0))
            .unwrap();
        if left == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the scan did not end"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    for (table, id) in [("archived_messages", archived_id), ("messages", live_id)] {
        let (calls_bytes, beside) = columns(&raw, table, id);
        assert!(
            calls_bytes < 2 * HEAD_BYTES as i64,
            "{table}: {calls_bytes} bytes inline"
        );
        assert!(beside, "{table}: the whole result beside the row");
    }
    assert_eq!(
        store.tool_calls_at("s", archived_seq).await.unwrap(),
        vec![archived_call]
    );
    assert_eq!(
        store.tool_calls_at("s", live_seq).await.unwrap(),
        vec![live_call]
    );
    let page = store.page_messages("s", None, 20).await.unwrap();
    let meta = page
        .iter()
        .find(|m| m.seq == live_seq)
        .and_then(|m| m.tool_calls[0].meta.clone())
        .unwrap();
    assert_eq!(meta.full_output_bytes, Some(whole.len() as u64 + 6));
    let kept: String = raw
        .query_row(
            "SELECT tool_calls FROM messages WHERE id = ?1",
            [unreadable_id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        kept, unreadable,
        "a row that does not read is left as it is"
    );

    // Done once: a later start has nothing to scan.
    assert_eq!(
        store
            .move_legacy_results(&CancellationToken::new())
            .await
            .unwrap(),
        0
    );
    store.close().await;
}
