//! The real `lango` binary, run as a user would, against a temporary data folder.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use lango_core::store::{NewMessage, Store};

fn lango(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lango"))
        .arg("--data-dir")
        .arg(home)
        .args(args)
        .env_remove("LANGO_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("run lango")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn config_path_puts_every_file_under_the_data_dir() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["--json", "config", "path"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        v["settings"],
        home.path().join("settings.json").to_string_lossy().as_ref()
    );
    assert_eq!(
        v["database"],
        home.path().join("lango.db").to_string_lossy().as_ref()
    );
}

#[test]
fn lango_home_moves_the_files_when_no_flag_is_given() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lango"))
        .args(["config", "path"])
        .env("LANGO_HOME", home.path())
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains(&home.path().join("lango.db").display().to_string()),
        "{}",
        stdout(&out)
    );
}

#[test]
fn config_show_prints_the_defaults_when_there_is_no_file() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["config", "show"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let om = &v["observationalMemory"];
    assert_eq!(om["enabled"], false);
    assert_eq!(om["messageTokenThreshold"], 1000);
    assert_eq!(om["observationTokenThreshold"], 2000);
    assert_eq!(om["maxMessageTokenBudget"], 8000);
    assert!(
        !home.path().join("settings.json").exists(),
        "showing does not write a file"
    );
}

#[test]
fn config_validate_reports_every_problem_and_exits_with_the_config_code() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"observationalMemory": {"messageTokenThreshold": -5, "colour": "blue"}, "agent": {"temperature": "hot"}}"#,
    )
    .unwrap();
    let out = lango(home.path(), &["config", "validate"]);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(
        err.contains("observationalMemory.messageTokenThreshold must be > 0, got -5"),
        "{err}"
    );
    assert!(err.contains("observationalMemory.colour"), "{err}");
    assert!(err.contains("agent.temperature"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn config_validate_accepts_a_good_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"providers": {"local": {"type": "ollama"}}, "agent": {"provider": "local", "model": "llama3.1"}}"#,
    )
    .unwrap();
    let out = lango(home.path(), &["config", "validate"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("is valid"));
}

