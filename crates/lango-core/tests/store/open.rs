use std::path::Path;

use lango_core::store::{NewMessage, SearchHitKind, Store, StoreError, MIGRATOR};
use sqlx::SqlitePool;

use crate::raw_db::raw_pool;

/// Writes session 1 (`key`, `title`) with `messages` (seq, role, text) through raw SQL, as an
/// older Lango would have left them (the store's API would run today's code).
async fn insert_old_conversation(
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

/// Migration 0006 rebuilds the search indexes with the session as an indexed column: what
/// was indexed stays found, what was still queued stays queued and is found after.
#[tokio::test]
async fn upgrading_refolds_the_typed_words_so_korean_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        let pool = raw_pool(&path).await;
        MIGRATOR.run_to(16, &pool).await.unwrap();
        insert_old_conversation(
            &pool,
            "s",
            "S",
            &[
                (1, "user", "한국어 검색은 잘 됩니까"),
                (2, "user", "un café noir"),
            ],
        )
        .await;
        // Indexed as before: the words for the word being typed folded by decomposing, so
        // Hangul became jamo.
        for sql in [
            "INSERT INTO message_fts (rowid, text, session_id) SELECT id, content, session_id FROM messages",
            "DELETE FROM message_fts_pending",
            "INSERT INTO search_terms (term) VALUES ('\u{1100}\u{1165}\u{11B7}\u{1109}\u{1162}\u{11A8}\u{110B}\u{1173}\u{11AB}'), \
             ('cafe'), ('noir'), ('un')",
        ] {
            sqlx::query(sql).execute(&pool).await.unwrap();
        }
        pool.close().await;
    }

    let store = Store::open(&path).await.unwrap();
    // New words with the same beginnings, indexed after the upgrade: the typed word expands
    // into them, and must still expand into the old messages' words.
    for text in ["검색어 목록", "cafés"] {
        store
            .append_message("s", NewMessage::new("user", text))
            .await
            .unwrap();
    }
    for (query, snippets) in [
        ("검색", ["[검색어] 목록", "한국어 [검색은] 잘 됩니까"]),
        ("caf", ["[cafés]", "un [café] noir"]),
    ] {
        let hits = store.search_page(query, None, 10, 0).await.unwrap().hits;
        let mut found: Vec<&str> = hits.iter().map(|h| h.snippet.as_str()).collect();
        found.sort_unstable();
        assert_eq!(found, snippets, "{query}");
    }
}

/// A database at migration `version` holding conversation "s" with `messages` and an
/// observation with `note`, all indexed as that version did: the messages' texts as written
/// (none left queued), the note by its trigger.
async fn indexed_as_before(path: &Path, version: i64, messages: &[(i64, &str, &str)], note: &str) {
    let pool = raw_pool(path).await;
    MIGRATOR.run_to(version, &pool).await.unwrap();
    insert_old_conversation(&pool, "s", "S", messages).await;
    for sql in [
        "INSERT INTO message_fts (rowid, text, session_id) SELECT id, content, session_id FROM messages",
        "DELETE FROM message_fts_pending",
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
    }
    sqlx::query(
        "INSERT INTO observations (id, session_id, content, seq_start, seq_end, created_at) \
         VALUES ('o1', 1, ?, 1, 2, 1)",
    )
    .bind(note)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
}

#[tokio::test]
async fn upgrading_indexes_chinese_and_japanese_messages_again_with_their_characters_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    // Indexed as before: each unspaced run one word (the note by its trigger).
    indexed_as_before(
        &path,
        17,
        &[
            (1, "user", "我喜欢编程和学习Rust"),
            (2, "assistant", "東京でラーメンを食べました"),
            (3, "user", "plain English — with a dash"),
        ],
        "用户喜欢吃拉面",
    )
    .await;

    let store = Store::open(&path).await.unwrap();
    for (query, snippet) in [
        ("编程", "我喜欢[编程]和学习Rust"),
        ("ラーメン", "東京で[ラーメン]を食べました"),
        ("dash", "plain English — with a [dash]"),
        ("拉面", "用户喜欢吃[拉面]"),
    ] {
        let page = store.search_page(query, None, 10, 0).await.unwrap();
        let found: Vec<&str> = page.hits.iter().map(|h| h.snippet.as_str()).collect();
        assert_eq!((found, page.unindexed), (vec![snippet], 0), "{query}");
    }
    // The walk is done: nothing is left of it, and the English message was never queued.
    let pool = raw_pool(&path).await;
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM cjk_reindex_scan")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn upgrading_indexes_hindi_messages_and_notes_again_with_their_vowels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    // Indexed as before: each word as its consonants (the note by its trigger).
    indexed_as_before(
        &path,
        18,
        &[
            (1, "user", "ठंडा पानी पीजिए"),
            (2, "assistant", "मुझे चाय पीना है"),
            (3, "user", "plain English — with a dash"),
        ],
        "उपयोगकर्ता पीना पसंद करता है",
    )
    .await;

    let store = Store::open(&path).await.unwrap();
    for (query, snippets) in [
        ("पानी", vec!["ठंडा [पानी] पीजिए"]),
        (
            "पीना",
            vec!["उपयोगकर्ता [पीना] पसंद करता है", "मुझे चाय [पीना] है"],
        ),
        ("dash", vec!["plain English — with a [dash]"]),
    ] {
        let page = store.search_page(query, None, 10, 0).await.unwrap();
        let mut found: Vec<&str> = page.hits.iter().map(|h| h.snippet.as_str()).collect();
        found.sort_unstable();
        assert_eq!((found, page.unindexed), (snippets, 0), "{query}");
    }
}

#[tokio::test]
async fn upgrading_to_session_scoped_search_keeps_indexed_and_queued_rows_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    {
        let pool = raw_pool(&path).await;
        MIGRATOR.run_to(5, &pool).await.unwrap();
        insert_old_conversation(
            &pool,
            "s",
            "S",
            &[
                (1, "user", "the heron nests early"),
                (2, "user", "the heron flies late"),
            ],
        )
        .await;
        // The first message was indexed by a search; the second is still queued.
        sqlx::query("INSERT INTO message_fts (rowid, text, session_id) SELECT id, content, session_id FROM messages WHERE seq = 1")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query(
            "DELETE FROM message_fts_pending WHERE id = (SELECT id FROM messages WHERE seq = 1)",
        )
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO observations (id, session_id, content, seq_start, seq_end, created_at) VALUES ('o1', 1, 'User watches herons', 1, 2, 1)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }

    let store = Store::open(&path).await.unwrap();
    let mut found: Vec<String> = store
        .search("heron", None, 10)
        .await
        .unwrap()
        .into_iter()
        .filter(|h| h.kind == SearchHitKind::Message)
        .map(|h| h.snippet)
        .collect();
    found.sort();
    assert_eq!(
        found,
        ["the [heron] flies late", "the [heron] nests early"],
        "indexed and queued messages, once each"
    );
    let notes = store.search("herons", None, 10).await.unwrap();
    assert_eq!(notes.len(), 1, "the observation is found too");
    assert_eq!(notes[0].kind, SearchHitKind::Observation);
    let found = lango_core::memory::knowledge::bm25_candidates(&store, "s", "heron")
        .await
        .unwrap();
    assert_eq!(
        found
            .iter()
            .filter(|c| c.kind == SearchHitKind::Message)
            .count(),
        2,
        "retrieval finds both messages: {found:?}"
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
