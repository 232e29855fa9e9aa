//! The desktop app when its database is damaged: `App::open` fails with the corrupt code,
//! and `app::recovery` — which needs no open app — diagnoses, restores a backup the app
//! took itself, and salvages, after which the app opens again.

use std::path::Path;
use std::time::Duration;

use lango_core::app::{recovery, App};
use lango_core::paths::AppPaths;
use lango_core::store::recovery::Health;

#[path = "common/damage.rs"]
mod damage;

async fn daily_backup_of(home: &Path) -> Option<String> {
    for _ in 0..100 {
        let found = std::fs::read_dir(home.join("backups")).ok().and_then(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|n| n.ends_with("-daily.db"))
        });
        if found.is_some() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

fn garble(db: &Path) {
    let mut bytes = std::fs::read(db).expect("read");
    for b in &mut bytes[4096..] {
        *b = 0x5A;
    }
    std::fs::write(db, &bytes).expect("write");
}

#[tokio::test]
async fn a_damaged_database_is_restored_from_the_backup_the_app_took_at_start() {
    let home = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::under(home.path());
    let app = App::open(paths.clone()).await.expect("opens");
    let daily = daily_backup_of(home.path())
        .await
        .expect("the app took today's backup");
    let store = app.store().clone();
    store.create_session("kept", "").await.expect("session");
    for i in 0..100 {
        store
            .append_message(
                "kept",
                lango_core::store::NewMessage::new("user", format!("{i} {}", "y".repeat(300))),
            )
            .await
            .expect("append");
    }
    app.shutdown().await;
    drop(app);

    garble(&paths.database_file());
    let failed = App::open(paths.clone())
        .await
        .map(|_| ())
        .expect_err("damaged");
    assert_eq!(failed.code, "database_corrupt");

    let diagnosis = recovery::diagnose(&paths).await.expect("diagnosis");
    assert!(matches!(diagnosis.health, Health::Damaged { .. }));
    assert_eq!(
        diagnosis.best_backup().map(|b| b.file_name.clone()),
        Some(daily.clone())
    );

    let restored = recovery::restore_backup(&paths, &daily)
        .await
        .expect("restores");
    assert!(restored.set_aside.is_some());
    let app = App::open(paths.clone())
        .await
        .expect("opens after the restore");
    // The backup was taken (and waited for) before this conversation existed.
    assert!(app.store().get_session("kept").await.is_err());
    app.shutdown().await;
}

#[tokio::test]
async fn an_unknown_backup_name_is_not_found_and_salvage_of_a_foreign_file_reads_nothing() {
    let home = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::under(home.path());
    std::fs::write(paths.database_file(), b"not a database at all".repeat(300)).expect("write");

    let missing = recovery::restore_backup(&paths, "lango-1999-01-01-daily.db")
        .await
        .expect_err("no such backup");
    assert_eq!(missing.code, "not_found");
    let nothing = recovery::salvage(&paths, false)
        .await
        .expect_err("unreadable");
    assert_eq!(nothing.code, "nothing_readable");
}

#[tokio::test]
async fn a_database_that_opens_but_fails_its_check_says_why_todays_backup_was_not_taken() {
    let home = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::under(home.path());
    let app = App::open(paths.clone()).await.expect("opens");
    daily_backup_of(home.path())
        .await
        .expect("the first day's backup");
    let store = app.store().clone();
    store.create_session("kept", "").await.expect("session");
    for i in 0..200 {
        let text = format!("note {i:03} about the garden {}", "z".repeat(300));
        store
            .append_message("kept", lango_core::store::NewMessage::new("user", text))
            .await
            .expect("append");
    }
    app.shutdown().await;
    drop(app);
    // A later day: yesterday's copy is there, today's is not.
    let backups = home.path().join("backups");
    let taken = daily_backup_of(home.path()).await.expect("a backup");
    std::fs::rename(
        backups.join(&taken),
        backups.join("lango-2000-01-01-daily.db"),
    )
    .expect("an older day's copy");
    damage::garble_page_holding(&paths.database_file(), "note 100 about the garden");

    let app = App::open(paths.clone())
        .await
        .expect("a damaged message page does not stop the app opening");
    let mut problem = None;
    for _ in 0..200 {
        problem = app.storage_usage().await.expect("usage").backup_problem;
        if problem.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let problem = problem.expect("today's backup reports why it was not taken");
    assert_eq!(problem.code, "backup_skipped_damaged");
    assert!(
        problem.message.contains("lango doctor"),
        "{}",
        problem.message
    );
    assert!(problem.detail.is_some_and(|d| !d.is_empty()));
    let usage = app.storage_usage().await.expect("usage");
    assert_eq!(usage.backups, 1, "no damaged copy, and the older one kept");
    let newest = usage.newest_backup_at.expect("the older copy's time");
    assert!(newest <= chrono::Utc::now().timestamp_millis());
    app.shutdown().await;
}
