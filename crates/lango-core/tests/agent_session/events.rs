//! Spec 000/003/004: the events view (authors, roles, call/response reconstruction, legacy
//! fallback) and its lazy caching.

use lango_core::agent::session::EventsAdapter;
use lango_core::agent::{EventsView, Part, SessionService};
use serde_json::json;

use super::*;

/// The events of `rows` as a service with root `root` loads them.
async fn events_of(rows: Vec<NewMessage>, root: &str) -> Vec<Event> {
    let (_dir, store) = temp_store().await;
    seed(&store, "s", rows).await;
    let svc = service(&store, root, 0);
    let session = svc.get("s").await.unwrap();
    session.events().all()
}

#[tokio::test]
async fn event_author_mapping() {
    let rows = || {
        vec![
            row("user", "", "hi", vec![]),
            row("assistant", "", "hello", vec![]),
            row("user", "", "again", vec![]),
            row("assistant", "researcher", "stored author wins", vec![]),
        ]
    };
    let all = events_of(rows(), "orchestrator").await;
    assert_eq!(
        event_authors(&all),
        ["user", "orchestrator", "user", "researcher"]
    );
    let all = events_of(rows(), "").await;
    assert_eq!(
        event_authors(&all),
        ["user", "lango-agent", "user", "researcher"]
    );
}

#[tokio::test]
async fn model_role_mapping() {
    let rows = || {
        vec![
            row("user", "", "hi", vec![]),
            row("model", "", "legacy reply", vec![]),
        ]
    };
    let all = events_of(rows(), "orchestrator").await;
    assert_eq!(event_authors(&all), ["user", "orchestrator"]);
    assert_eq!(event_roles(&all), ["user", "assistant"]);
    let all = events_of(rows(), "").await;
    assert_eq!(event_authors(&all), ["user", "lango-agent"]);
    assert!(all.iter().all(|e| e.author != "model"));
}

#[tokio::test]
async fn unknown_role_fallback() {
    let rows = || {
        vec![
            row("narrator", "", "once upon a time", vec![]),
            row("system", "", "be brief", vec![]),
        ]
    };
    let all = events_of(rows(), "orchestrator").await;
    assert_eq!(event_authors(&all), ["orchestrator", "orchestrator"]);
    assert_eq!(event_roles(&all), ["narrator", "system"]);
    let all = events_of(rows(), "").await;
    assert_eq!(event_authors(&all), ["lango-agent", "lango-agent"]);
}

