//! The desktop app's service (`lango_core::app::App`) end to end: a real SQLite file, real
//! HTTP to the scriptable fake provider. These are the flows of the desktop issue — first
//! run, chat with streaming, stop, regenerate, edit and resend, errors, settings, export,
//! memory browser and inspector — without a window (the WebDriver tests drive the window).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lango_core::app::{App, ChatEvent, ExportFormat, MemoryItemKind, TurnOutcome, TurnStatus};
use lango_core::paths::AppPaths;
use lango_core::store::MessageStatus;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};

const KEY: &str = "sk-app-test-0123456789";

/// Settings with one OpenAI-compatible provider `fake` at `base_url`; its key comes from
/// the environment (LANGO_FAKE_API_KEY), as a user's CI or shell would give it.
fn settings_with_provider(base_url: &str) -> Value {
    json!({
        "providers": {"fake": {"type": "openai-compatible", "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "fake", "systemPrompt": "You are a test assistant."},
        "secrets": {"allowFileStore": true}
    })
}

async fn open_app(home: &Path) -> App {
    std::env::set_var("LANGO_FAKE_API_KEY", KEY);
    App::open(AppPaths::under(home)).await.expect("app opens")
}

async fn app_with(script: Script) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(script).await;
    let base = format!("{}/v1", fake.base_url());
    std::fs::write(
        home.path().join("settings.json"),
        settings_with_provider(&base).to_string(),
    )
    .unwrap();
    let app = open_app(home.path()).await;
    (home, fake, app)
}

type Seen = Arc<Mutex<Vec<ChatEvent>>>;

fn recorder() -> (Seen, impl FnMut(ChatEvent) + Send + 'static) {
    let seen: Seen = Arc::default();
    let sink = Arc::clone(&seen);
    (seen, move |e| sink.lock().unwrap().push(e))
}

fn streamed_text(seen: &Seen) -> String {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Delta { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

async fn send(app: &App, key: &str, text: &str) -> (TurnOutcome, String) {
    let (seen, sink) = recorder();
    let outcome = app.send(key, text, sink).await.expect("turn runs");
    (outcome, streamed_text(&seen))
}

/// An app whose provider answers every call with `note`, with the memory on and `memory`
/// merged into `observationalMemory`.
async fn app_with_memory(note: &str, memory: Value) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new([Turn::text([note])])).await;
    let mut doc = settings_with_provider(&format!("{}/v1", fake.base_url()));
    let mut om = json!({"enabled": true});
    if let (Some(om), Some(extra)) = (om.as_object_mut(), memory.as_object()) {
        om.extend(extra.clone());
    }
    doc["observationalMemory"] = om;
    std::fs::write(home.path().join("settings.json"), doc.to_string()).unwrap();
    let app = open_app(home.path()).await;
    (home, fake, app)
}

/// Sends `n` messages "Turn <i>: <text>" to `key`, one turn each.
async fn send_turns(app: &App, key: &str, n: usize, text: &str) {
    for i in 0..n {
        send(app, key, &format!("Turn {i}: {text}")).await;
    }
}

/// Waits (at most 20 s) for the memory's first "observation added" event.
async fn first_observation(
    events: &mut tokio::sync::broadcast::Receiver<lango_core::memory::MemoryEvent>,
) -> lango_core::store::Observation {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Ok(lango_core::memory::MemoryEvent::ObservationAdded(o)) = events.recv().await {
                return o;
            }
        }
    })
    .await
    .expect("an observation is added")
}

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
    let outcome = app.regenerate("s", sink).await.unwrap();
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

