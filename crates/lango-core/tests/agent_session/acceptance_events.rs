//! REFERENCE §6 acceptance cases 29–37: events ↔ stored rows — call ids, roles, authors, call and
//! response events, the legacy fallback, merging and the round trip.

use lango_core::agent::{Part, SessionService};
use serde_json::json;

use super::*;

#[tokio::test]
async fn acceptance_29_call_ids() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc.get("s").await.unwrap();
    let args = obj(json!({"q": "x"}));
    let events = [
        event(
            "a",
            "model",
            vec![Part::function_call(
                "adk-original-uuid-123",
                "exec",
                args.clone(),
            )],
        ),
        event(
            "a",
            "model",
            vec![Part::function_call("", "search", args.clone())],
        ),
        event(
            "a",
            "function",
            vec![Part::function_response("", "search", obj(json!({"r": 1})))],
        ),
    ];
    for e in events {
        svc.append_event(s.as_ref(), e).await.unwrap();
    }
    let ids: Vec<String> = store
        .list_messages("s")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.tool_calls[0].id.clone())
        .collect();
    assert_eq!(ids, ["adk-original-uuid-123", "call_search", "call_search"]);
}

#[tokio::test]
async fn acceptance_30_response_and_call_roles() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc.get("s").await.unwrap();
    let fr = || {
        Part::function_response(
            "adk-original-uuid-123",
            "exec",
            obj(json!({"output": "file.txt"})),
        )
    };
    svc.append_event(s.as_ref(), event("a", "function", vec![fr()]))
        .await
        .unwrap();
    svc.append_event(s.as_ref(), event("user", "user", vec![fr()]))
        .await
        .unwrap();
    svc.append_event(
        s.as_ref(),
        event(
            "a",
            "model",
            vec![Part::function_call("c", "exec", Default::default())],
        ),
    )
    .await
    .unwrap();
    let rows = store.list_messages("s").await.unwrap();
    let roles: Vec<&str> = rows.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["tool", "tool", "assistant"]);
    for r in &rows[..2] {
        assert_eq!(r.content, r#"{"output":"file.txt"}"#);
        assert_eq!(
            r.tool_calls,
            [response(
                "adk-original-uuid-123",
                "exec",
                r#"{"output":"file.txt"}"#
            )]
        );
    }
    assert_eq!(rows[2].tool_calls, [call("c", "exec", "{}")]);
}

#[tokio::test]
async fn acceptance_31_author_mapping() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "a",
        vec![
            row("user", "", "u", vec![]),
            row("assistant", "", "a", vec![]),
            row("tool", "", "result", vec![]),
            row("function", "", "response", vec![]),
        ],
    )
    .await;
    let all = loaded_events(&store, "lango-agent", 0, "a").await;
    assert_eq!(all.len(), 4);
    assert_eq!(event_authors(&all), ["user", "lango-agent", "tool", "tool"]);
    seed(
        &store,
        "b",
        vec![
            row("user", "", "u1", vec![]),
            row("assistant", "orchestrator", "a1", vec![]),
            row("user", "", "u2", vec![]),
            row("assistant", "", "a2", vec![]),
        ],
    )
    .await;
    let all = loaded_events(&store, "orchestrator", 0, "b").await;
    assert_eq!(
        event_authors(&all),
        ["user", "orchestrator", "user", "orchestrator"]
    );
}

#[tokio::test]
async fn acceptance_32_assistant_call_event() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "s",
        vec![row(
            "assistant",
            "",
            "",
            vec![call("call_1", "exec", r#"{"command":"ls"}"#)],
        )],
    )
    .await;
    let all = loaded_events(&store, "", 0, "s").await;
    assert_eq!(all.len(), 1);
    assert_eq!(parts(&all[0]).len(), 1);
    let fc = parts(&all[0])[0]
        .function_call
        .clone()
        .expect("a function call");
    assert_eq!(fc.name, "exec");
    assert_eq!(fc.args["command"], json!("ls"));
}

