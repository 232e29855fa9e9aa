//! The desktop app's view of replies that are not complete (issue 14): a stream cut before the
//! provider's end marker fails the turn with the reason and keeps the partial reply marked
//! interrupted; a reply the output limit cut is complete but reported and stored truncated.
//! A real SQLite file, real HTTP to the fake provider.

use std::path::Path;

use lango_core::app::{App, TurnStatus};
use lango_core::paths::AppPaths;
use lango_core::store::MessageStatus;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;

async fn app_with(turns: Vec<Turn>) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new(turns)).await;
    let settings = json!({
        "providers": {"fake": {"type": "openai-compatible", "baseUrl": format!("{}/v1", fake.base_url()), "defaultModel": "fake-model"}},
        "agent": {"provider": "fake"},
    });
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let app = open(home.path()).await;
    (home, fake, app)
}

async fn open(home: &Path) -> App {
    App::open(AppPaths::under(home)).await.expect("app opens")
}

/// (content, status) of the stored replies of `key`.
async fn replies(app: &App, key: &str) -> Vec<(String, MessageStatus)> {
    app.page_messages(key, None, 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.role == "assistant")
        .map(|m| (m.content, m.status))
        .collect()
}

#[tokio::test]
async fn a_stream_cut_before_its_end_marker_fails_the_turn_and_keeps_the_reply_interrupted() {
    let (_home, _fake, app) = app_with(vec![Turn::cut(["Half ", "a reply"])]).await;
    let outcome = app.send("s", "hello", |_| {}).await.expect("turn runs");
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(!outcome.truncated);
    let error = outcome.error.expect("the reason");
    assert_eq!(error.code, "interrupted");
    assert!(
        error
            .message
            .contains("before the provider said the reply was complete"),
        "{}",
        error.message
    );
    assert_eq!(
        replies(&app, "s").await,
        [("Half a reply".to_string(), MessageStatus::Interrupted)]
    );
}

#[tokio::test]
async fn a_reply_cut_at_the_output_limit_is_reported_and_stored_truncated() {
    let (_home, _fake, app) = app_with(vec![
        Turn::length_stop(["The first ", "half"]),
        Turn::text(["The rest."]),
    ])
    .await;
    let outcome = app.send("s", "hello", |_| {}).await.expect("turn runs");
    assert_eq!(outcome.status, TurnStatus::Complete);
    assert!(outcome.truncated, "the outcome says the reply was cut");
    assert_eq!(
        replies(&app, "s").await,
        [("The first half".to_string(), MessageStatus::Truncated)]
    );

    // Continue is an ordinary message; its complete reply is not truncated.
    let outcome = app.send("s", "continue", |_| {}).await.expect("turn runs");
    assert_eq!(outcome.status, TurnStatus::Complete);
    assert!(!outcome.truncated);
    assert_eq!(
        replies(&app, "s").await[1],
        ("The rest.".to_string(), MessageStatus::Complete)
    );
}
