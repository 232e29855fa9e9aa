//! The fault suite (issue 14 "Prove it"), CLI level: what Lango writes under faults.
//!
//! Key leakage: a chat with memory on and trace logging, plus exports, never writes the API
//! key anywhere — not the data folder (database, WAL, settings, backups), the log output nor
//! an export. Damaged files are refused clearly and left untouched. Three `lango chat`
//! processes on one data folder with memory on (fresh and existing, different and the same
//! session) all succeed and store every message once, with no overlapping memory.

mod support;

use std::path::Path;
use std::process::{Output, Stdio};

use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;
use tokio::io::AsyncWriteExt;

/// A key no file could contain by chance.
const CANARY_KEY: &str = "sk-canary-5e1f0c7d9a2b4c63-do-not-store";

async fn lango(home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"))
        .arg("--data-dir")
        .arg(home)
        .args(args)
        .env("LANGO_P_API_KEY", CANARY_KEY)
        .env("LANGO_LOG", "trace")
        .env_remove("LANGO_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lango");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.expect("write stdin");
    }
    drop(input);
    child.wait_with_output().await.expect("lango runs")
}

/// Every file under `dir`, recursively, as (path, bytes).
fn every_file(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(every_file(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path.display().to_string(), bytes));
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_key_is_never_written_anywhere_with_trace_logging_and_memory_on() {
    let fake = FakeProvider::start(
        Script::new([Turn::text(["Noted: the user keeps a list of prices."])])
            .with_required_key(CANARY_KEY),
    )
    .await;
    let home = tempfile::tempdir().expect("temp dir");
    // The key comes only from the environment (`lango` below), never from settings.json.
    support::memory_settings::write_memory_settings(home.path(), &fake);
    let turns: String = (1..=12)
        .map(|i| format!("Item {i} costs {i} euros; remember it.\n"))
        .collect();
    let chat = lango(home.path(), &["chat", "--session", "leak"], Some(&turns)).await;
    assert!(
        chat.status.success(),
        "{}",
        String::from_utf8_lossy(&chat.stderr)
    );
    let status = lango(
        home.path(),
        &["--json", "memory", "status", "--session", "leak"],
        None,
    )
    .await;
    let export_md = home.path().join("export.md");
    let export_json = home.path().join("export.json");
    let exports = [
        lango(
            home.path(),
            &[
                "sessions",
                "export",
                "leak",
                "-o",
                &export_md.display().to_string(),
            ],
            None,
        )
        .await,
        lango(
            home.path(),
            &[
                "sessions",
                "export",
                "leak",
                "--format",
                "json",
                "-o",
                &export_json.display().to_string(),
            ],
            None,
        )
        .await,
    ];
    for export in &exports {
        assert!(
            export.status.success(),
            "{}",
            String::from_utf8_lossy(&export.stderr)
        );
    }

    // The key was really in use: every request carried it.
    let requests = fake.generate_requests();
    assert!(
        requests.len() > 12,
        "the chat and its memory cycles reached the provider"
    );
    assert!(std::fs::read(&export_md).is_ok_and(|b| !b.is_empty()));
    let stderr = String::from_utf8_lossy(&chat.stderr);
    assert!(
        stderr.contains("TRACE") || stderr.contains("DEBUG"),
        "trace logging was on"
    );

    let mut written: Vec<(String, Vec<u8>)> = every_file(home.path());
    assert!(written.iter().any(|(p, _)| p.ends_with("lango.db")));
    for (name, out) in [("chat", &chat), ("memory status", &status)]
        .into_iter()
        .chain(exports.iter().map(|o| ("export", o)))
    {
        written.push((format!("{name} stdout"), out.stdout.clone()));
        written.push((format!("{name} stderr"), out.stderr.clone()));
    }
    let leaks: Vec<&String> = written
        .iter()
        .filter(|(_, bytes)| contains(bytes, CANARY_KEY.as_bytes()))
        .map(|(name, _)| name)
        .collect();
    assert!(leaks.is_empty(), "the API key was written to {leaks:?}");
}

/// How a data folder is damaged before a command runs.
#[derive(Debug, Clone, Copy)]
enum Damage {
    Garbage,
    Truncated,
    FutureSchema,
    BadSettings,
}

/// Damaged databases and settings: a clear error naming the file, the exit code of its
/// kind (5 database, 3 settings), and the file left byte for byte as it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_database_or_settings_file_is_refused_clearly_and_left_untouched() {
    for damage in [
        Damage::Garbage,
        Damage::Truncated,
        Damage::FutureSchema,
        Damage::BadSettings,
    ] {
        let home = tempfile::tempdir().expect("temp dir");
        let db = home.path().join("lango.db");
        // A real conversation first.
        let store = lango_core::store::Store::open(&db).await.expect("open");
        store.create_session("kept", "").await.expect("session");
        store
            .append_message("kept", lango_core::store::NewMessage::new("user", "hello"))
            .await
            .expect("append");
        store.close().await;
        let (file, code) = match damage {
            Damage::Garbage => {
                std::fs::write(
                    &db,
                    b"this is not a database at all, just words".repeat(200),
                )
                .expect("write");
                (db.clone(), 5)
            }
            Damage::Truncated => {
                let bytes = std::fs::read(&db).expect("read");
                std::fs::write(&db, &bytes[..bytes.len() / 3]).expect("write");
                (db.clone(), 5)
            }
            Damage::FutureSchema => {
                let conn = rusqlite::Connection::open(&db).expect("open");
                conn.execute(
                    "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99, 'future', 1, x'00', 0)",
                    [],
                )
                .expect("future migration");
                drop(conn);
                (db.clone(), 5)
            }
            Damage::BadSettings => {
                let settings = home.path().join("settings.json");
                std::fs::write(&settings, br#"{"agent": {"provider": 42,"#).expect("write");
                (settings, 3)
            }
        };
        let before = std::fs::read(&file).expect("read");
        // Listing reads only the database; a chat reads the settings too.
        let args: &[&str] = match damage {
            Damage::BadSettings => &["chat", "--session", "kept", "hi"],
            _ => &["sessions", "list"],
        };
        let out = lango(home.path(), args, None).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{damage:?}: {stderr}");
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            stderr.contains(name),
            "{damage:?}: the error names {name}: {stderr}"
        );
        assert_eq!(
            std::fs::read(&file).expect("read"),
            before,
            "{damage:?}: the file was changed"
        );
    }
}

