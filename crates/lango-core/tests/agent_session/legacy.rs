//! Rows written by older versions, read back through the session service (REFERENCE §2.4).

use lango_core::agent::{Part, SessionService};
use lango_core::store::Store;
use serde_json::json;

use super::*;

/// Appends a row to `key` with raw SQL, as an older Lango wrote it (the store's API would
/// write today's shape).
async fn insert_legacy_row(store: &Store, key: &str, role: &str, content: &str, tool_calls: &str) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(store.path());
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::query(
        "INSERT INTO messages (session_id, seq, role, content, tool_calls, created_at)
         SELECT id, next_seq, ?, ?, ?, 1 FROM sessions WHERE key = ?",
    )
    .bind(role)
    .bind(content)
    .bind(tool_calls)
    .bind(key)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
}

#[tokio::test]
async fn a_legacy_call_and_response_without_ids_or_names_load_with_the_rest_of_the_session() {
    let (_dir, store) = temp_store().await;
    seed(&store, "s1", vec![row("user", "", "list files", vec![])]).await;
    insert_legacy_row(
        &store,
        "s1",
        "model",
        "",
        r#"[{"name": "exec", "input": "{\"cmd\":\"ls\"}"}]"#,
    )
    .await;
    insert_legacy_row(
        &store,
        "s1",
        "function",
        r#"{"output":"a.txt"}"#,
        r#"[{"output": "{\"output\":\"a.txt\"}"}]"#,
    )
    .await;
    insert_legacy_row(&store, "s1", "model", "There is a.txt.", "null").await;
    store
        .append_message("s1", row("user", "", "thanks", vec![]))
        .await
        .unwrap();

    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.expect("the session loads");
    let all = session.events().all();
    assert_eq!(
        event_roles(&all),
        ["user", "assistant", "function", "assistant", "user"]
    );
    assert_eq!(
        parts(&all[1]),
        [Part::function_call(
            "call_exec",
            "exec",
            obj(json!({"cmd": "ls"}))
        )]
    );
    assert_eq!(
        parts(&all[2]),
        [Part::function_response(
            "call_exec",
            "exec",
            obj(json!({"output": "a.txt"}))
        )],
        "the nameless response answers the call before it"
    );
    assert_eq!(texts(&all[3]), ["There is a.txt."]);
    assert_eq!(texts(&all[4]), ["thanks"]);
}
