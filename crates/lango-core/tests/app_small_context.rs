//! A model served with a smaller context window than its name suggests (llama.cpp runs any
//! model with 4,096 tokens unless told otherwise; Lango budgets 32,000 for a model of no known
//! family): the provider's refusal of a too-long prompt is answered with less history, the
//! size that fit is kept for later messages, and a message that cannot fit even alone says
//! so in plain words. A real SQLite file, real HTTP to the fake provider refusing as
//! llama.cpp's server does.

#[path = "common/servers_ready.rs"]
mod servers_ready;

use std::path::{Path, PathBuf};

use lango_core::app::{App, TurnStatus};
use lango_core::paths::AppPaths;
use lango_testkit::fake::{prompt_tokens, FakeProvider, Script, Turn};
use serde_json::{json, Value};
use servers_ready::servers_ready;

async fn app_with_window(window: u64) -> (tempfile::TempDir, FakeProvider, App) {
    app_with(window, vec![Turn::text(["Noted."])], json!({})).await
}

async fn app_with(
    window: u64,
    turns: Vec<Turn>,
    servers: Value,
) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new(turns).with_context_window(window)).await;
    let settings = json!({
        "providers": {"local": {"type": "openai-compatible", "baseUrl": format!("{}/v1", fake.base_url()), "defaultModel": "smollm2"}},
        "agent": {"provider": "local", "maxTokens": 200},
        "observationalMemory": {"enabled": false},
        "mcpServers": servers,
    });
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let app = open(home.path()).await;
    servers_ready(&app).await;
    (home, fake, app)
}

/// The TypeScript fault server (its `big` tool answers n bytes of "x"), run without asking.
fn fault_server() -> Value {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers/fault-server.mjs");
    json!({"faults": {"command": "node", "args": [script], "autoApprove": ["big"]}})
}

async fn open(home: &Path) -> App {
    App::open(AppPaths::under(home)).await.expect("app opens")
}

/// A message of about 100 tokens that names its number.
fn message(n: usize) -> String {
    format!(
        "Fact number {n}: {}",
        "the quick brown fox jumps over the lazy dog. ".repeat(9)
    )
}

#[tokio::test]
async fn a_model_with_a_small_context_answers_every_message_of_a_long_conversation() {
    let window = 1_500;
    let (_home, fake, app) = app_with_window(window).await;
    for n in 1..=30 {
        let outcome = app.send("s", &message(n), |_| {}).await.expect("turn runs");
        assert_eq!(
            outcome.status,
            TurnStatus::Complete,
            "message {n}: {:?}",
            outcome.error
        );
        // The request that was answered carried this message.
        let served = fake
            .generate_requests()
            .into_iter()
            .rfind(|r| prompt_tokens(r) <= window)
            .expect("an answered request");
        assert!(
            served.body.contains(&format!("Fact number {n}:")),
            "message {n} was not sent"
        );
    }
    let requests = fake.generate_requests();
    let refused = requests
        .iter()
        .filter(|r| prompt_tokens(r) > window)
        .count();
    assert!(
        refused >= 1,
        "30 messages of ~100 tokens must outgrow a 1,500-token window at Lango's 32,000 budget"
    );
    // The size that fit is remembered: not one refusal for each message after the first.
    assert!(refused <= 3, "{refused} refusals in 30 messages");
    assert_eq!(requests.len() - refused, 30);
    // "What the model sees" shows the history that is sent, within the budget that fit.
    let seen = app.inspect("s").await.unwrap();
    assert!(seen.history_budget < 1_500, "{}", seen.history_budget);
    assert!(
        seen.history_budget_learned,
        "the inspector says where the budget came from"
    );
    assert!(seen.history_tokens <= seen.history_budget);
    assert!(seen.history.len() < 60 && seen.history.len() >= 2);
    // Nothing of the conversation is lost: only what is sent is shorter.
    let stored = app.page_messages("s", None, 100).await.unwrap();
    assert_eq!(stored.len(), 60);
}

#[tokio::test]
async fn a_message_too_long_for_the_context_even_alone_says_so_and_is_kept() {
    let (_home, fake, app) = app_with_window(200).await;
    let long = "Please read this. ".repeat(150);
    let outcome = app.send("s", &long, |_| {}).await.expect("turn runs");
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.expect("the reason");
    assert_eq!(error.code, "context_exceeded");
    assert!(
        error
            .message
            .contains("does not fit the model's context (200 tokens)"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("Settings → Tools"),
        "{}",
        error.message
    );
    // Tried a bounded number of times, never in a loop.
    assert!(fake.generate_requests().len() <= 5);
    let stored = app.page_messages("s", None, 100).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].content, long);
    // The context meter and "What the model sees" say the message is over the window.
    let seen = app.inspect("s").await.unwrap();
    assert_eq!(seen.history_budget, 200);
    assert!(seen.history_budget_learned);
    assert!(seen.history_tokens > seen.history_budget);
}

#[tokio::test]
async fn a_tool_result_too_big_for_the_context_is_cut_to_fit_and_the_turn_completes() {
    let window = 1_500;
    let read = Turn::ToolCall {
        id: "call_1".into(),
        name: "faults__big".into(),
        arguments_json: r#"{"bytes": 30000}"#.into(),
        then_text: Some("It is all x.".into()),
    };
    let (_home, fake, app) = app_with(window, vec![read], fault_server()).await;
    let outcome = app
        .send("s", "What is in the big file?", |_| {})
        .await
        .expect("turn runs");
    assert_eq!(outcome.status, TurnStatus::Complete, "{:?}", outcome.error);
    let requests = fake.generate_requests();
    let answered = requests.last().expect("the answered request");
    assert!(prompt_tokens(answered) <= window);
    // The result went cut and marked, with its call; the whole result stays stored.
    assert!(answered
        .body
        .contains("cut to fit the conversation's context"));
    assert!(answered.body.contains("call_1"));
    assert!(requests.iter().any(|r| prompt_tokens(r) > window));
    let stored = app.page_messages("s", None, 100).await.unwrap();
    assert_eq!(
        stored.last().map(|m| m.content.as_str()),
        Some("It is all x.")
    );
}
