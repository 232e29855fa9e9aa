//! Recovery against real damage on real SQLite files: diagnosis, restoring a backup,
//! salvaging a damaged file, and the rolling daily backup.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use lango_core::paths::AppPaths;
use lango_core::store::recovery::{
    backup_delay, check_file, daily_backup, diagnose, list_backups, restore, salvage,
    spawn_daily_backup, BackupKind, DailyOutcome, Depth, Health, RecoveryError, QUICK_BACKUP_BYTES,
};
use lango_core::store::{NewMessage, Store};

#[path = "common/damage.rs"]
mod damage;
use damage::{garble_page_holding, PAGE};

/// A data folder whose database holds conversation "s" with `messages` messages.
async fn home_with(messages: usize) -> (tempfile::TempDir, AppPaths) {
    let dir = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::under(dir.path());
    let store = Store::open_app(&paths).await.expect("opens");
    store.create_session("s", "kept").await.expect("session");
    for i in 0..messages {
        let text = format!("message number {i:04} {}", "x".repeat(300));
        store
            .append_message("s", NewMessage::new("user", text))
            .await
            .expect("append");
    }
    store.close().await;
    (dir, paths)
}

fn day(n: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, n).expect("a date")
}

/// The three kinds of damage a disk or a bad copy leaves behind.
fn damage(path: &Path, how: &str) {
    let mut bytes = std::fs::read(path).expect("read");
    match how {
        "truncated" => bytes.truncate(bytes.len() / 3),
        "garbage pages" => {
            for b in &mut bytes[PAGE..] {
                *b = 0x5A;
            }
        }
        "not a database" => bytes = b"these are my notes, not a database\n".repeat(500),
        other => panic!("unknown damage {other}"),
    }
    std::fs::write(path, &bytes).expect("write");
}

fn files_in(dir: &Path) -> Vec<String> {
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

#[tokio::test]
async fn a_sound_database_is_healthy_and_a_new_install_has_none() {
    let (_dir, paths) = home_with(3).await;
    assert!(matches!(
        check_file(&paths.database_file(), Depth::Full),
        Health::Healthy { .. }
    ));
    let empty = tempfile::tempdir().expect("temp dir");
    assert_eq!(
        check_file(&empty.path().join("lango.db"), Depth::Full),
        Health::Missing
    );
}

#[tokio::test]
async fn truncated_garbage_and_foreign_files_are_diagnosed_damaged_and_left_byte_identical() {
    for how in ["truncated", "garbage pages", "not a database"] {
        let (_dir, paths) = home_with(200).await;
        let db = paths.database_file();
        damage(&db, how);
        let before = std::fs::read(&db).expect("read");

        let diagnosis = diagnose(&paths);
        assert!(
            matches!(diagnosis.health, Health::Damaged { .. }),
            "{how}: {:?}",
            diagnosis.health
        );
        assert_eq!(
            std::fs::read(&db).expect("read"),
            before,
            "{how}: file changed"
        );
    }
}

#[tokio::test]
async fn a_database_from_a_newer_lango_is_diagnosed_too_new_not_damaged() {
    let (_dir, paths) = home_with(1).await;
    let conn = rusqlite::Connection::open(paths.database_file()).expect("open");
    conn.execute(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99, 'future', 1, x'00', 0)",
        [],
    )
    .expect("insert");
    drop(conn);
    assert_eq!(
        diagnose(&paths).health,
        Health::TooNew { schema_version: 99 }
    );
}

#[tokio::test]
async fn restoring_a_backup_keeps_the_damaged_file_aside_and_the_backup_opens() {
    let (_dir, paths) = home_with(5).await;
    let db = paths.database_file();
    let taken = daily_backup(&db, &paths.backups_dir(), day(1), 7).expect("backup");
    assert!(matches!(taken, DailyOutcome::Taken(_)), "{taken:?}");
    damage(&db, "garbage pages");
    let damaged = std::fs::read(&db).expect("read");
    // A write-ahead log of the damaged file must not be replayed onto the restored one.
    std::fs::write(PathBuf::from(format!("{}-wal", db.display())), b"stale log").expect("wal");

    let listed = list_backups(&paths.backups_dir());
    assert_eq!(listed.len(), 1);
    assert!(listed[0].health.is_usable(), "{:?}", listed[0].health);
    let restored = restore(&db, &listed[0].path).expect("restores");

    let aside = restored.set_aside.expect("the damaged file was kept");
    assert_eq!(std::fs::read(&aside).expect("read aside"), damaged);
    assert!(matches!(restored.health, Health::Healthy { .. }));
    let store = Store::open_app(&paths)
        .await
        .expect("the restored database opens");
    assert_eq!(store.list_messages("s").await.expect("messages").len(), 5);
    store.close().await;
    // The backup itself is still there to go back to.
    assert!(listed[0].path.exists());
}