#[tokio::test]
async fn invalid_settings_are_refused_whole_and_the_file_is_unchanged() {
    let (home, _fake, app) = app_with(Script::new([Turn::text(["ok"])])).await;
    let before = std::fs::read_to_string(home.path().join("settings.json")).unwrap();
    let mut doc = app.settings().await.settings;
    doc["observationalMemory"]["messageTokenThreshold"] = json!(-5);
    let report = app.validate_settings(&doc);
    assert_eq!(report.problems.len(), 1);
    assert_eq!(
        report.problems[0].field,
        "observationalMemory.messageTokenThreshold"
    );
    let err = app.save_settings(&doc).await.unwrap_err();
    assert_eq!(err.code, "invalid_settings");
    assert_eq!(
        std::fs::read_to_string(home.path().join("settings.json")).unwrap(),
        before
    );
}

#[tokio::test]
async fn test_connection_lists_the_providers_models() {
    let (_home, _fake, app) =
        app_with(Script::new([Turn::text(["ok"])]).with_models(["fake-small", "fake-large"])).await;
    let doc = app.settings().await.settings;
    let models = app.test_connection(&doc, "fake", None).await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["fake-large", "fake-small"]);
}

#[tokio::test]
async fn a_stored_key_never_reaches_the_settings_database_or_exports() {
    let (home, _fake, app) = app_with(Script::new([Turn::text(["fine"])])).await;
    let location = app.set_api_key("fake", KEY).await.unwrap();
    assert_ne!(
        location,
        lango_core::secrets::KeyLocation::Missing,
        "the key is stored somewhere"
    );
    send(&app, "s", "hello").await;
    let md = app
        .export_session("s", ExportFormat::Markdown)
        .await
        .unwrap();
    let json = app.export_session("s", ExportFormat::Json).await.unwrap();
    app.shutdown().await;
    for file in [
        home.path().join("settings.json"),
        home.path().join("lango.db"),
        md.path.clone().into(),
        json.path.clone().into(),
    ] {
        let bytes = std::fs::read(&file).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(KEY),
            "{} contains the API key",
            file.display()
        );
    }
    let _ = app.delete_api_key("fake").await;
}

#[tokio::test]
async fn export_writes_markdown_and_json_files_with_the_conversation() {
    let (home, _fake, app) = app_with(Script::new([Turn::text(["The answer is 42."])])).await;
    std::env::set_var("LANGO_EXPORT_DIR", home.path().join("exports"));
    send(&app, "s", "What is the answer?").await;
    let md = app
        .export_session("s", ExportFormat::Markdown)
        .await
        .unwrap();
    let text = std::fs::read_to_string(&md.path).unwrap();
    assert!(text.contains("What is the answer?") && text.contains("The answer is 42."));
    assert!(md.path.ends_with(".md"));
    let json = app.export_session("s", ExportFormat::Json).await.unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json.path).unwrap()).unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 2);
}

/// "Show in folder" on the export notice: the desktop may reveal the files this app
/// exported, and nothing else the webview names.
#[tokio::test]
async fn only_files_this_app_exported_can_be_shown_in_the_file_manager() {
    let (home, _fake, app) = app_with(Script::new([Turn::text(["Shown."])])).await;
    std::env::set_var("LANGO_EXPORT_DIR", home.path().join("exports-shown"));
    send(&app, "s", "Show me").await;
    let md = app
        .export_session("s", ExportFormat::Markdown)
        .await
        .unwrap();
    assert_eq!(app.exported_file(&md.path).unwrap(), Path::new(&md.path));

    let other = home.path().join("not-an-export.md");
    std::fs::write(&other, "x").unwrap();
    for path in [
        other.display().to_string(),
        "/etc/passwd".into(),
        String::new(),
    ] {
        let err = app.exported_file(&path).unwrap_err();
        assert_eq!(err.code, "not_an_export", "{path}");
    }
    std::fs::remove_file(&md.path).unwrap();
    assert_eq!(app.exported_file(&md.path).unwrap_err().code, "not_found");
}

