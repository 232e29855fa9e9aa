//! Settings, keys, exports, search and delete, and the About section's release feed through `App`.

use super::*;

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
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["The answer is 42."])])).await;
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
    let (_home, _fake, app) =
        app_with(Script::new([Turn::text(["Line one.\r\nLine two.\rEnd."])])).await;
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

#[tokio::test]
async fn about_shows_what_the_database_and_its_backups_take_on_disk() {
    let home = tempfile::tempdir().unwrap();
    // No daily copy: it is taken in the background at open and would race the counts.
    let mut settings = settings_with_provider("http://127.0.0.1:9/v1");
    settings["backups"] = json!({"daily": false});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let app = open_app(home.path()).await;
    let empty = app.storage_usage().await.unwrap();
    assert_eq!(
        (empty.conversations, empty.backups, empty.backups_bytes),
        (0, 0, 0)
    );
    assert!(empty.database_bytes > 0, "the schema alone takes pages");

    for _ in 0..3 {
        app.create_session().await.unwrap();
    }
    let backups = home.path().join("backups");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join("lango-2026-11-28-daily.db"), vec![0u8; 4096]).unwrap();
    std::fs::write(backups.join("my-copy.db"), vec![0u8; 1000]).unwrap();
    std::fs::write(backups.join("notes.txt"), "not a backup").unwrap();

    let usage = app.storage_usage().await.unwrap();
    assert_eq!(usage.conversations, 3);
    assert_eq!((usage.backups, usage.backups_bytes), (2, 5096));
    let on_disk: u64 = ["lango.db", "lango.db-wal"]
        .iter()
        .map(|f| std::fs::metadata(home.path().join(f)).map_or(0, |m| m.len()))
        .sum();
    assert_eq!(usage.database_bytes, on_disk);
}
