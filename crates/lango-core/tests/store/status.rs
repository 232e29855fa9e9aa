//! The `truncated` message status (a reply cut at the output limit) and migration 0007, which
//! rebuilt `messages` to allow it.

use lango_core::store::{MessageStatus, NewMessage, SearchHitKind, Store, MIGRATOR};

use crate::raw_db::raw_pool;
use crate::temp_store;

#[tokio::test]
async fn a_reply_cut_at_the_output_limit_is_stored_and_read_back_as_truncated() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let mut reply = NewMessage::new("assistant", "the first half of the answer");
    reply.status = MessageStatus::Truncated;
    store.append_message("s", reply).await.unwrap();
    let stored = store.list_messages("s").await.unwrap();
    assert_eq!(stored[0].status, MessageStatus::Truncated);
    assert_eq!(stored[0].status.as_str(), "truncated");
}

/// The table rebuild keeps every row with its id, the search index and the triggers, and the
/// id counter: an archived row's id is never handed out again.
#[tokio::test]
async fn upgrading_to_the_truncated_status_keeps_rows_search_and_never_reuses_an_archived_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        let pool = raw_pool(&path).await;
        MIGRATOR.run_to(6, &pool).await.unwrap();
        sqlx::query("INSERT INTO sessions (key, title, next_seq, created_at, updated_at) VALUES ('s', 'S', 1, 1, 1)")
            .execute(&pool)
            .await
            .unwrap();
        for (seq, role, text, status) in [
            (1, "user", "where do herons nest", "complete"),
            (2, "assistant", "herons nest in colonies", "interrupted"),
            (3, "user", "and kingfishers", "complete"),
        ] {
            sqlx::query("INSERT INTO messages (session_id, seq, role, content, status, created_at) VALUES (1, ?, ?, ?, ?, 1)")
                .bind(seq)
                .bind(role)
                .bind(text)
                .bind(status)
                .execute(&pool)
                .await
                .unwrap();
        }
        // Compaction moved the newest row (the highest id) to the archive.
        sqlx::query("INSERT INTO archived_messages (id, session_id, seq, role, content, created_at, archived_at) SELECT id, session_id, seq, role, content, created_at, 2 FROM messages WHERE seq = 3")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("DELETE FROM messages WHERE seq = 3")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }

    let store = Store::open(&path).await.unwrap();
    let before = store.list_messages("s").await.unwrap();
    let live: Vec<(i64, i64, MessageStatus)> = before
        .iter()
        .filter(|m| !m.archived)
        .map(|m| (m.id, m.seq, m.status))
        .collect();
    assert_eq!(
        live,
        [
            (1, 1, MessageStatus::Complete),
            (2, 2, MessageStatus::Interrupted)
        ]
    );

    let mut reply = NewMessage::new("assistant", "kingfishers dig burrows");
    reply.status = MessageStatus::Truncated;
    let appended = store.append_message("s", reply).await.unwrap();
    assert_eq!(
        appended.seq, 4,
        "the insert trigger still advances the session"
    );
    assert!(
        appended.id > 3,
        "id {} reuses the archived row's id 3",
        appended.id
    );

    let hits = store.search("herons", None, 10).await.unwrap();
    assert_eq!(
        hits.iter()
            .filter(|h| h.kind == SearchHitKind::Message)
            .count(),
        2,
        "{hits:?}"
    );
    let hits = store.search("burrows", None, 10).await.unwrap();
    assert_eq!(
        hits.len(),
        1,
        "a message appended after the upgrade is indexed"
    );
}