/// Same bytes on every OS: LF only in Markdown (a pasted CRLF included), the text exact in
/// JSON, and a file name Windows accepts from any title.
#[tokio::test]
async fn exports_use_lf_line_endings_and_a_file_name_every_os_accepts() {
    let (home, _fake, app) =
        app_with(Script::new([Turn::text(["Line one.\r\nLine two.\rEnd."])])).await;
    let dir = home.path().join("exports-lf");
    std::env::set_var("LANGO_EXPORT_DIR", &dir);
    send(&app, "s", "First\r\nsecond").await;
    app.rename_session("s", "Plans: \"a/b\" <draft>?. ")
        .await
        .unwrap();
    let md = app
        .export_session("s", ExportFormat::Markdown)
        .await
        .unwrap();
    let name = Path::new(&md.path).file_name().unwrap().to_str().unwrap();
    assert_eq!(name, "Lango - Plans- -a-b- -draft--.md");
    let bytes = std::fs::read(&md.path).unwrap();
    assert!(!bytes.contains(&b'\r'), "a CR in the Markdown export");
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("First\nsecond") && text.contains("Line one.\nLine two.\nEnd."));
    let json = app.export_session("s", ExportFormat::Json).await.unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json.path).unwrap()).unwrap();
    assert_eq!(
        doc["messages"][0]["content"], "First\r\nsecond",
        "JSON keeps the text exactly"
    );
}

#[tokio::test]
async fn search_finds_the_conversation_and_delete_removes_it() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["Paris it is."])])).await;
    send(&app, "travel", "Where should I go for croissants?").await;
    app.rename_session("travel", "Trip planning").await.unwrap();
    let hits = app.search("croiss", None, 10, 0).await.unwrap().hits;
    assert_eq!(hits[0].session_key, "travel");
    assert_eq!(hits[0].session_title, "Trip planning");
    app.pin_session("travel", true).await.unwrap();
    assert!(app.list_sessions(10).await.unwrap()[0].pinned);
    app.delete_session("travel").await.unwrap();
    assert!(app.list_sessions(10).await.unwrap().is_empty());
    assert!(app
        .search("croiss", None, 10, 0)
        .await
        .unwrap()
        .hits
        .is_empty());
}

#[tokio::test]
async fn with_low_thresholds_memory_fills_the_browser_and_the_inspector_shows_it() {
    let (_home, _fake, app) = app_with_memory(
        "The user is planning a trip to Lisbon in May and likes seafood.",
        json!({"messageTokenThreshold": 30, "observationTokenThreshold": 10000, "maxMessageTokenBudget": 2000}),
    )
    .await;
    let mut events = app.subscribe_memory();
    send_turns(
        &app,
        "trip",
        4,
        "I am planning a long trip to Lisbon, any tips for the food there?",
    )
    .await;
    // The memory runs in the background after turns; wait for its "memory updated" event.
    let added = first_observation(&mut events).await;
    assert_eq!(added.session_key, "trip");
    let overview = app.memory_overview("trip").await.unwrap();
    assert!(overview.enabled);
    // The view names the conversation it shows.
    assert!(
        overview.title.contains("I am planning a long trip"),
        "{}",
        overview.title
    );
    assert!(!overview.observations.is_empty());
    let first = &overview.observations[0];
    let sources = app
        .memory_sources("trip", first.seq_start, first.seq_end)
        .await
        .unwrap();
    assert!(!sources.is_empty());
    assert!(sources
        .iter()
        .all(|m| m.seq >= first.seq_start && m.seq <= first.seq_end));

    let view = app.inspect("trip").await.unwrap();
    assert!(view.memory_enabled);
    assert!(
        view.system_prompt.contains("## Conversation Memory"),
        "{}",
        view.system_prompt
    );
    assert!(view.memory_tokens > 0);
    assert!(view.sections.iter().any(|s| s.name == "memory"));
    // The observation's compaction left a summary row holding the same note: it is not sent
    // again, and the inspector says what that saved.
    assert_eq!(view.summaries_not_repeated, 1, "{:?}", view.history);
    assert!(view.summary_tokens_saved > 0);
    assert!(!view
        .history
        .iter()
        .any(|h| h.text.starts_with("[Compacted Summary]")));

    // An edit is what the next prompt uses.
    app.update_memory_item(
        MemoryItemKind::Observation,
        &first.id,
        "Edited: likes sardines.",
    )
    .await
    .unwrap();
    let view = app.inspect("trip").await.unwrap();
    assert!(view.system_prompt.contains("Edited: likes sardines."));
    app.delete_memory_item(MemoryItemKind::Observation, &first.id)
        .await
        .unwrap();
    let view = app.inspect("trip").await.unwrap();
    assert!(!view.system_prompt.contains("Edited: likes sardines."));
    app.shutdown().await;
}

