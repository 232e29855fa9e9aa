//! Spec 000/001/003: the session service, AppendEvent in-memory sync, state, stored call metadata.

use lango_core::agent::session::SessionServiceAdapter;
use lango_core::agent::{Part, SessionService};
use lango_core::store::ToolCall;
use serde_json::json;

use super::*;

#[tokio::test]
async fn user_message_visible_after_append_event() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let before = session.events();
    svc.append_event(
        session.as_ref(),
        event("user", "user", vec![Part::text("hello")]),
    )
    .await
    .unwrap();

    // Persisted.
    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (
            rows[0].role.as_str(),
            rows[0].author.as_str(),
            rows[0].content.as_str()
        ),
        ("user", "user", "hello")
    );
    // In memory, the same row.
    let history = adapter(session.as_ref()).history();
    assert_eq!(history, rows);
    // Later views of the same session object include it; an older view is a snapshot.
    let all = session.events().all();
    assert_eq!(all.len(), 1);
    assert_eq!(event_roles(&all), ["user"]);
    assert_eq!(event_authors(&all), ["user"]);
    assert_eq!(texts(&all[0]), ["hello"]);
    assert_eq!(before.len(), 0);
}

#[tokio::test]
async fn multiple_events_accumulate_in_memory() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    svc.append_event(
        session.as_ref(),
        event("user", "user", vec![Part::text("one")]),
    )
    .await
    .unwrap();
    svc.append_event(
        session.as_ref(),
        event("lango-agent", "model", vec![Part::text("two")]),
    )
    .await
    .unwrap();
    svc.append_event(
        session.as_ref(),
        event("user", "user", vec![Part::text("three")]),
    )
    .await
    .unwrap();

    let history = adapter(session.as_ref()).history();
    let got: Vec<(&str, &str)> = history
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(
        got,
        [("user", "one"), ("assistant", "two"), ("user", "three")]
    );
    assert!(history.windows(2).all(|w| w[0].seq < w[1].seq));
    let all = session.events().all();
    assert_eq!(first_texts(&all), ["one", "two", "three"]);
    assert_eq!(event_roles(&all), ["user", "assistant", "user"]);
}

#[tokio::test]
async fn state_delta_only_events_skip_history() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    svc.append_event(
        session.as_ref(),
        delta_event(json!({"mode": "fast", "n": 2})),
    )
    .await
    .unwrap();

    assert!(store.list_messages("s1").await.unwrap().is_empty());
    assert_eq!(adapter(session.as_ref()).history_len(), 0);
    assert_eq!(session.events().len(), 0);
    // [FIX] the delta is applied to the state, in memory and in the store.
    assert_eq!(session.state(), obj(json!({"mode": "fast", "n": 2})));
    assert_eq!(
        store.get_session("s1").await.unwrap().state,
        obj(json!({"mode": "fast", "n": 2}))
    );
}

#[tokio::test]
async fn partial_events_are_not_persisted() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let mut e = event("lango-agent", "model", vec![Part::text("Hel")]);
    e.partial = true;
    svc.append_event(session.as_ref(), e).await.unwrap();
    assert!(store.list_messages("s1").await.unwrap().is_empty());
    assert_eq!(adapter(session.as_ref()).history_len(), 0);
}

#[tokio::test]
async fn load_session() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "s1",
        vec![
            row("user", "user", "list files", vec![]),
            row(
                "assistant",
                "",
                "Listing",
                vec![call("call_1", "exec", r#"{"cmd":"ls"}"#)],
            ),
            row(
                "tool",
                "",
                r#"{"output":"a.txt"}"#,
                vec![response("call_1", "exec", r#"{"output":"a.txt"}"#)],
            ),
        ],
    )
    .await;
    store
        .set_session_state("s1", &obj(json!({"mode": "fast"})))
        .await
        .unwrap();

    let svc = service(&store, "orchestrator", 0);
    let session = svc.get("s1").await.unwrap();
    assert_eq!(session.key(), "s1");
    assert_eq!(session.state(), obj(json!({"mode": "fast"})));
    assert_eq!(
        adapter(session.as_ref()).history(),
        store.list_messages("s1").await.unwrap()
    );

    let all = session.events().all();
    assert_eq!(event_roles(&all), ["user", "assistant", "function"]);
    assert_eq!(event_authors(&all), ["user", "orchestrator", "tool"]);
    assert_eq!(texts(&all[0]), ["list files"]);
    assert_eq!(
        parts(&all[1]),
        [
            Part::text("Listing"),
            Part::function_call("call_1", "exec", obj(json!({"cmd": "ls"})))
        ]
    );
    assert_eq!(
        parts(&all[2]),
        [Part::function_response(
            "call_1",
            "exec",
            obj(json!({"output": "a.txt"}))
        )]
    );
}

#[tokio::test]
async fn save_session() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let mut e = event("lango-agent", "model", vec![Part::text("saved")]);
    e.actions.state_delta = obj(json!({"step": "2"}));
    svc.append_event(session.as_ref(), e).await.unwrap();

    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].role.as_str(), rows[0].content.as_str()),
        ("assistant", "saved")
    );
    assert_eq!(
        store.get_session("s1").await.unwrap().state,
        obj(json!({"step": "2"}))
    );
    // In memory.
    assert_eq!(adapter(session.as_ref()).history(), rows);
    assert_eq!(session.state(), obj(json!({"step": "2"})));
    // A fresh load sees the same.
    let again = svc.get("s1").await.unwrap();
    assert_eq!(adapter(again.as_ref()).history(), rows);
    assert_eq!(again.state(), obj(json!({"step": "2"})));
}