#[tokio::test]
async fn a_damaged_backup_is_refused_and_the_database_is_not_touched() {
    let (_dir, paths) = home_with(50).await;
    let db = paths.database_file();
    daily_backup(&db, &paths.backups_dir(), day(1), 7).expect("backup");
    let backup = paths.backups_dir().join("lango-2026-01-01-daily.db");
    damage(&backup, "not a database");
    let before = std::fs::read(&db).expect("read");

    let refused = restore(&db, &backup);
    assert!(
        matches!(refused, Err(RecoveryError::BackupUnusable { .. })),
        "{refused:?}"
    );
    assert_eq!(std::fs::read(&db).expect("read"), before);
    assert!(
        files_in(&paths.data_dir)
            .iter()
            .all(|f| !f.contains("damaged") && !f.contains("restoring")),
        "{:?}",
        files_in(&paths.data_dir)
    );
}

#[tokio::test]
async fn salvage_recovers_the_readable_rows_counts_the_lost_and_leaves_the_original_untouched() {
    let (dir, paths) = home_with(300).await;
    let db = paths.database_file();
    // One row as an earlier version wrote a large tool result: inline, nothing beside it.
    let whole = "x".repeat(70_000);
    let inline = format!(
        r#"[{{"id":"c1","name":"files__read","meta":{{"status":"done","fullOutput":"{whole}"}}}}]"#
    );
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute(
        "UPDATE messages SET tool_calls = ?1, tool_results = NULL WHERE content LIKE 'message number 0299%'",
        [&inline],
    )
    .unwrap();
    // Into the main file, where the damage goes too.
    raw.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    drop(raw);
    garble_page_holding(&db, "message number 0150");
    let original = std::fs::read(&db).expect("read");
    assert!(matches!(
        check_file(&db, Depth::Full),
        Health::Damaged { .. }
    ));

    let report = salvage(&db, dir.path()).await.expect("salvages");

    assert_eq!(
        std::fs::read(&db).expect("read"),
        original,
        "original changed"
    );
    let count = |table: &str| {
        report
            .tables
            .iter()
            .find(|t| t.table == table)
            .map(|t| (t.saved, t.lost))
            .expect("table reported")
    };
    assert_eq!(count("sessions"), (1, 0));
    let (saved, lost) = count("messages");
    assert!(lost > 0 && lost < 30, "saved {saved}, lost {lost}");
    assert_eq!(saved + lost, 300);
    assert!(
        matches!(report.health, Health::Healthy { .. }),
        "{:?}",
        report.health
    );

    let store = Store::open(&report.salvaged)
        .await
        .expect("the salvaged file opens");
    let messages = store.list_messages("s").await.expect("messages");
    assert_eq!(messages.len() as u64, saved);
    assert!(messages
        .iter()
        .any(|m| m.content.starts_with("message number 0299")));
    // Its large result is moved beside its row once the salvaged file is in use, as in any
    // database an earlier version wrote.
    let moved = store
        .move_legacy_results(&tokio_util::sync::CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(moved, 1);
    store.close().await;
}

#[tokio::test]
async fn a_file_that_is_not_a_database_cannot_be_salvaged_and_nothing_is_left_behind() {
    let (dir, paths) = home_with(1).await;
    let db = paths.database_file();
    damage(&db, "not a database");
    let before = files_in(dir.path());
    let outcome = salvage(&db, dir.path()).await;
    assert!(
        matches!(outcome, Err(RecoveryError::NothingReadable { .. })),
        "{outcome:?}"
    );
    assert_eq!(files_in(dir.path()), before);
}

#[tokio::test]
async fn the_daily_backup_is_taken_once_a_day_and_only_the_newest_are_kept() {
    let (_dir, paths) = home_with(2).await;
    let (db, backups) = (paths.database_file(), paths.backups_dir());
    std::fs::create_dir_all(&backups).expect("dir");
    let upgrade = backups.join("lango-20251201T000000.000Z-before-v3.db");
    std::fs::copy(&db, &upgrade).expect("an upgrade backup");

    for n in 1..=5 {
        let outcome = daily_backup(&db, &backups, day(n), 3).expect("backup");
        assert!(
            matches!(outcome, DailyOutcome::Taken(_)),
            "day {n}: {outcome:?}"
        );
    }
    let again = daily_backup(&db, &backups, day(5), 3).expect("backup");
    assert_eq!(again, DailyOutcome::AlreadyToday);

    assert_eq!(
        files_in(&backups),
        [
            "lango-20251201T000000.000Z-before-v3.db",
            "lango-2026-01-03-daily.db",
            "lango-2026-01-04-daily.db",
            "lango-2026-01-05-daily.db",
        ]
    );
    let listed = list_backups(&backups);
    assert_eq!(listed[0].file_name, "lango-2026-01-05-daily.db");
    assert_eq!(listed[0].kind, BackupKind::Daily);
    assert!(listed.iter().all(|b| b.health.is_usable()));
    assert_eq!(
        listed.last().map(|b| b.kind.clone()),
        Some(BackupKind::BeforeUpgrade { version: 3 })
    );
}

#[tokio::test]
async fn a_damaged_database_is_not_copied_over_the_good_daily_backups() {
    let (_dir, paths) = home_with(200).await;
    let (db, backups) = (paths.database_file(), paths.backups_dir());
    daily_backup(&db, &backups, day(1), 1).expect("backup");
    damage(&db, "garbage pages");
    let outcome = daily_backup(&db, &backups, day(2), 1).expect("attempt");
    assert!(matches!(outcome, DailyOutcome::Damaged(_)), "{outcome:?}");
    assert_eq!(files_in(&backups), ["lango-2026-01-01-daily.db"]);
}

#[tokio::test]
async fn the_corrupt_error_names_the_newest_backup_whether_daily_or_before_an_upgrade() {
    let (_dir, paths) = home_with(200).await;
    let (db, backups) = (paths.database_file(), paths.backups_dir());
    let daily = daily_backup(
        &db,
        &backups,
        NaiveDate::from_ymd_opt(2026, 3, 9).expect("date"),
        7,
    )
    .expect("backup");
    assert!(matches!(daily, DailyOutcome::Taken(_)));
    std::fs::copy(&db, backups.join("lango-20260101T000000.000Z-before-v3.db")).expect("copy");
    damage(&db, "garbage pages");

    let message = match Store::open_app(&paths).await {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a damaged database opened"),
    };
    assert!(message.contains("lango-2026-03-09-daily.db"), "{message}");
    assert!(message.contains("lango doctor"), "{message}");
}

#[tokio::test]
async fn salvage_keeps_the_attached_files() {
    let (dir, paths) = home_with(20).await;
    let db = paths.database_file();
    let store = Store::open_app(&paths).await.expect("opens");
    let notes = lango_core::attachments::prepare(
        "notes.md",
        b"# Plan\nShip it.",
        &lango_core::tokens::TiktokenCounter,
    )
    .expect("prepares");
    store.put_attachment(&notes).await.expect("stored");
    store.close().await;
    garble_page_holding(&db, "message number 0010");

    let report = salvage(&db, dir.path()).await.expect("salvages");

    let saved = report
        .tables
        .iter()
        .find(|t| t.table == "attachments")
        .map(|t| (t.saved, t.lost));
    assert_eq!(saved, Some((1, 0)));
    let store = Store::open(&report.salvaged).await.expect("opens");
    let back = store.attachment(&notes.hash).await.expect("reads");
    assert_eq!(back.map(|b| b.attachment), Some(notes));
    store.close().await;
}

#[tokio::test]
async fn salvaged_chinese_notes_and_messages_are_found_inside_their_runs() {
    let (dir, paths) = home_with(300).await;
    let db = paths.database_file();
    let store = Store::open_app(&paths).await.expect("opens");
    let key = "s".to_owned();
    store
        .save_observation(lango_core::store::Observation {
            id: String::new(),
            session_key: key.clone(),
            content: "用户喜欢吃拉面".into(),
            token_count: 5,
            seq_start: 1,
            seq_end: 2,
            created_at: 0,
        })
        .await
        .expect("note");
    store
        .append_message(
            &key,
            lango_core::store::NewMessage::new("user", "我喜欢编程"),
        )
        .await
        .expect("message");
    store.close().await;
    garble_page_holding(&db, "message number 0150");

    let report = salvage(&db, dir.path()).await.expect("salvages");

    let store = Store::open(&report.salvaged).await.expect("opens");
    for (query, snippet) in [("拉面", "用户喜欢吃[拉面]"), ("编程", "我喜欢[编程]")]
    {
        let hits = store.search(query, None, 10).await.expect("search");
        let found: Vec<&str> = hits.iter().map(|h| h.snippet.as_str()).collect();
        assert_eq!(found, [snippet], "{query}");
    }
    store.close().await;
}

#[test]
fn a_large_databases_daily_backup_waits_until_the_window_is_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("lango.db");
    assert_eq!(
        backup_delay(&db),
        std::time::Duration::ZERO,
        "no database yet"
    );
    std::fs::write(&db, vec![0u8; PAGE]).expect("write");
    assert_eq!(
        backup_delay(&db),
        std::time::Duration::ZERO,
        "small: at once"
    );
    // A sparse file: the size is what counts.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .expect("open");
    file.set_len(QUICK_BACKUP_BYTES + 1).expect("grow");
    assert!(
        backup_delay(&db) >= std::time::Duration::from_secs(5),
        "a large database's check and copy must not compete with the window's start"
    );
}

#[tokio::test]
async fn a_delayed_daily_backup_is_taken_after_its_delay() {
    let (_dir, paths) = home_with(2).await;
    let settings = lango_core::config::BackupSettings::default();
    let running = spawn_daily_backup(&paths, &settings, std::time::Duration::from_millis(1500))
        .expect("started");
    let taken = || {
        files_in(&paths.backups_dir())
            .iter()
            .any(|n| n.ends_with("-daily.db"))
    };
    assert!(!taken(), "nothing is copied before the delay");
    assert!(running.wait(std::time::Duration::from_secs(30)), "finished");
    assert!(taken(), "today's copy is there after it");
}