#[tokio::test]
async fn a_corrupt_database_is_an_error_and_is_left_in_place() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("lango.db");
    std::fs::write(&db, b"this is not a database, but it is the user's file").unwrap();
    let err = App::open(AppPaths::under(home.path())).await.unwrap_err();
    assert_eq!(err.code, "database_corrupt");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        b"this is not a database, but it is the user's file"
    );
}

/// spec 002 "Wire compactor during app initialization": the app, built from settings with
/// memory on, wires compaction into the memory cycle — the rows an observation covers leave
/// the model's history for one summary row, and stay viewable from the archive.
#[tokio::test]
async fn wire_compactor_during_app_initialization() {
    let (_home, _fake, app) = app_with_memory(
        "The user asked about Lisbon several times.",
        json!({"messageTokenThreshold": 30, "observationTokenThreshold": 10000}),
    )
    .await;
    let mut events = app.subscribe_memory();
    send_turns(
        &app,
        "compact",
        4,
        "tell me about Lisbon's old town, please.",
    )
    .await;
    let added = first_observation(&mut events).await;

    let history = app.store().list_messages("compact").await.unwrap();
    assert_eq!(
        history.first().map(|m| m.kind),
        Some(lango_core::store::MessageKind::Summary),
        "the history starts with the compaction summary"
    );
    // (The summary row takes the seq just below the oldest remaining row, so only ordinary
    // rows are checked against the covered range.)
    assert!(
        history
            .iter()
            .filter(|m| m.kind == lango_core::store::MessageKind::Message)
            .all(|m| m.seq < added.seq_start || m.seq > added.seq_end),
        "covered rows are still in the model's history"
    );
    let archived = app
        .memory_sources("compact", added.seq_start, added.seq_end)
        .await
        .unwrap();
    assert!(!archived.is_empty());
    assert!(archived.iter().all(|m| m.archived));
    app.shutdown().await;
}

/// Settings → About: off until a feed is saved (no request at all), then the feed's answer
/// with the version, link and notes the window shows.
#[tokio::test]
async fn about_checks_the_saved_release_feed_only_once_one_is_set() {
    use lango_core::app::UpdateOutcome;
    use lango_testkit::server::{Reply, TestServer};

    let feed = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            br#"{"version":"99.1.0","url":"https://example.com/r/99.1.0","notes":"New things."}"#
                .to_vec(),
        )
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let app = open_app(home.path()).await;

    let off = app.check_for_updates().await;
    assert_eq!(off.outcome, UpdateOutcome::Off);
    assert_eq!(off.current, env!("CARGO_PKG_VERSION"));
    assert!(feed.requests().is_empty());

    let mut doc = app.settings().await.settings;
    doc["updates"] = json!({ "feedUrl": format!("{}/latest.json", feed.base_url()) });
    app.save_settings(&doc).await.expect("saves");
    let found = app.check_for_updates().await;
    assert_eq!(found.outcome, UpdateOutcome::Available, "{found:?}");
    assert_eq!(found.latest.as_deref(), Some("99.1.0"));
    assert_eq!(found.url.as_deref(), Some("https://example.com/r/99.1.0"));
    assert_eq!(found.notes.as_deref(), Some("New things."));
    assert_eq!(feed.requests().len(), 1);
    app.shutdown().await;
}
