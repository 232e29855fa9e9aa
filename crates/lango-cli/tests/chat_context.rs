//! `lango chat` and the model's context: the history sent stays within its token budget, and
//! a message that cannot fit the context the server runs the model with is refused in plain
//! words and kept.

mod support;

use lango_core::store::{NewMessage, Store};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use support::{
    base_url, history_tokens, lango, rows, stderr, write_provider_settings as write_settings,
};

#[tokio::test(flavor = "multi_thread")]
async fn the_history_sent_obeys_the_token_budget() {
    let fake = FakeProvider::start(Script::new([Turn::text(["noted"])])).await;
    let home = tempfile::tempdir().unwrap();
    // Memory on: the history budget is maxMessageTokenBudget (REFERENCE §2.5 [FIX]).
    write_settings(
        home.path(),
        "openai-compatible",
        &base_url(&fake, "openai-compatible"),
        json!({"observationalMemory": {"enabled": true, "maxMessageTokenBudget": 400, "messageTokenThreshold": 100}}),
    );
    {
        let store = Store::open(&home.path().join("lango.db")).await.unwrap();
        store.create_session("long", "").await.unwrap();
        for i in 0..200 {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let text = format!(
                "message {i}: {}",
                "a fairly long sentence about the plan ".repeat(4)
            );
            store
                .append_message("long", NewMessage::new(role, text))
                .await
                .unwrap();
        }
        store.close().await;
    }
    let out = lango(
        home.path(),
        &["chat", "--session", "long", "and now?"],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let request = fake.generate_requests()[0].json();
    let messages = request["messages"].as_array().unwrap();
    let history: Vec<&Value> = messages.iter().filter(|m| m["role"] != "system").collect();
    let cost = history_tokens(&request);
    assert!(
        cost <= 400,
        "history of {cost} tokens exceeds the 400-token budget"
    );
    assert!(
        history.len() >= 3 && history.len() < 200,
        "{} messages sent",
        history.len()
    );
    assert_eq!(
        history.last().unwrap()["content"],
        "and now?",
        "the newest message is always sent"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_longer_than_the_models_context_says_what_to_change_and_is_kept() {
    // A server with a 200-token context, as llama.cpp refuses a longer prompt.
    let fake =
        FakeProvider::start(Script::new([Turn::text(["unused"])]).with_context_window(200)).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        "openai-compatible",
        &base_url(&fake, "openai-compatible"),
        json!({}),
    );
    let long = "Please read this. ".repeat(150);
    let out = lango(home.path(), &["chat", "--session", "s", &long], None).await;
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(
        err.contains("too long for the model's context (200 tokens)"),
        "{err}"
    );
    assert!(
        err.contains("the older messages were already left out; shorten the message"),
        "{err}"
    );
    assert_eq!(fake.turns_served(), 0, "nothing answered");
    let stored = rows(home.path(), "s").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].content, long);
}
