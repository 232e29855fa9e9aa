//! `lango doctor`: the diagnosis and its exit code, restoring a backup, salvaging a damaged
//! database — on real SQLite files damaged for real — and the daily backup a command takes.

mod support;

use std::path::Path;
use std::time::Duration;

use lango_core::store::{NewMessage, Store};
use support::{lango, stderr, stdout};

/// A data folder with conversation "s" of `messages` messages.
async fn home_with(messages: usize) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&home.path().join("lango.db"))
        .await
        .expect("opens");
    store.create_session("s", "").await.expect("session");
    for i in 0..messages {
        let text = format!("message number {i:04} {}", "x".repeat(300));
        store
            .append_message("s", NewMessage::new("user", text))
            .await
            .expect("append");
    }
    store.close().await;
    home
}

fn garble_after_first_page(db: &Path) {
    let mut bytes = std::fs::read(db).expect("read");
    for b in &mut bytes[4096..] {
        *b = 0x5A;
    }
    std::fs::write(db, &bytes).expect("write");
}

fn garble_page_holding(db: &Path, needle: &str) {
    let mut bytes = std::fs::read(db).expect("read");
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("text in file");
    let page = at / 4096;
    for b in &mut bytes[page * 4096..(page + 1) * 4096] {
        *b = 0xA5;
    }
    std::fs::write(db, &bytes).expect("write");
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Waits for the background daily backup of a command that just ran.
async fn daily_backups(home: &Path) -> Vec<String> {
    for _ in 0..50 {
        let found: Vec<String> = names(&home.join("backups"))
            .into_iter()
            .filter(|n| n.ends_with("-daily.db"))
            .collect();
        if !found.is_empty() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Vec::new()
}

#[tokio::test]
async fn doctor_says_a_healthy_database_is_fine_and_exits_0() {
    let home = home_with(3).await;
    let out = lango(home.path(), &["doctor"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Healthy"), "{text}");
    assert!(text.contains("Nothing to do"), "{text}");
}

/// `lango doctor backup` takes today's backup in the foreground (the way for a database too
/// large for a command's short wait), and says so when it is already there.
#[tokio::test]
async fn doctor_backup_takes_todays_backup_now_and_once() {
    let home = home_with(3).await;
    let out = lango(home.path(), &["doctor", "backup"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("Backup taken"), "{}", stdout(&out));
    let daily: Vec<String> = names(&home.path().join("backups"))
        .into_iter()
        .filter(|n| n.ends_with("-daily.db"))
        .collect();
    assert_eq!(daily.len(), 1, "{daily:?}");
    let again = lango(home.path(), &["doctor", "backup"], None).await;
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("already there"),
        "{}",
        stdout(&again)
    );
}

#[tokio::test]
async fn a_command_takes_todays_backup_which_doctor_then_restores_over_a_damaged_database() {
    let home = home_with(5).await;
    let db = home.path().join("lango.db");
    let listed = lango(home.path(), &["sessions", "list"], None).await;
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let daily = daily_backups(home.path()).await;
    assert_eq!(
        daily.len(),
        1,
        "no daily backup: {:?}",
        names(&home.path().join("backups"))
    );

    garble_after_first_page(&db);
    let damaged = std::fs::read(&db).expect("read");
    let out = lango(home.path(), &["doctor"], None).await;
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("DAMAGED"), "{text}");
    assert!(
        text.contains(&format!("lango doctor restore {}", daily[0])),
        "{text}"
    );

    // No terminal to ask on: --yes is required, and nothing changes without it.
    let refused = lango(home.path(), &["doctor", "restore", &daily[0]], None).await;
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&db).expect("read"), damaged);

    let out = lango(
        home.path(),
        &["doctor", "restore", &daily[0], "--yes"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let aside: Vec<String> = names(home.path())
        .into_iter()
        .filter(|n| n.starts_with("lango.db.damaged-") && !n.ends_with("-wal"))
        .collect();
    assert_eq!(aside.len(), 1, "{:?}", names(home.path()));
    assert_eq!(
        std::fs::read(home.path().join(&aside[0])).expect("read"),
        damaged
    );
    assert_eq!(support::rows(home.path(), "s").await.len(), 5);
    let out = lango(home.path(), &["doctor"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[tokio::test]
async fn doctor_salvage_writes_a_new_file_and_apply_puts_it_in_place() {
    let home = home_with(300).await;
    let db = home.path().join("lango.db");
    garble_page_holding(&db, "message number 0100");
    let damaged = std::fs::read(&db).expect("read");

    let out = lango(home.path(), &["doctor", "salvage"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Salvaged into"), "{text}");
    assert!(text.contains("messages"), "{text}");
    assert_eq!(
        std::fs::read(&db).expect("read"),
        damaged,
        "the damaged file changed"
    );

    let out = lango(
        home.path(),
        &["--json", "doctor", "salvage", "--apply", "--yes"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let messages = json["salvage"]["tables"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["table"] == "messages"))
        .cloned()
        .expect("messages counted");
    let saved = messages["saved"].as_u64().expect("saved");
    assert!(saved > 250 && saved < 300, "{messages}");
    assert_eq!(saved + messages["lost"].as_u64().expect("lost"), 300);
    assert_eq!(support::rows(home.path(), "s").await.len() as u64, saved);
    let aside = json["restored"]["setAside"].as_str().expect("kept aside");
    assert_eq!(std::fs::read(aside).expect("read"), damaged);
}

#[tokio::test]
async fn restore_is_refused_while_the_desktop_app_has_the_data_folder_open() {
    let home = home_with(2).await;
    let db = home.path().join("lango.db");
    let backup = home.path().join("copy.db");
    std::fs::copy(&db, &backup).expect("copy");
    let before = std::fs::read(&db).expect("read");
    let lango_core::instance::Instance::Primary(_app) =
        lango_core::instance::acquire(home.path()).expect("lock")
    else {
        panic!("this test is the only instance");
    };
    let backup_arg = backup.display().to_string();
    let out = lango(
        home.path(),
        &["doctor", "restore", &backup_arg, "--yes"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(stderr(&out).contains("close it first"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&db).expect("read"), before);
}