/// What every model call of the concurrency test gets: chat replies and memory notes alike.
const NOTE: &str = "Noted: the user keeps a list of prices.";

/// Memory on with thresholds so small that every turn observes (and compacts) and every
/// second observation is reflected.
fn write_memory_settings(home: &Path, fake: &FakeProvider) {
    let settings = json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": format!("{}/v1", fake.server().base_url()), "defaultModel": "fake-model"}},
        "agent": {"provider": "p"},
        "observationalMemory": {
            "enabled": true,
            "messageTokenThreshold": 30,
            "observationTokenThreshold": 20,
            "maxMessageTokenBudget": 2000,
            "memoryTokenBudget": 2000,
            "reflectionConsolidationThreshold": 2
        }
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).expect("settings");
}

fn process_lines(tag: &str, process: usize, lines: usize) -> Vec<String> {
    (0..lines)
        .map(|i| {
            format!(
                "{tag} process {process}, line {i}: item {i} costs {i} euros, please remember it."
            )
        })
        .collect()
}

/// Three `lango chat` processes at once, process `p` on session `sessions[p]` sending its
/// lines (tagged `tag`) over stdin; each must exit 0 without a busy error.
async fn three_chats(home: &Path, tag: &str, sessions: [&str; 3], lines: usize) {
    let runs: Vec<_> = (0..3)
        .map(|p| {
            let input = process_lines(tag, p, lines).join("\n") + "\n";
            let (home, session) = (home.to_path_buf(), sessions[p].to_string());
            tokio::spawn(async move {
                support::lango(
                    &home,
                    &["chat", "--session", &session],
                    Some(input.as_bytes()),
                )
                .await
            })
        })
        .collect();
    for (p, run) in runs.into_iter().enumerate() {
        let out = run.await.expect("chat task");
        let stderr = support::stderr(&out);
        assert!(out.status.success(), "{tag}: process {p} failed: {stderr}");
        let lower = stderr.to_lowercase();
        assert!(
            !lower.contains("busy") && !lower.contains("locked") && !lower.contains("code: 5"),
            "{tag}: process {p} met a busy database: {stderr}"
        );
    }
}

