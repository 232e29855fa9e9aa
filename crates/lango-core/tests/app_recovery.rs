//! The desktop app when its database is damaged: `App::open` fails with the corrupt code,
//! and `app::recovery` — which needs no open app — diagnoses, restores a backup the app
//! took itself, and salvages, after which the app opens again.

use std::path::Path;
use std::time::Duration;

use lango_core::app::{recovery, App};
use lango_core::paths::AppPaths;
use lango_core::store::recovery::Health;

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
