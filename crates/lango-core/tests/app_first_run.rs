//! The desktop app's first run: it writes a settings file with the observational memory on
//! (the engine's own default stays off, REFERENCE §4.1), and it never changes a settings
//! file that already exists.

use std::path::Path;

use lango_core::app::App;
use lango_core::config;
use lango_core::paths::AppPaths;
use serde_json::Value;

async fn open(home: &Path) -> App {
    App::open(AppPaths::under(home)).await.expect("app opens")
}

fn saved(home: &Path) -> Value {
    let text = std::fs::read_to_string(home.join("settings.json")).expect("settings.json exists");
    serde_json::from_str(&text).expect("settings.json is JSON")
}

#[tokio::test]
async fn a_first_run_writes_settings_with_the_memory_on() {
    let home = tempfile::tempdir().unwrap();
    let app = open(home.path()).await;
    assert_eq!(saved(home.path())["observationalMemory"]["enabled"], true);
    // The guide reads this before any provider exists.
    assert!(app.status().await.memory_enabled);
    assert_eq!(
        app.settings().await.settings["observationalMemory"]["enabled"],
        true
    );
    app.shutdown().await;
    // The engine's default is the spec's.
    assert!(!config::Settings::default().observational_memory.enabled);
}

#[tokio::test]
async fn an_existing_settings_file_is_never_changed_by_opening_the_app() {
    for existing in [
        "{}\n",
        r#"{"observationalMemory": {"enabled": false}}"#,
        "",
        "{ not json",
    ] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("settings.json"), existing).unwrap();
        let app = open(home.path()).await;
        assert_eq!(
            std::fs::read_to_string(home.path().join("settings.json")).unwrap(),
            existing
        );
        assert!(!home.path().join("settings.json.bak").exists());
        assert!(!app.status().await.memory_enabled, "file {existing:?}");
        app.shutdown().await;
    }
}

#[tokio::test]
async fn a_second_start_keeps_what_the_user_saved_after_the_first() {
    let home = tempfile::tempdir().unwrap();
    let app = open(home.path()).await;
    let mut doc = app.settings().await.settings;
    doc["observationalMemory"]["enabled"] = Value::Bool(false);
    app.save_settings(&doc).await.expect("saves");
    app.shutdown().await;
    let app = open(home.path()).await;
    assert_eq!(saved(home.path())["observationalMemory"]["enabled"], false);
    assert!(!app.status().await.memory_enabled);
    app.shutdown().await;
}