/// Checks session `key`: consistent memory (support::memory_db), every line of `processes`
/// stored once as a user message, as many replies, each complete and whole.
fn assert_conversation(
    db: &Path,
    key: &str,
    processes: &[(&str, usize, usize)],
) -> support::memory_db::SessionMemory {
    let memory = support::memory_db::check_session(db, key);
    let users: Vec<&str> = memory
        .messages
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| m.content.as_str())
        .collect();
    let mut expected = 0;
    for &(tag, process, lines) in processes {
        for line in process_lines(tag, process, lines) {
            let n = users.iter().filter(|u| **u == line).count();
            assert_eq!(n, 1, "{key}: {line:?} stored {n} times");
            expected += 1;
        }
    }
    assert_eq!(users.len(), expected, "{key}: no other user message");
    let replies: Vec<_> = memory
        .messages
        .iter()
        .filter(|m| m.role == "assistant")
        .collect();
    assert_eq!(replies.len(), expected, "{key}: one reply per message");
    for reply in replies {
        assert_eq!(
            (reply.content.as_str(), reply.status.as_str()),
            (NOTE, "complete"),
            "{key}"
        );
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "{key}: {} messages, {} observations, {} reflections, {} summaries, cursor {}",
        memory.messages.len(),
        memory.observations.len(),
        memory.reflections,
        memory.summaries,
        memory.cursor
    );
    memory
}

/// The conversation's memory ran: something was observed and compacted.
fn assert_memory_ran(key: &str, memory: &support::memory_db::SessionMemory) {
    assert!(
        memory.summaries > 0 && (memory.reflections > 0 || !memory.observations.is_empty()),
        "{key}: the memory observed and compacted: {memory:?}"
    );
}

/// Issue 14 "3 processes on one data folder (fresh and existing, same and different sessions,
/// memory on)": three chats at once on a new folder (each its own session), then three on
/// the now existing folder all continuing one of those sessions, three messages each, then
/// three on a new folder starting one new session together. Every process exits 0, every
/// message and reply is stored once and complete, the database is whole, observations of a
/// session never overlap and every compaction left one summary.
#[tokio::test(flavor = "multi_thread")]
async fn three_processes_chatting_at_once_with_memory_on_all_succeed_and_store_everything_once() {
    // A little slow, so the three processes' turns and memory cycles interleave.
    let fake = FakeProvider::start(Script::new([Turn::slow_text(
        ["Noted: ", "the user keeps ", "a list of prices."],
        15,
    )]))
    .await;
    let home = tempfile::tempdir().expect("temp dir");
    write_memory_settings(home.path(), &fake);
    let db = home.path().join("lango.db");

    three_chats(home.path(), "fresh", ["a", "b", "c"], 2).await;
    for (p, key) in ["a", "b", "c"].iter().enumerate() {
        assert_conversation(&db, key, &[("fresh", p, 2)]);
    }

    // Existing folder and conversation: all three continue session "a".
    three_chats(home.path(), "again", ["a", "a", "a"], 3).await;
    let memory = assert_conversation(
        &db,
        "a",
        &[
            ("fresh", 0, 2),
            ("again", 0, 3),
            ("again", 1, 3),
            ("again", 2, 3),
        ],
    );
    assert_memory_ran("a", &memory);

    // A fresh folder, all three starting the same new session.
    let fresh = tempfile::tempdir().expect("temp dir");
    write_memory_settings(fresh.path(), &fake);
    three_chats(fresh.path(), "shared", ["new", "new", "new"], 2).await;
    let memory = assert_conversation(
        &fresh.path().join("lango.db"),
        "new",
        &[("shared", 0, 2), ("shared", 1, 2), ("shared", 2, 2)],
    );
    assert_memory_ran("new", &memory);
}
