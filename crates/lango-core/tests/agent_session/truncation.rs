//! Spec 003/004: token-budget truncation, sequence safety, the default budget and its propagation.

use lango_core::agent::session::{EventsAdapter, SessionServiceAdapter, CUT_MARKER};
use lango_core::agent::{EventsView, Part, SessionService};
use lango_core::tokens::DEFAULT_TOKEN_BUDGET;

use super::*;

/// The contents of the rows a session of `svc` sends the model.
async fn kept(svc: &SessionServiceAdapter, key: &str) -> Vec<String> {
    let session = svc.get(key).await.unwrap();
    adapter(session.as_ref())
        .events_adapter()
        .truncated_history()
        .iter()
        .map(|m| m.content.clone())
        .collect()
}

fn exchange() -> Vec<NewMessage> {
    vec![
        row("user", "", "U1", vec![]),
        row(
            "assistant",
            "",
            "A1",
            vec![call("c1", "exec", r#"{"cmd":"ls"}"#)],
        ),
        row(
            "tool",
            "",
            "T1",
            vec![response("c1", "exec", r#"{"out":"x"}"#)],
        ),
        row("user", "", "U2", vec![]),
        row("assistant", "", "A2", vec![]),
    ]
}

#[tokio::test]
async fn truncation_cuts_before_tool_message() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let rows = seed(&store, "s", exchange()).await;
    // Budget 30 keeps [T1, U2, A2]; the leading tool row is dropped.
    assert_eq!(kept(&service(&store, "", 30), "s").await, ["U2", "A2"]);
    // The same cut over the full in-memory history (nothing cut by the store).
    let view = EventsAdapter::new(rows, 30, "");
    let contents: Vec<&str> = view
        .truncated_history()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(contents, ["U2", "A2"]);
    assert_eq!(event_roles(&view.all()), ["user", "assistant"]);
}

#[tokio::test]
async fn truncation_drops_a_user_stored_response_at_the_cut() {
    // [FIX] role correction before the check: a user row carrying output counts as a tool row.
    let (_dir, store) = temp_store_with_cost(10).await;
    let rows = seed(
        &store,
        "s",
        vec![
            row("user", "", "U1", vec![]),
            row("assistant", "", "", vec![call("c1", "exec", "{}")]),
            row(
                "user",
                "",
                r#"{"out":"x"}"#,
                vec![response("c1", "exec", r#"{"out":"x"}"#)],
            ),
            row("user", "", "U2", vec![]),
        ],
    )
    .await;
    let view = EventsAdapter::new(rows, 20, "");
    let contents: Vec<&str> = view
        .truncated_history()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(contents, ["U2"]);
    assert_eq!(kept(&service(&store, "", 20), "s").await, ["U2"]);
}

#[tokio::test]
async fn no_truncation_preserves_trailing_function_call() {
    let (_dir, store) = temp_store_with_cost(10).await;
    seed(
        &store,
        "s",
        vec![
            row("user", "", "U", vec![]),
            row("assistant", "", "A", vec![call("c1", "exec", "{}")]),
        ],
    )
    .await;
    let svc = service(&store, "", 100_000);
    assert_eq!(kept(&svc, "s").await, ["U", "A"]);
    let all = svc.get("s").await.unwrap().events().all();
    assert_eq!(event_roles(&all), ["user", "assistant"]);
    assert_eq!(
        parts(&all[1])[1],
        Part::function_call("c1", "exec", Default::default())
    );
}

#[tokio::test]
async fn history_truncation_with_explicit_budget() {
    let (_dir, store) = temp_store_with_cost(14).await;
    let rows = alternating(10);
    let stored = seed(&store, "s", rows).await;
    let svc = service(&store, "", 30);
    assert_eq!(kept(&svc, "s").await, ["m8", "m9"]);
    assert_eq!(
        first_texts(&svc.get("s").await.unwrap().events().all()),
        ["m8", "m9"]
    );
    let view = EventsAdapter::new(stored, 30, "");
    assert_eq!(view.truncated_history().len(), 2);
}

#[tokio::test]
async fn default_token_budget() {
    assert_eq!(DEFAULT_TOKEN_BUDGET, 32_000);
    let (_dir, store) = temp_store_with_cost(1_000).await;
    let rows = alternating(40);
    let stored = seed(&store, "s", rows).await;
    for budget in [0, -5] {
        let svc = service(&store, "", budget);
        assert_eq!(svc.token_budget(), 32_000);
        let session = svc.get("s").await.unwrap();
        assert_eq!(adapter(session.as_ref()).budget(), 32_000);
        // 32 rows of cost 1000 fit exactly.
        let contents = kept(&svc, "s").await;
        assert_eq!(contents.len(), 32);
        assert_eq!(contents[0], "m8");
    }
    let svc = SessionServiceAdapter::new(store.clone(), "");
    assert_eq!(svc.token_budget(), 32_000);
    let view = EventsAdapter::new(stored, 0, "");
    assert_eq!(view.budget(), 32_000);
    assert_eq!(view.len(), 32);
}

#[tokio::test]
async fn with_token_budget_sets_budget_on_adapter() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let svc = service(&store, "", 30);
    assert_eq!(svc.token_budget(), 30);
    // Created sessions and loaded (get-or-create) sessions both use it.
    let created = svc.create("new", Default::default()).await.unwrap();
    let loaded = svc.get("other").await.unwrap();
    assert_eq!(adapter(created.as_ref()).budget(), 30);
    assert_eq!(adapter(loaded.as_ref()).budget(), 30);
    for i in 0..6 {
        let role = if i % 2 == 0 { "user" } else { "model" };
        svc.append_event(
            created.as_ref(),
            event("x", role, vec![Part::text(format!("m{i}"))]),
        )
        .await
        .unwrap();
    }
    // In-memory appends are truncated to the budget too.
    let view = adapter(created.as_ref()).events_adapter();
    assert_eq!(view.budget(), 30);
    assert_eq!(first_texts(&view.all()), ["m3", "m4", "m5"]);
    // Reloaded, the same.
    assert_eq!(kept(&svc, "new").await, ["m3", "m4", "m5"]);
}

#[tokio::test]
async fn sequence_safety_applies_when_the_store_cut_the_tail() {
    // The store's tail starts at a tool row; nothing more is cut in memory, yet it is dropped.
    let (_dir, store) = temp_store_with_cost(10).await;
    seed(&store, "s", exchange()).await;
    let svc = service(&store, "", 30);
    let session = svc.get("s").await.unwrap();
    let a = adapter(session.as_ref());
    let loaded: Vec<String> = a.history().iter().map(|m| m.content.clone()).collect();
    assert_eq!(loaded, ["T1", "U2", "A2"]);
    assert!(a.older_messages_cut());
    assert_eq!(first_texts(&session.events().all()), ["U2", "A2"]);
}

/// Spec 000 "Fallback to message count", superseded by spec 003: with memory off there is no
/// 100-message cap any more — the token budget alone decides, so 150 cheap rows that fit are
/// all sent.
#[tokio::test]
async fn fallback_to_message_count_is_replaced_by_the_token_budget() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let rows = alternating(150);
    seed(&store, "s", rows).await;
    // The default budget (32,000) holds all 150 rows of cost 10.
    let all = kept(&service(&store, "", 0), "s").await;
    assert_eq!(all.len(), 150);
    assert_eq!(all[0], "m0");
    // A budget of 1,200 holds the newest 120: still more than 100, and the newest last.
    let tail = kept(&service(&store, "", 1_200), "s").await;
    assert_eq!(tail.len(), 120);
    assert_eq!(tail.last().map(String::as_str), Some("m149"));
}

/// Issue 14 item 16: a tool result bigger than the whole history budget used to leave the
/// model an empty history (the store's tail held only that row, and sequence safety dropped
/// it as a leading tool row). Now the user's message, the call and a cut result are sent.
#[tokio::test]
async fn a_tool_result_bigger_than_the_budget_still_sends_the_message_the_call_and_a_cut_result() {
    let (_dir, store) = temp_store().await;
    let huge = format!(
        r#"{{"result":"{}"}}"#,
        "line of a very long log file\\n".repeat(4_000)
    );
    seed(
        &store,
        "s",
        vec![
            row("user", "", "an older question", vec![]),
            row("assistant", "", "an older answer", vec![]),
            row("user", "", "read the log", vec![]),
            row(
                "assistant",
                "",
                "",
                vec![call("c1", "read_file", r#"{"path":"app.log"}"#)],
            ),
            row("tool", "", &huge, vec![response("c1", "read_file", &huge)]),
        ],
    )
    .await;
    let budget = 2_000;
    let session = service(&store, "", budget).get("s").await.unwrap();
    let view = adapter(session.as_ref()).events_adapter();
    let sent = view.truncated_history();
    assert_eq!(
        sent.iter().map(|m| m.role.as_str()).collect::<Vec<_>>(),
        ["user", "assistant", "tool"]
    );
    assert_eq!(sent[0].content, "read the log");
    let result = &sent[2].tool_calls[0].output;
    assert!(result.contains(CUT_MARKER), "{result}");
    assert!(
        result.starts_with(r#"{"result":"line of a very long log file"#),
        "{result}"
    );
    let counter = lango_core::tokens::default_counter();
    let cost: usize = sent
        .iter()
        .map(|m| {
            counter.count(&m.content)
                + m.tool_calls
                    .iter()
                    .map(|c| counter.count(&c.output) + counter.count(&c.input))
                    .sum::<usize>()
        })
        .sum();
    assert!(
        cost <= budget as usize,
        "the fitted view costs {cost} > {budget}"
    );
    // The stored result is untouched.
    let stored = store.list_messages("s").await.unwrap();
    assert_eq!(stored[4].tool_calls[0].output, huge);
    // What the model is sent: the message, the call and its (cut) result, paired.
    let events = session.events().all();
    assert_eq!(event_roles(&events), ["user", "assistant", "function"]);
    let b = super::wire::assert_no_orphans(&events);
    assert_eq!(b.openai["messages"][0]["content"], "read the log");
}

/// A final reply bigger than the budget is cut, not sent whole over it, and the user's
/// message before it stays.
#[tokio::test]
async fn a_reply_bigger_than_the_budget_is_cut_and_the_users_message_stays() {
    let (_dir, store) = temp_store().await;
    let long = "a sentence of a very long answer. ".repeat(2_000);
    seed(
        &store,
        "s",
        vec![
            row("user", "", "write a lot", vec![]),
            row("assistant", "", &long, vec![]),
        ],
    )
    .await;
    let session = service(&store, "", 1_000).get("s").await.unwrap();
    let all = session.events().all();
    assert_eq!(event_roles(&all), ["user", "assistant"]);
    let reply = &texts(&all[1])[0];
    assert!(
        reply.contains(CUT_MARKER) && reply.len() < long.len() / 5,
        "{}",
        reply.len()
    );
}
