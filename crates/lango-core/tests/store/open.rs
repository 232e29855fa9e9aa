use std::path::Path;

use lango_core::store::{NewMessage, Store, StoreError, MIGRATOR};
use sqlx::SqlitePool;

use crate::raw_db::raw_pool;

/// Writes session 1 (`key`, `title`) with `messages` (seq, role, text) through raw SQL, as an
/// older Lango would have left them (the store's API would run today's code).
pub(crate) async fn insert_old_conversation(
    pool: &SqlitePool,
    key: &str,
    title: &str,
    messages: &[(i64, &str, &str)],
) {
    sqlx::query("INSERT INTO sessions (key, title, next_seq, created_at, updated_at) VALUES (?, ?, ?, 1, 1)")
        .bind(key)
        .bind(title)
        .bind(messages.len() as i64 + 1)
        .execute(pool)
        .await
        .unwrap();
    for (seq, role, text) in messages {
        sqlx::query("INSERT INTO messages (session_id, seq, role, content, created_at) VALUES (1, ?, ?, ?, 1)")
            .bind(seq)
            .bind(role)
            .bind(text)
            .execute(pool)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn opening_sets_wal_foreign_keys_and_normal_sync() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/deeper/lango.db");
    let store = Store::open(&path).await.unwrap();
    store.create_session("s", "").await.unwrap();
    assert!(path.exists(), "parent folders are created");
    let pool = raw_pool(&path).await;
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test]
async fn a_database_created_by_the_first_migration_is_backed_up_then_upgraded_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        // An install that only ever had schema version 1, with a conversation in it.
        let pool = raw_pool(&path).await;
        MIGRATOR.run_to(1, &pool).await.unwrap();
        insert_old_conversation(
            &pool,
            "old",
            "Old chat",
            &[(1, "user", "remember the heron"), (2, "assistant", "noted")],
        )
        .await;
        pool.close().await;
    }

    let store = Store::open(&path).await.unwrap();
    let texts: Vec<String> = store
        .list_messages("old")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(texts, ["remember the heron", "noted"]);
    assert_eq!(store.get_session("old").await.unwrap().title, "Old chat");
    assert_eq!(
        store.search("heron", None, 5).await.unwrap().len(),
        1,
        "old rows are indexed for search"
    );
    let next = store
        .append_message("old", NewMessage::new("user", "and now?"))
        .await
        .unwrap();
    assert_eq!(next.seq, 3);

    // The pre-upgrade copy exists and still holds version 1 with the data.
    let backups: Vec<_> = std::fs::read_dir(dir.path().join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    let name = backups[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with("lango-") && name.ends_with("-before-v2.db"),
        "{name}"
    );
    let backup = raw_pool(&backups[0]).await;
    let versions: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(&backup)
        .await
        .unwrap();
    assert_eq!(versions, [1]);
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages")
        .fetch_one(&backup)
        .await
        .unwrap();
    assert_eq!(count, 2);

    // Opening again applies nothing and makes no new backup.
    store.close().await;
    Store::open(&path).await.unwrap();
    assert_eq!(
        std::fs::read_dir(dir.path().join("backups"))
            .unwrap()
            .count(),
        1
    );
}

#[tokio::test]
async fn a_new_database_needs_no_backup() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(&dir.path().join("lango.db")).await.unwrap();
    assert!(!dir.path().join("backups").exists());
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_reported_with_its_path_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    let garbage: Vec<u8> = b"definitely not sqlite "
        .iter()
        .copied()
        .cycle()
        .take(8192)
        .collect();
    std::fs::write(&path, &garbage).unwrap();

    let err = Store::open(&path).await.unwrap_err();
    match &err {
        StoreError::Corrupt {
            path: p, backup, ..
        } => {
            assert_eq!(p, &path);
            assert!(backup.is_none());
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(&path.display().to_string()) && message.contains("left untouched"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        garbage,
        "the file was not modified"
    );
}

#[tokio::test]
async fn a_corrupt_database_error_names_the_newest_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    let backups = dir.path().join("backups");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(
        backups.join("lango-20260101T000000.000Z-before-v2.db"),
        b"x",
    )
    .unwrap();
    std::fs::write(
        backups.join("lango-20260301T000000.000Z-before-v3.db"),
        b"x",
    )
    .unwrap();
    std::fs::write(&path, vec![0xA5u8; 4096]).unwrap();
    match Store::open(&path).await.unwrap_err() {
        StoreError::Corrupt {
            backup: Some(b), ..
        } => {
            assert!(
                b.ends_with("lango-20260301T000000.000Z-before-v3.db"),
                "{b:?}"
            )
        }
        other => panic!("expected Corrupt with a backup, got {other:?}"),
    }
}

#[tokio::test]
async fn damaged_pages_surface_as_a_corrupt_error_not_a_silent_reset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        let store = Store::open(&path).await.unwrap();
        store.create_session("s", "").await.unwrap();
        for i in 0..300 {
            store
                .append_message(
                    "s",
                    NewMessage::new("user", format!("message number {i} {}", "x".repeat(200))),
                )
                .await
                .unwrap();
        }
        store.close().await;
    }
    // Overwrite everything after the first page (schema stays readable, data pages do not).
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 16 * 4096);
    for b in &mut bytes[4096..] {
        *b = 0x5A;
    }
    std::fs::write(&path, &bytes).unwrap();

    let outcome = match Store::open(&path).await {
        Err(e) => Err(e),
        Ok(store) => store.list_messages("s").await.map(|_| ()),
    };
    assert!(
        matches!(outcome, Err(StoreError::Corrupt { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_database_from_a_newer_lango_is_refused_not_downgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    Store::open(&path).await.unwrap().close().await;
    let pool = raw_pool(&path).await;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99, 'future', 1, x'00', 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    let err = Store::open(&path).await.unwrap_err();
    assert!(
        matches!(err, StoreError::TooNew { version: 99, .. }),
        "{err:?}"
    );
}

/// Opens `path` from `n` threads released at the same instant, each with its own runtime (as
/// separate processes would), and returns each open's outcome.
fn open_at_once(path: &Path, n: usize) -> Vec<Result<(), String>> {
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|_| {
            let (path, barrier) = (path.to_path_buf(), barrier.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    barrier.wait();
                    let store = Store::open(&path).await.map_err(|e| e.to_string())?;
                    store
                        .get_or_create_session("shared")
                        .await
                        .map_err(|e| e.to_string())?;
                    store.close().await;
                    Ok(())
                })
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

fn backups_in(dir: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(dir.join("backups")) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn processes_starting_at_once_on_a_new_data_folder_all_open_it_and_make_no_backup() {
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lango.db");
        let outcomes = open_at_once(&path, 4);
        assert!(
            outcomes.iter().all(Result::is_ok),
            "round {round}: {outcomes:?}"
        );
        assert_eq!(backups_in(dir.path()), Vec::<std::path::PathBuf>::new());
    }
}

#[test]
fn processes_upgrading_an_older_database_at_once_make_exactly_one_backup() {
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lango.db");
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let pool = raw_pool(&path).await;
            MIGRATOR.run_to(1, &pool).await.unwrap();
            insert_old_conversation(&pool, "old", "Old chat", &[(1, "user", "the heron")]).await;
            pool.close().await;
        });
        let outcomes = open_at_once(&path, 4);
        assert!(
            outcomes.iter().all(Result::is_ok),
            "round {round}: {outcomes:?}"
        );
        assert_eq!(backups_in(dir.path()).len(), 1, "round {round}");
    }
}
