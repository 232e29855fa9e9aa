//! Settings → Data → Import through the `App` service the desktop commands call: progress,
//! the sidebar's "imported from" mark, one import at a time, and the memory build refused
//! with a plain reason when the memory is off.

use std::path::Path;
use std::sync::{Arc, Mutex};

use lango_core::app::App;
use lango_core::import::ImportProgress;
use lango_core::paths::AppPaths;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
        .display()
        .to_string()
}

#[tokio::test]
async fn an_imported_conversation_shows_in_the_sidebar_marked_with_its_origin() {
    let home = tempfile::tempdir().unwrap();
    let app = App::open(AppPaths::under(home.path())).await.unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let summary = app
        .import_file(&format!("  '{}'  ", fixture("claude.json")), move |p| {
            sink.lock().unwrap().push(p)
        })
        .await
        .unwrap();
    assert_eq!(summary.created, 1);
    assert!(matches!(
        events.lock().unwrap().last(),
        Some(ImportProgress::Writing { done: 2, total: 2 })
    ));
    let sessions = app.list_sessions(50).await.unwrap();
    let imported = sessions
        .iter()
        .find(|s| s.title == "Trip to Kyoto 🇯🇵")
        .expect("in the sidebar");
    assert_eq!(imported.origin.as_deref(), Some("claude"));
    let own = app.create_session().await.unwrap();
    let sessions = app.list_sessions(50).await.unwrap();
    let own = sessions.iter().find(|s| s.key == own.key).unwrap();
    assert_eq!(own.origin, None);
    app.shutdown().await;
}

#[tokio::test]
async fn a_missing_file_and_an_empty_path_are_said_plainly() {
    let home = tempfile::tempdir().unwrap();
    let app = App::open(AppPaths::under(home.path())).await.unwrap();
    let err = app.import_file("   ", |_| {}).await.unwrap_err();
    assert_eq!(err.code, "import_no_file");
    let err = app
        .import_file(&home.path().join("nope.json").display().to_string(), |_| {})
        .await
        .unwrap_err();
    assert_eq!(err.code, "import_unreadable");
    assert!(err.message.contains("nope.json"), "{}", err.message);
    // The failed import is over: another may start.
    app.import_file(&fixture("claude.json"), |_| {})
        .await
        .unwrap();
    app.shutdown().await;
}

#[tokio::test]
async fn building_memory_with_the_memory_off_says_where_to_turn_it_on() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"providers": {"local": {"type": "ollama", "baseUrl": "http://127.0.0.1:9"}},
            "agent": {"provider": "local", "model": "m"},
            "observationalMemory": {"enabled": false}}"#,
    )
    .unwrap();
    let app = App::open(AppPaths::under(home.path())).await.unwrap();
    app.import_file(&fixture("claude.json"), |_| {})
        .await
        .unwrap();
    let err = app.estimate_import_memory(Vec::new()).await.unwrap_err();
    assert_eq!(err.code, "memory_off");
    assert!(err.message.contains("Settings → Memory"));
    app.shutdown().await;
}

#[tokio::test]
async fn the_memory_of_imported_conversations_is_estimated_then_built_with_progress() {
    use lango_testkit::fake::{FakeProvider, Script, Turn};

    let fake = FakeProvider::start(Script::new(
        (0..20).map(|i| Turn::text([format!("note {i}")])),
    ))
    .await;
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        serde_json::json!({
            "providers": {"fake": {"type": "ollama", "baseUrl": fake.base_url(), "defaultModel": "fake-model"}},
            "agent": {"provider": "fake"},
            "observationalMemory": {"enabled": true, "messageTokenThreshold": 10,
                "maxMessageTokenBudget": 40, "observationTokenThreshold": 100000}
        })
        .to_string(),
    )
    .unwrap();
    let app = App::open(AppPaths::under(home.path())).await.unwrap();
    app.import_file(&fixture("chatgpt.json"), |_| {})
        .await
        .unwrap();
    assert!(!app.cancel_import_memory(), "nothing to stop yet");
    // Empty = every imported conversation.
    let estimate = app.estimate_import_memory(Vec::new()).await.unwrap();
    assert_eq!(estimate.sessions, 2);
    assert!(estimate.observer_calls > 0);
    assert_eq!(fake.turns_served(), 0, "the estimate sends nothing");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let report = app
        .build_import_memory(Vec::new(), move |p| sink.lock().unwrap().push(p))
        .await
        .unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.observations, estimate.observer_calls);
    assert_eq!(fake.turns_served(), estimate.observer_calls);
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!((last.done, last.total), (2, 2));
    app.shutdown().await;
}
