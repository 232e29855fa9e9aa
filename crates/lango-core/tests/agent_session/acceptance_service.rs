//! REFERENCE §6 acceptance cases 23–28: the session service — create, get, delete, state, appends
//! and authors.

use std::sync::Arc;

use lango_core::agent::{AgentError, Part, SessionService};
use serde_json::json;

use super::*;

#[tokio::test]
async fn acceptance_23_create_and_get() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc
        .create("new-session", obj(json!({"key": "value"})))
        .await
        .unwrap();
    assert_eq!(s.key(), "new-session");
    assert_eq!(s.state(), obj(json!({"key": "value"})));
    // get of an existing session → it.
    let got = svc.get("new-session").await.unwrap();
    assert_eq!(got.key(), "new-session");
    assert_eq!(got.state(), obj(json!({"key": "value"})));
    // get of a missing one → created and stored.
    assert!(store.find_session("missing").await.unwrap().is_none());
    let created = svc.get("missing").await.unwrap();
    assert_eq!(created.key(), "missing");
    assert!(created.state().is_empty());
    assert!(store.find_session("missing").await.unwrap().is_some());
}

#[tokio::test]
async fn acceptance_24_concurrent_get_of_a_new_key() {
    let (_dir, store) = temp_store().await;
    let svc = Arc::new(service(&store, "", 0));
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let svc = Arc::clone(&svc);
            tokio::spawn(async move { svc.get("race-session").await.map(|s| s.key().to_string()) })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap().unwrap(), "race-session");
    }
    assert_eq!(svc.list().await.unwrap(), ["race-session"]);
}

#[tokio::test]
async fn acceptance_25_delete() {
    // TTL parts do not apply (REFERENCE §2.7).
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    svc.create("gone", Default::default()).await.unwrap();
    svc.delete("gone").await.unwrap();
    svc.delete("gone").await.unwrap();
    assert!(store.find_session("gone").await.unwrap().is_none());
    assert!(svc.list().await.unwrap().is_empty());
    // A failing delete returns the store's error with its cause.
    store.close().await;
    let err = svc
        .delete("x")
        .await
        .expect_err("delete on a closed store fails");
    assert!(matches!(err, AgentError::Store(_)), "{err:?}");
    assert!(err.to_string().contains("closed"), "{err}");
}

#[tokio::test]
async fn acceptance_26_state() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc
        .create(
            "s",
            obj(json!({"foo": "bar", "obj": {"a": 1}, "num": "123"})),
        )
        .await
        .unwrap();
    let a = adapter(s.as_ref());
    assert_eq!(a.get_state("foo").unwrap(), json!("bar"));
    assert_eq!(a.get_state("obj").unwrap(), json!({"a": 1}));
    let err = a.get_state("missing").unwrap_err();
    assert_eq!(err.to_string(), "state key does not exist");
    // [FIX] "123" stays a string, also after a reload.
    assert_eq!(a.get_state("num").unwrap(), json!("123"));
    a.set_state("n", json!(7)).await.unwrap();
    let again = svc.get("s").await.unwrap();
    assert_eq!(
        adapter(again.as_ref()).get_state("num").unwrap(),
        json!("123")
    );
    assert_eq!(
        again.state(),
        obj(json!({"foo": "bar", "obj": {"a": 1}, "num": "123", "n": 7}))
    );
    // No state at all works.
    let empty = svc.create("empty", Default::default()).await.unwrap();
    assert!(empty.state().is_empty());
    assert!(adapter(empty.as_ref()).get_state("x").is_err());
}

#[tokio::test]
async fn acceptance_27_append_updates_store_and_memory() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc.get("s").await.unwrap();
    svc.append_event(s.as_ref(), event("user", "user", vec![Part::text("hello")]))
        .await
        .unwrap();
    assert_eq!(store.list_messages("s").await.unwrap().len(), 1);
    assert_eq!(adapter(s.as_ref()).history_len(), 1);
    assert_eq!(s.events().len(), 1);
    svc.append_event(
        s.as_ref(),
        event("lango-agent", "model", vec![Part::text("hi there")]),
    )
    .await
    .unwrap();
    let roles: Vec<String> = store
        .list_messages("s")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.role)
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(event_roles(&s.events().all()), ["user", "assistant"]);
    svc.append_event(s.as_ref(), delta_event(json!({"k": "v"})))
        .await
        .unwrap();
    assert_eq!(store.list_messages("s").await.unwrap().len(), 2);
    assert_eq!(adapter(s.as_ref()).history_len(), 2);
    assert_eq!(s.state(), obj(json!({"k": "v"})));
}

#[tokio::test]
async fn acceptance_28_authors_and_empty_user_row() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "root", 0);
    let s = svc.get("s").await.unwrap();
    svc.append_event(
        s.as_ref(),
        event("orchestrator", "model", vec![Part::text("plan")]),
    )
    .await
    .unwrap();
    let empty = Event {
        id: "e".into(),
        author: "user".into(),
        ..Event::default()
    };
    svc.append_event(s.as_ref(), empty).await.unwrap();
    let rows = store.list_messages("s").await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0].role.as_str(), rows[0].author.as_str()),
        ("assistant", "orchestrator")
    );
    assert_eq!(
        (
            rows[1].role.as_str(),
            rows[1].author.as_str(),
            rows[1].content.as_str()
        ),
        ("user", "user", "")
    );
    assert!(rows[1].tool_calls.is_empty());
    // The empty row has no parts: only the assistant event remains.
    let all = s.events().all();
    assert_eq!(event_authors(&all), ["orchestrator"]);
}
