//! A conversation through `App`: first run, streaming, stop, quit mid-reply, busy, regenerate,
//! edit, provider errors.

use super::*;

#[tokio::test]
async fn first_run_without_a_provider_is_a_guided_state_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let app = open_app(home.path()).await;
    let status = app.status().await;
    assert!(!status.ready);
    assert_eq!(
        status.problem.as_ref().map(|p| p.code.as_str()),
        Some("no_provider")
    );
    let err = app.send("k", "hello", |_| {}).await.unwrap_err();
    assert_eq!(err.code, "no_provider");
    // Sessions and settings still work.
    assert!(app.list_sessions(50).await.unwrap().is_empty());
    assert!(app.settings().await.keys.is_empty());
}

#[tokio::test]
async fn adding_a_provider_in_settings_makes_chat_work_without_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new([Turn::text(["Hi", " there"])])).await;
    let app = open_app(home.path()).await;
    assert!(!app.status().await.ready);
    let doc = settings_with_provider(&format!("{}/v1", fake.base_url()));
    app.save_settings(&doc).await.expect("valid settings save");
    assert!(app.status().await.ready);
    let (outcome, text) = send(&app, "s1", "hello").await;
    assert_eq!(outcome.status, TurnStatus::Complete);
    assert_eq!(text, "Hi there");
    // Kept across restarts: the file was written.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(saved["agent"]["provider"], "fake");
}

#[tokio::test]
async fn a_reply_streams_and_is_stored_and_the_session_is_titled_by_the_first_message() {
    let (_home, _fake, app) =
        app_with(Script::new([Turn::slow_text(["Hel", "lo", " world"], 40)])).await;
    let session = app.create_session().await.unwrap();
    let (outcome, text) = send(&app, &session.key, "Tell me something nice").await;
    assert_eq!(outcome.status, TurnStatus::Complete, "{outcome:?}");
    assert_eq!(text, "Hello world");
    let messages = app.page_messages(&session.key, None, 100).await.unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(messages[1].content, "Hello world");
    let listed = app.list_sessions(10).await.unwrap();
    assert_eq!(listed[0].title, "Tell me something nice");
}

#[tokio::test]
async fn stop_mid_reply_keeps_the_partial_reply_and_closes_the_provider_connection() {
    let (_home, fake, app) = app_with(Script::new([Turn::stall(["Half of an ans"], 30_000)])).await;
    let runner = app.clone();
    let (seen, sink) = recorder();
    let turn = tokio::spawn(async move { runner.send("s", "long question", sink).await });
    // Wait until the partial text has reached the UI, then press stop.
    for _ in 0..200 {
        if !streamed_text(&seen).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(streamed_text(&seen), "Half of an ans");
    assert!(app.is_busy("s"));
    assert!(app.stop("s"));
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("stop ends the turn promptly")
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Stopped);
    let messages = app.page_messages("s", None, 10).await.unwrap();
    let reply = messages.last().unwrap();
    assert_eq!(reply.content, "Half of an ans");
    assert_eq!(reply.status, MessageStatus::Interrupted);
    for _ in 0..100 {
        if fake.closed_early() >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        fake.closed_early() >= 1,
        "the provider must see the connection close"
    );
    assert!(!app.is_busy("s"));
}

#[tokio::test(flavor = "multi_thread")]
async fn quitting_mid_reply_keeps_the_partial_reply_marked_interrupted() {
    let (home, _fake, app) = app_with(Script::new([Turn::stall(["Half of an ans"], 30_000)])).await;
    let runner = app.clone();
    let (seen, sink) = recorder();
    let _turn = tokio::spawn(async move { runner.send("s", "long question", sink).await });
    for _ in 0..200 {
        if !streamed_text(&seen).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(streamed_text(&seen), "Half of an ans");
    // The window closes (or the session logs out: SIGTERM) while the reply is written.
    tokio::time::timeout(Duration::from_secs(10), app.shutdown())
        .await
        .expect("quitting does not hang");
    let store = lango_core::store::Store::open(&home.path().join("lango.db"))
        .await
        .unwrap();
    let rows = store.list_messages("s").await.unwrap();
    store.close().await;
    let reply = rows.last().expect("rows");
    assert_eq!(reply.content, "Half of an ans");
    assert_eq!(reply.status, MessageStatus::Interrupted);
}

#[tokio::test]
async fn a_second_message_while_a_reply_is_written_is_refused_as_busy() {
    let (_home, _fake, app) = app_with(Script::new([Turn::stall(["..."], 30_000)])).await;
    let runner = app.clone();
    let turn = tokio::spawn(async move { runner.send("s", "one", |_| {}).await });
    for _ in 0..200 {
        if app.is_busy("s") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let err = app.send("s", "two", |_| {}).await.unwrap_err();
    assert_eq!(err.code, "busy");
    app.stop("s");
    turn.await.unwrap().unwrap();
}

#[tokio::test]
async fn regenerate_replaces_the_last_reply_for_the_same_message() {
    let (_home, fake, app) = app_with(Script::new([
        Turn::text(["First answer"]),
        Turn::text(["Second answer"]),
    ]))
    .await;
    send(&app, "s", "question").await;
    let (seen, sink) = recorder();
    let outcome = app.regenerate("s", None, sink).await.unwrap();
    assert_eq!(outcome.status, TurnStatus::Complete);
    assert_eq!(streamed_text(&seen), "Second answer");
    let messages = app.page_messages("s", None, 10).await.unwrap();
    let texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["question", "Second answer"]);
    // The model saw the question once, not the discarded answer.
    let last = fake.generate_requests().last().unwrap().json();
    let contents: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        !contents.iter().any(|c| c == "First answer"),
        "{contents:?}"
    );
    assert_eq!(contents.iter().filter(|c| *c == "question").count(), 1);
}

#[tokio::test]
async fn edit_and_resend_replaces_the_last_user_message() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["A"]), Turn::text(["B"])])).await;
    send(&app, "s", "typo questoin").await;
    let outcome = app.edit_last("s", "fixed question", |_| {}).await.unwrap();
    assert_eq!(outcome.status, TurnStatus::Complete);
    let texts: Vec<String> = app
        .page_messages("s", None, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(texts, ["fixed question", "B"]);
}

#[tokio::test]
async fn a_provider_error_is_reported_with_its_code_and_reason() {
    let (_home, _fake, app) = app_with(Script::new([Turn::status(401, "invalid api key")])).await;
    let (outcome, _) = send(&app, "s", "hi").await;
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert_eq!(error.code, "unauthorized");
    // A plain headline; the provider's own reason is the detail.
    assert!(
        error.message.contains("did not accept the API key"),
        "{}",
        error.message
    );
    let detail = error.detail.unwrap_or_default();
    assert!(detail.contains("invalid api key"), "{detail}");
    assert!(!error.message.contains(KEY) && !detail.contains(KEY));
}