#[test]
fn set_key_for_an_unknown_provider_is_a_config_error() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["config", "set-key", "nobody"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("no provider \"nobody\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unknown_command_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(lango(home.path(), &["frobnicate"]).status.code(), Some(2));
}

#[tokio::test]
async fn sessions_list_shows_conversations_pinned_first() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["sessions", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("No conversations yet"));

    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    store.create_session("older", "Pinned plans").await.unwrap();
    store.create_session("newer", "Latest chat").await.unwrap();
    store
        .append_message("newer", NewMessage::new("user", "hi"))
        .await
        .unwrap();
    store.pin_session("older", true).await.unwrap();
    store.close().await;

    let out = lango(home.path(), &["--json", "sessions", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let keys: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["older", "newer"]);
    let text = stdout(&lango(home.path(), &["sessions", "list"]));
    assert!(
        text.contains("Pinned plans") && text.contains("Latest chat"),
        "{text}"
    );
}

#[test]
fn a_corrupt_database_is_a_store_error_naming_the_file_and_is_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("lango.db");
    std::fs::write(&db, vec![7u8; 4096]).unwrap();
    let out = lango(home.path(), &["sessions", "list"]);
    assert_eq!(out.status.code(), Some(5));
    let err = stderr(&out);
    assert!(
        err.contains(&db.display().to_string()) && err.contains("corrupt"),
        "{err}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), vec![7u8; 4096]);
}

async fn seeded(home: &Path) {
    use lango_core::store::ToolCall;
    let store = Store::open(&home.join("lango.db")).await.unwrap();
    store
        .create_session("trip", "Trip to Lisbon")
        .await
        .unwrap();
    store
        .append_message("trip", NewMessage::new("user", "Plan three days in Lisbon"))
        .await
        .unwrap();
    let mut call = NewMessage::new("assistant", "Let me check the weather.");
    call.tool_calls = vec![ToolCall {
        id: "call_1".into(),
        name: "weather".into(),
        input: r#"{"city":"Lisbon"}"#.into(),
        ..Default::default()
    }];
    store.append_message("trip", call).await.unwrap();
    let mut result = NewMessage::new("tool", r#"{"sky":"sunny"}"#);
    result.tool_calls = vec![ToolCall {
        id: "call_1".into(),
        name: "weather".into(),
        output: r#"{"sky":"sunny"}"#.into(),
        ..Default::default()
    }];
    store.append_message("trip", result).await.unwrap();
    store
        .append_message(
            "trip",
            NewMessage::new("assistant", "Day 1: Alfama. ```rm -rf```"),
        )
        .await
        .unwrap();
    store
        .compact_messages("trip", 1, "User plans a Lisbon trip")
        .await
        .unwrap();
    store.close().await;
}

#[tokio::test]
async fn export_markdown_includes_compacted_messages_tool_calls_and_no_secrets() {
    let home = tempfile::tempdir().unwrap();
    seeded(home.path()).await;
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"providers":{"openai":{"type":"openai"}}}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lango"))
        .args(["--data-dir"])
        .arg(home.path())
        .args(["sessions", "export", "trip", "--format", "md"])
        .env("LANGO_OPENAI_API_KEY", "sk-secret-never-exported")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.starts_with("# Trip to Lisbon\n"), "{md}");
    assert!(
        md.contains("Plan three days in Lisbon") && md.contains("compacted into memory"),
        "{md}"
    );
    assert!(
        md.contains("Called `weather` (`call_1`)") && md.contains(r#"{"city":"Lisbon"}"#),
        "{md}"
    );
    assert!(md.contains("````\n") || md.contains("```json"), "{md}");
    assert!(!md.contains("sk-secret-never-exported"));
    assert!(
        !md.contains("[Compacted Summary]"),
        "summaries stand for rows that are shown themselves"
    );
}

#[tokio::test]
async fn export_json_round_trips_every_message_in_order() {
    let home = tempfile::tempdir().unwrap();
    seeded(home.path()).await;
    let file = home.path().join("trip.json");
    let out = lango(
        home.path(),
        &[
            "sessions",
            "export",
            "trip",
            "--format",
            "json",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(v["format"], "lango-session-v1");
    assert_eq!(v["session"]["title"], "Trip to Lisbon");
    let seqs: Vec<i64> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(v["messages"][0]["archived"], true);
    assert_eq!(
        v["messages"][1]["toolCalls"][0]["input"],
        r#"{"city":"Lisbon"}"#
    );
}

#[tokio::test]
async fn delete_without_yes_is_refused_when_not_interactive_and_keeps_the_session() {
    let home = tempfile::tempdir().unwrap();
    seeded(home.path()).await;
    let out = lango(home.path(), &["sessions", "delete", "trip"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--yes"));
    let out = lango(home.path(), &["sessions", "delete", "trip", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lango(home.path(), &["sessions", "show", "trip"]);
    // A missing conversation is "not found" (6), not a database failure (5).
    assert_eq!(out.status.code(), Some(6));
    assert!(stderr(&out).contains("not found"), "{}", stderr(&out));
}

#[tokio::test]
async fn sessions_search_right_after_the_upgrade_finds_chinese_inside_runs() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("lango.db");
    let store = Store::open(&db).await.unwrap();
    store.create_session("zh", "中文").await.unwrap();
    store.close().await;
    // 2,500 messages as an earlier version indexed them (each run one word), more than a
    // search indexes by itself, and the upgrade's walk still to do.
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute_batch(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2500)
         INSERT INTO messages (session_id, seq, role, content, created_at)
           SELECT (SELECT id FROM sessions WHERE key = 'zh'), x, 'user', '第' || x || '条：我喜欢编程', x FROM n;
         INSERT INTO message_fts (rowid, text, session_id) SELECT id, content, session_id FROM messages;
         DELETE FROM message_fts_pending;
         INSERT INTO cjk_reindex_scan (tbl, next_id, end_id) SELECT 'messages', 0, max(id) FROM messages;",
    )
    .unwrap();
    drop(raw);

    let out = lango(home.path(), &["sessions", "search", "编程", "--limit", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("我喜欢[编程]"), "{text}");
    assert!(!text.contains("not indexed"), "{text}");
}

#[tokio::test]
async fn rename_and_pin_change_what_list_shows() {
    let home = tempfile::tempdir().unwrap();
    seeded(home.path()).await;
    assert!(
        lango(home.path(), &["sessions", "rename", "trip", "Lisbon, May"])
            .status
            .success()
    );
    assert!(lango(home.path(), &["sessions", "pin", "trip"])
        .status
        .success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&lango(
        home.path(),
        &["--json", "sessions", "list"],
    )))
    .unwrap();
    assert_eq!(v[0]["title"], "Lisbon, May");
    assert_eq!(v[0]["pinned"], true);
}

#[tokio::test]
async fn sessions_search_prints_plain_snippets_and_json_pages() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    store.create_session("zoo", "Zoo visit").await.unwrap();
    store
        .append_message(
            "zoo",
            NewMessage::new(
                "user",
                "Is the **quokka** \u{1b}[31mfriendly? See [this](https://example.com)",
            ),
        )
        .await
        .unwrap();
    for i in 0..3 {
        store
            .append_message(
                "zoo",
                NewMessage::new("assistant", format!("quokka fact {i}")),
            )
            .await
            .unwrap();
    }
    store.close().await;

    let out = lango(home.path(), &["sessions", "search", "quok", "--limit", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("zoo") && text.contains("Zoo visit"), "{text}");
    assert!(text.contains("[quokka]"), "{text}");
    assert!(!text.contains("**") && !text.contains('\u{1b}'), "{text}");
    assert!(
        text.contains("2 of 4 matches shown; more with --offset 2"),
        "{text}"
    );

    let out = lango(
        home.path(),
        &["--json", "sessions", "search", "quokka", "--offset", "2"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["total"], 4);
    assert_eq!(v["more"], false);
    assert_eq!(v["hits"].as_array().unwrap().len(), 2);
    assert_eq!(v["hits"][0]["sessionKey"], "zoo");
    assert!(v["hits"][0]["at"].as_i64().unwrap() > 0);

    let out = lango(home.path(), &["sessions", "search", "platypus"]);
    assert!(stdout(&out).contains("No matches"), "{}", stdout(&out));
}