#[tokio::test]
async fn acceptance_33_function_response_event() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "s",
        vec![
            row("user", "", "go", vec![]),
            row(
                "assistant",
                "",
                "",
                vec![call("adk-abc-123", "exec", r#"{"cmd":"ls"}"#)],
            ),
            row(
                "tool",
                "",
                r#"{"result":"file.txt"}"#,
                vec![response("adk-abc-123", "exec", r#"{"result":"file.txt"}"#)],
            ),
        ],
    )
    .await;
    let all = loaded_events(&store, "", 0, "s").await;
    assert_eq!(all.len(), 3);
    assert_eq!(event_roles(&all)[2], "function");
    assert_eq!(
        parts(&all[2]),
        [Part::function_response(
            "adk-abc-123",
            "exec",
            obj(json!({"result": "file.txt"}))
        )]
    );
    assert!(texts(&all[2]).is_empty());
}

#[tokio::test]
async fn acceptance_34_legacy_fallback() {
    let (_dir, store) = temp_store().await;
    let legacy = |content: &str| {
        vec![
            row("assistant", "", "", vec![call("call_exec", "exec", "{}")]),
            row("tool", "", content, vec![]),
        ]
    };
    seed(&store, "json", legacy(r#"{"result":"file.txt"}"#)).await;
    seed(&store, "text", legacy("ok")).await;
    seed(
        &store,
        "none",
        vec![
            row("user", "", "u", vec![]),
            row("tool", "", "some result", vec![]),
        ],
    )
    .await;
    let svc = service(&store, "", 0);
    let all = svc.get("json").await.unwrap().events().all();
    assert_eq!(
        parts(&all[1]),
        [Part::function_response(
            "call_exec",
            "exec",
            obj(json!({"result": "file.txt"}))
        )]
    );
    let all = svc.get("text").await.unwrap().events().all();
    assert_eq!(
        parts(&all[1]),
        [Part::function_response(
            "call_exec",
            "exec",
            obj(json!({"result": "ok"}))
        )]
    );
    let all = svc.get("none").await.unwrap().events().all();
    assert_eq!(event_roles(&all), ["user", "tool"]);
    assert_eq!(parts(&all[1]), [Part::text("some result")]);
}

#[tokio::test]
async fn acceptance_35_user_role_row_with_output() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "s",
        vec![
            row("assistant", "", "", vec![call("call_abc", "exec", "{}")]),
            row(
                "user",
                "",
                r#"{"ok":true}"#,
                vec![response("call_abc", "exec", r#"{"ok":true}"#)],
            ),
        ],
    )
    .await;
    let all = loaded_events(&store, "", 0, "s").await;
    assert_eq!(event_roles(&all), ["assistant", "function"]);
    assert_eq!(all[1].author, "tool");
    assert_eq!(
        parts(&all[1]),
        [Part::function_response(
            "call_abc",
            "exec",
            obj(json!({"ok": true}))
        )]
    );
}

#[tokio::test]
async fn acceptance_36_merge_and_at() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "merge",
        vec![
            row("user", "", "u", vec![]),
            row("assistant", "", "part1", vec![]),
            row("assistant", "x", "part2", vec![]),
        ],
    )
    .await;
    let rows = store.list_messages("merge").await.unwrap();
    let svc = service(&store, "root", 0);
    let all = svc.get("merge").await.unwrap().events().all();
    assert_eq!(all.len(), 2);
    assert_eq!(texts(&all[1]), ["part1", "part2"]);
    // The first event's author and timestamp are kept.
    assert_eq!(all[1].author, "root");
    assert_eq!(all[1].timestamp, rows[1].created_at);

    seed(
        &store,
        "uaau",
        vec![
            row("user", "", "u", vec![]),
            row("assistant", "", "a", vec![]),
            row("assistant", "", "b", vec![]),
            row("user", "", "u", vec![]),
        ],
    )
    .await;
    assert_eq!(svc.get("uaau").await.unwrap().events().len(), 3);

    seed(
        &store,
        "at",
        vec![
            row("user", "", "first", vec![]),
            row("assistant", "", "second", vec![]),
            row("user", "", "third", vec![]),
        ],
    )
    .await;
    let view = svc.get("at").await.unwrap().events();
    assert_eq!(texts(&view.at(0).unwrap()), ["first"]);
    assert_eq!(texts(&view.at(2).unwrap()), ["third"]);
    assert!(view.at(3).is_none());
}

#[tokio::test]
#[allow(clippy::approx_constant)] // 3.14 is the case's literal value, not π
async fn acceptance_37_round_trip() {
    let (_dir, store) = temp_store().await;
    let svc = service(&store, "", 0);
    let s = svc.get("s").await.unwrap();
    let mut fc = Part::function_call(
        "call_ls_1",
        "exec",
        obj(json!({"command": "ls /tmp", "n": 42, "b": true, "o": {"x": 3.14}, "a": [1, 2]})),
    );
    fc.thought = true;
    fc.thought_signature = Some(vec![0x01, 0x02, 0xFF, 0xFE, 0x00, 0xAB]);
    let fr = Part::function_response("call_ls_1", "exec", obj(json!({"output": "a\nb"})));
    let sent = [
        event("user", "user", vec![Part::text("list /tmp")]),
        event("lango-agent", "model", vec![fc.clone()]),
        event("lango-agent", "function", vec![fr.clone()]),
        event("lango-agent", "model", vec![Part::text("two files")]),
    ];
    for e in sent.clone() {
        svc.append_event(s.as_ref(), e).await.unwrap();
    }
    // From a fresh load, not the in-memory copy.
    let all = svc.get("s").await.unwrap().events().all();
    assert_eq!(all.len(), 4);
    assert_eq!(
        event_roles(&all),
        ["user", "assistant", "function", "assistant"]
    );
    for (got, want) in all.iter().zip(sent.iter()) {
        assert_eq!(parts(got), want.content.as_ref().unwrap().parts.as_slice());
    }
    assert_eq!(parts(&all[2])[0].thought_signature, None);
    assert_eq!(
        parts(&all[1])[0].function_call.as_ref().unwrap().args["o"],
        json!({"x": 3.14})
    );
}
