//! REFERENCE §6 acceptance cases 38–43: the history within its budget, sequence safety, the
//! model's budget, dangling calls closed, tool calls reloaded.

use lango_core::agent::session::{
    close_dangling_calls, history_token_budget, EventsAdapter, INTERRUPTED_TOOL_OUTPUT,
};
use lango_core::agent::{AgentError, Part, SessionService};
use lango_core::store::StoreError;
use lango_core::tokens::model_token_budget;

use super::*;

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
    let all = loaded_events(&store, "", 30, "s").await;
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
