//! REFERENCE §6 acceptance cases 23–43 (session service, events view, truncation, cleanup, store).

use std::sync::Arc;

use lango_core::agent::session::{
    close_dangling_calls, history_token_budget, EventsAdapter, INTERRUPTED_TOOL_OUTPUT,
};
use lango_core::agent::{AgentError, Part, SessionService};
use lango_core::store::StoreError;
use lango_core::tokens::model_token_budget;
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
    let all = service(&store, "lango-agent", 0)
        .get("a")
        .await
        .unwrap()
        .events()
        .all();
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
    let all = service(&store, "orchestrator", 0)
        .get("b")
        .await
        .unwrap()
        .events()
        .all();
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
    let all = service(&store, "", 0)
        .get("s")
        .await
        .unwrap()
        .events()
        .all();
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
    let all = service(&store, "", 0)
        .get("s")
        .await
        .unwrap()
        .events()
        .all();
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
    let all = service(&store, "", 0)
        .get("s")
        .await
        .unwrap()
        .events()
        .all();
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

#[tokio::test]
async fn acceptance_38_budget_truncation() {
    let (_d1, store) = temp_store_with_cost(4).await;
    seed(&store, "s", alternating(150)).await;
    assert_eq!(
        service(&store, "", 0)
            .get("s")
            .await
            .unwrap()
            .events()
            .len(),
        150
    );
    assert_eq!(
        service(&store, "", 30)
            .get("s")
            .await
            .unwrap()
            .events()
            .len(),
        7
    );

    let (_d2, store) = temp_store_with_cost(14).await;
    seed(&store, "s", alternating(10)).await;
    let all = service(&store, "", 30)
        .get("s")
        .await
        .unwrap()
        .events()
        .all();
    assert_eq!(first_texts(&all), ["m8", "m9"]);

    let (_d3, store) = temp_store_with_cost(10_000).await;
    seed(&store, "s", alternating(1)).await;
    assert_eq!(
        service(&store, "", 10)
            .get("s")
            .await
            .unwrap()
            .events()
            .len(),
        1
    );
    assert_eq!(
        service(&store, "", 10)
            .get("empty")
            .await
            .unwrap()
            .events()
            .len(),
        0
    );
    assert_eq!(
        EventsAdapter::new(Vec::new(), 10, "")
            .truncated_history()
            .len(),
        0
    );
}

#[tokio::test]
async fn acceptance_39_sequence_safety() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let c = || vec![call("c1", "exec", "{}")];
    let a = seed(
        &store,
        "a",
        vec![
            row("user", "", "U1", vec![]),
            row("assistant", "", "A1", c()),
            row("tool", "", "T1", vec![response("c1", "exec", "{}")]),
            row("user", "", "U2", vec![]),
            row("assistant", "", "A2", vec![]),
        ],
    )
    .await;
    let b = seed(
        &store,
        "b",
        vec![
            row("user", "", "U0", vec![]),
            row("assistant", "", "A1", c()),
            row("user", "", "U2", vec![]),
            row("assistant", "", "A2", vec![]),
        ],
    )
    .await;
    let p = seed(
        &store,
        "p",
        vec![row("user", "", "U", vec![]), row("assistant", "", "A", c())],
    )
    .await;
    let cases = [
        ("a", a, 40, vec!["A1", "T1", "U2", "A2"]),
        (
            "a",
            store.list_messages("a").await.unwrap(),
            30,
            vec!["U2", "A2"],
        ),
        ("b", b, 30, vec!["U2", "A2"]),
        ("p", p, 100_000, vec!["U", "A"]),
    ];
    for (key, rows, budget, want) in cases {
        // Through a loaded session (store tail) and over the full history in memory.
        let session = service(&store, "", budget).get(key).await.unwrap();
        let view = adapter(session.as_ref()).events_adapter();
        let got: Vec<&str> = view
            .truncated_history()
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(got, want, "{key} budget {budget} (loaded)");
        let full = EventsAdapter::new(rows, budget, "");
        let got: Vec<&str> = full
            .truncated_history()
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(got, want, "{key} budget {budget} (in memory)");
    }
}

#[test]
fn acceptance_40_model_budget() {
    let cases = [
        ("claude-sonnet-4-5", 100_000),
        ("gemini-2.0-flash", 200_000),
        ("GPT-4o-mini", 64_000),
        ("gpt-4", 32_000),
        ("gpt-3.5-turbo", 8_000),
        ("llama3.1", 32_000),
        ("", 32_000),
    ];
    for (model, want) in cases {
        assert_eq!(model_token_budget(model), want, "{model}");
        assert_eq!(history_token_budget(model, None), want, "{model}");
    }
}