#[tokio::test]
async fn function_call_with_original_id() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let fc = Part::function_call("adk-uuid-123", "exec", obj(json!({"cmd": "ls"})));
    svc.append_event(session.as_ref(), event("lango-agent", "model", vec![fc]))
        .await
        .unwrap();
    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(rows[0].role, "assistant");
    assert_eq!(rows[0].content, "");
    assert_eq!(
        rows[0].tool_calls,
        [call("adk-uuid-123", "exec", r#"{"cmd":"ls"}"#)]
    );
}

#[tokio::test]
async fn function_call_without_id() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let fc = Part::function_call("", "search", obj(json!({"q": "rust"})));
    svc.append_event(session.as_ref(), event("lango-agent", "model", vec![fc]))
        .await
        .unwrap();
    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(
        rows[0].tool_calls,
        [call("call_search", "search", r#"{"q":"rust"}"#)]
    );
}

#[tokio::test]
async fn function_response_with_full_metadata() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let fr = Part::function_response("adk-uuid-123", "exec", obj(json!({"output": "file.txt"})));
    svc.append_event(session.as_ref(), event("lango-agent", "function", vec![fr]))
        .await
        .unwrap();
    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].role, "tool");
    assert_eq!(rows[0].content, r#"{"output":"file.txt"}"#);
    assert_eq!(
        rows[0].tool_calls,
        [response("adk-uuid-123", "exec", r#"{"output":"file.txt"}"#)]
    );
}

#[tokio::test]
async fn thought_call_keeps_flag_and_base64_signature() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "lango-agent", 0);
    let session = svc.get("s1").await.unwrap();
    let mut fc = Part::function_call("call_think", "deep_think", obj(json!({"query": "test"})));
    fc.thought = true;
    fc.thought_signature = Some(b"sig-data".to_vec());
    svc.append_event(
        session.as_ref(),
        event("lango-agent", "model", vec![fc.clone()]),
    )
    .await
    .unwrap();
    let rows = store.list_messages("s1").await.unwrap();
    assert_eq!(
        rows[0].tool_calls,
        [ToolCall {
            id: "call_think".into(),
            name: "deep_think".into(),
            input: r#"{"query":"test"}"#.into(),
            output: String::new(),
            thought: true,
            thought_signature: "c2lnLWRhdGE=".into(),
            meta: None,
        }]
    );
    assert_eq!(parts(&session.events().all()[0]), [fc]);
}

#[tokio::test]
async fn get_loads_only_the_history_tail() {
    // A long session opens with the rows the budget needs, not the whole table.
    let (_dir, store) = temp_store_with_cost(4).await;
    let rows = alternating(2000);
    seed(&store, "long", rows).await;
    let svc = service(&store, "lango-agent", 40);
    let session = svc.get("long").await.unwrap();
    let a = adapter(session.as_ref());
    assert_eq!(a.history_len(), 10);
    assert!(a.older_messages_cut());
    assert_eq!(a.history().first().unwrap().content, "m1990");
    assert_eq!(
        first_texts(&session.events().all()).last().unwrap(),
        "m1999"
    );
}

#[tokio::test]
async fn create_with_duplicate_key_fails() {
    let (_dir, store) = temp_store().await;
    let svc = SessionServiceAdapter::new(store.clone(), "lango-agent");
    svc.create("dup", Default::default()).await.unwrap();
    let err = svc
        .create("dup", Default::default())
        .await
        .err()
        .expect("duplicate");
    assert!(
        matches!(
            err,
            lango_core::agent::AgentError::Store(lango_core::store::StoreError::Duplicate { .. })
        ),
        "{err}"
    );
}
