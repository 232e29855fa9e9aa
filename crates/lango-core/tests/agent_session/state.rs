//! State deltas (REFERENCE §2.2): keys are assigned, and a state change is stored together
//! with what it belongs to, or not at all.

use lango_core::agent::{Part, SessionService};
use lango_core::store::Store;
use serde_json::json;

use super::*;

/// Runs `sql` on the database file through a connection of its own, as another program would.
async fn raw_sql(store: &Store, sql: &str) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(store.path());
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

#[tokio::test]
async fn a_state_delta_assigns_its_keys_replacing_objects_whole_and_storing_null() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc
        .create(
            "s1",
            obj(json!({"prefs": {"theme": "dark", "font": "mono"}, "keep": "x", "gone": "y"})),
        )
        .await
        .unwrap();
    svc.append_event(
        session.as_ref(),
        delta_event(json!({"prefs": {"theme": "light"}, "gone": null})),
    )
    .await
    .unwrap();

    let expected = obj(json!({"prefs": {"theme": "light"}, "keep": "x", "gone": null}));
    assert_eq!(store.get_session("s1").await.unwrap().state, expected);
    assert_eq!(session.state(), expected);
}

#[tokio::test]
async fn a_state_delta_is_not_kept_when_the_message_it_came_with_cannot_be_stored() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.create("s1", obj(json!({"step": "1"}))).await.unwrap();
    // The next message insert fails, as a full disk would make it.
    raw_sql(
        &store,
        "CREATE TRIGGER fail_append BEFORE INSERT ON messages
         BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END",
    )
    .await;
    let mut e = event("lango-agent", "model", vec![Part::text("step two done")]);
    e.actions.state_delta = obj(json!({"step": "2"}));
    assert!(svc.append_event(session.as_ref(), e).await.is_err());

    assert_eq!(
        store.get_session("s1").await.unwrap().state,
        obj(json!({"step": "1"})),
        "the state of a message that was never stored"
    );
    assert_eq!(session.state(), obj(json!({"step": "1"})));
}

#[tokio::test]
async fn a_session_created_with_state_is_never_stored_without_it() {
    let (_dir, store) = temp_store().await;
    // Any change of a session's state after its creation fails.
    raw_sql(
        &store,
        "CREATE TRIGGER fail_state BEFORE UPDATE OF state ON sessions
         BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END",
    )
    .await;
    let svc = service(&store, "lango-agent", 0);
    match svc.create("s1", obj(json!({"mode": "fast"}))).await {
        Ok(session) => {
            assert_eq!(session.state(), obj(json!({"mode": "fast"})));
            assert_eq!(
                store.get_session("s1").await.unwrap().state,
                obj(json!({"mode": "fast"}))
            );
        }
        Err(e) => assert!(
            store.find_session("s1").await.unwrap().is_none(),
            "the create failed ({e}) but left a session without its state"
        ),
    }
}