#[tokio::test]
async fn acceptance_41_memory_caps_the_budget() {
    assert_eq!(
        history_token_budget("claude-sonnet-4-5", Some(8_000)),
        8_000
    );
    assert_eq!(history_token_budget("claude-sonnet-4-5", None), 100_000);
    assert_eq!(history_token_budget("gpt-3.5-turbo", Some(10_000)), 8_000);
    let (_dir, store) = temp_store().await;
    let budget = history_token_budget("claude-sonnet-4-5", Some(8_000));
    let svc = service(&store, "", i64::try_from(budget).unwrap());
    assert_eq!(
        adapter(svc.get("s").await.unwrap().as_ref()).budget(),
        8_000
    );
}

#[tokio::test]
async fn acceptance_42_close_dangling_calls() {
    let (_dir, store) = temp_store().await;
    seed(
        &store,
        "s",
        vec![
            row("user", "", "balance?", vec![]),
            row(
                "assistant",
                "X",
                "",
                vec![call(
                    "call-balance",
                    "payment_balance",
                    r#"{"wallet":"0xabc"}"#,
                )],
            ),
        ],
    )
    .await;
    assert_eq!(close_dangling_calls(&store, "s", "root").await.unwrap(), 1);
    let rows = store.list_messages("s").await.unwrap();
    assert_eq!(rows.len(), 3);
    let closed = &rows[2];
    assert_eq!(
        INTERRUPTED_TOOL_OUTPUT,
        r#"{"error":"tool call was interrupted and did not complete"}"#
    );
    assert_eq!(
        (closed.role.as_str(), closed.author.as_str()),
        ("tool", "X")
    );
    assert_eq!(closed.content, INTERRUPTED_TOOL_OUTPUT);
    assert_eq!(
        closed.tool_calls,
        [response(
            "call-balance",
            "payment_balance",
            INTERRUPTED_TOOL_OUTPUT
        )]
    );
    // Idempotent.
    assert_eq!(close_dangling_calls(&store, "s", "root").await.unwrap(), 0);
    assert_eq!(store.list_messages("s").await.unwrap().len(), 3);

    // Two open calls (vault, then operator) and one answered; an empty author → root.
    seed(
        &store,
        "t",
        vec![
            row(
                "assistant",
                "vault",
                "",
                vec![call("v1", "vault_read", "{}"), call("done", "exec", "{}")],
            ),
            row("tool", "", "{}", vec![response("done", "exec", "{}")]),
            row("assistant", "operator", "", vec![call("", "deploy", "{}")]),
            row("assistant", "", "", vec![call("n1", "noop", "{}")]),
        ],
    )
    .await;
    assert_eq!(close_dangling_calls(&store, "t", "root").await.unwrap(), 3);
    let rows = store.list_messages("t").await.unwrap();
    let closed: Vec<(&str, &str, &str)> = rows[4..]
        .iter()
        .map(|m| {
            (
                m.author.as_str(),
                m.tool_calls[0].id.as_str(),
                m.tool_calls[0].name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        closed,
        [
            ("vault", "v1", "vault_read"),
            ("operator", "call_deploy", "deploy"),
            ("root", "n1", "noop")
        ]
    );
    assert_eq!(close_dangling_calls(&store, "t", "").await.unwrap(), 0);
    // With no root name, the default agent authors.
    seed(
        &store,
        "u",
        vec![row("assistant", "", "", vec![call("z", "z", "{}")])],
    )
    .await;
    close_dangling_calls(&store, "u", "").await.unwrap();
    assert_eq!(
        store.list_messages("u").await.unwrap()[1].author,
        "lango-agent"
    );
}

#[tokio::test]
async fn acceptance_43_tool_calls_reload_and_missing_session() {
    let (_dir, store) = temp_store().await;
    let tc = ToolCall {
        id: "tc-1".into(),
        name: "exec".into(),
        input: r#"{"cmd":"ls"}"#.into(),
        output: "file.txt".into(),
        ..ToolCall::default()
    };
    seed(
        &store,
        "s",
        vec![row("assistant", "", "", vec![tc.clone()])],
    )
    .await;
    let svc = service(&store, "", 0);
    let s = svc.get("s").await.unwrap();
    assert_eq!(adapter(s.as_ref()).history()[0].tool_calls, [tc]);
    // Appending to a session that no longer exists → not found.
    svc.delete("s").await.unwrap();
    let err = svc
        .append_event(s.as_ref(), event("user", "user", vec![Part::text("x")]))
        .await
        .unwrap_err();
    assert!(
        matches!(err, AgentError::Store(StoreError::NotFound { .. })),
        "{err:?}"
    );
    assert_eq!(adapter(s.as_ref()).history_len(), 1);
}