#[tokio::test]
async fn assistant_message_with_function_call_tool_calls() {
    let all = events_of(
        vec![row(
            "assistant",
            "",
            "",
            vec![call("adk-uuid-123", "exec", r#"{"cmd":"ls"}"#)],
        )],
        "",
    )
    .await;
    assert_eq!(all.len(), 1);
    assert_eq!(event_roles(&all), ["assistant"]);
    assert_eq!(
        parts(&all[0]),
        [Part::function_call(
            "adk-uuid-123",
            "exec",
            obj(json!({"cmd": "ls"}))
        )]
    );
}

#[tokio::test]
async fn tool_message_with_function_response_metadata_in_tool_calls() {
    let all = events_of(
        vec![
            row("user", "", "go", vec![]),
            row(
                "tool",
                "",
                r#"{"result":"ok"}"#,
                vec![response("adk-uuid-123", "exec", r#"{"result":"ok"}"#)],
            ),
        ],
        "",
    )
    .await;
    assert_eq!(event_roles(&all), ["user", "function"]);
    assert_eq!(
        parts(&all[1]),
        [Part::function_response(
            "adk-uuid-123",
            "exec",
            obj(json!({"result": "ok"}))
        )]
    );
}

#[tokio::test]
async fn legacy_tool_message_without_tool_calls() {
    let all = events_of(
        vec![
            row("assistant", "", "", vec![call("call_exec", "exec", "{}")]),
            row("tool", "", r#"{"result":"file.txt"}"#, vec![]),
        ],
        "",
    )
    .await;
    assert_eq!(event_roles(&all), ["assistant", "function"]);
    assert_eq!(event_authors(&all), ["lango-agent", "tool"]);
    assert_eq!(
        parts(&all[1]),
        [Part::function_response(
            "call_exec",
            "exec",
            obj(json!({"result": "file.txt"}))
        )]
    );
}

#[tokio::test]
async fn legacy_tool_messages_consume_calls_in_order() {
    let all = events_of(
        vec![
            row(
                "assistant",
                "",
                "",
                vec![
                    call("c1", "read", r#"{"p":"1"}"#),
                    call("c2", "exec", r#"{"c":"2"}"#),
                ],
            ),
            row("tool", "", "first", vec![]),
            row("function", "", "", vec![]),
            row("tool", "", "third has no call left", vec![]),
        ],
        "",
    )
    .await;
    // The two legacy responses merge into one function event; the third has no context.
    assert_eq!(event_roles(&all), ["assistant", "function", "tool"]);
    assert_eq!(
        parts(&all[1]),
        [
            Part::function_response("c1", "read", obj(json!({"result": "first"}))),
            Part::function_response("c2", "exec", obj(json!({}))),
        ]
    );
    assert_eq!(texts(&all[2]), ["third has no call left"]);
}

#[tokio::test]
async fn tool_message_with_no_context_for_function_response() {
    let all = events_of(
        vec![
            row("user", "", "hi", vec![]),
            row("tool", "", "some result", vec![]),
        ],
        "",
    )
    .await;
    assert_eq!(event_roles(&all), ["user", "tool"]);
    assert_eq!(event_authors(&all), ["user", "tool"]);
    assert_eq!(parts(&all[1]), [Part::text("some result")]);
}

#[tokio::test]
async fn rows_without_parts_are_skipped() {
    let all = events_of(
        vec![
            row("user", "", "hi", vec![]),
            row("assistant", "", "", vec![]),
            row("tool", "", "", vec![]),
        ],
        "",
    )
    .await;
    assert_eq!(event_roles(&all), ["user"]);
}

fn history(n: usize) -> Vec<StoredMessage> {
    (0..n)
        .map(|i| StoredMessage {
            id: i as i64 + 1,
            seq: i as i64 + 1,
            role: if i % 2 == 0 { "user" } else { "assistant" }.into(),
            author: String::new(),
            content: format!("m{i}"),
            tool_calls: vec![],
            status: Default::default(),
            kind: Default::default(),
            token_count: 10,
            created_at: 1_000 + i as i64,
            archived: false,
            reply: None,
            attachments: Vec::new(),
        })
        .collect()
}

#[test]
fn multiple_calls_to_truncated_history() {
    let view = EventsAdapter::new(history(6), 30, "");
    assert_eq!(view.truncation_runs(), 0);
    let first = view.truncated_history().as_ptr();
    let contents: Vec<&str> = view
        .truncated_history()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(contents, ["m3", "m4", "m5"]);
    for _ in 0..5 {
        assert_eq!(view.truncated_history().as_ptr(), first);
    }
    let _ = (view.len(), view.all(), view.at(0));
    assert_eq!(view.truncation_runs(), 1);
}

#[test]
fn multiple_calls_to_at() {
    let view = EventsAdapter::new(history(4), 0, "");
    assert_eq!(view.event_builds(), 0);
    let e0 = view.at(0).unwrap();
    let e3 = view.at(3).unwrap();
    assert_eq!(view.event_builds(), 1);
    assert_eq!(texts(&e0), ["m0"]);
    assert_eq!(texts(&e3), ["m3"]);
    // Cached: the same events (event ids are fresh per build, so equal ids prove no rebuild).
    assert_eq!(view.at(0).unwrap().id, e0.id);
    assert_eq!(view.at(3).unwrap().id, e3.id);
    assert_eq!(view.all()[1].id, view.at(1).unwrap().id);
    assert_eq!(view.len(), 4);
    assert_eq!(view.event_builds(), 1);
    assert_eq!(view.truncation_runs(), 1);
    assert_eq!(e0.timestamp, 1_000);
}

#[test]
fn out_of_bounds_at_access() {
    let view = EventsAdapter::new(history(3), 0, "");
    assert!(view.at(2).is_some());
    assert!(view.at(3).is_none());
    assert!(view.at(usize::MAX).is_none());
    let empty = EventsAdapter::new(Vec::new(), 0, "");
    assert!(empty.at(0).is_none());
    assert_eq!(empty.len(), 0);
    assert!(empty.is_empty());
}

#[tokio::test]
async fn session_views_are_fresh_per_access() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let session = svc.get("s").await.unwrap();
    let a = adapter(session.as_ref());
    let v1 = a.events_adapter();
    assert_eq!(v1.len(), 0);
    svc.append_event(
        session.as_ref(),
        event("user", "user", vec![Part::text("x")]),
    )
    .await
    .unwrap();
    assert_eq!(v1.len(), 0, "an existing view keeps its snapshot");
    assert_eq!(a.events_adapter().len(), 1);
    assert_eq!(session.events().len(), 1);
}
