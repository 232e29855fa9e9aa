//! Upgrading the search indexes of an older database: what was indexed before is found
//! after, in the index's form of the new version.

use std::path::Path;

use lango_core::store::{NewMessage, SearchHitKind, Store, MIGRATOR};

use crate::open::insert_old_conversation;
use crate::raw_db::raw_pool;

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

/// Migration 0006 rebuilds the search indexes with the session as an indexed column: what
/// was indexed stays found, what was still queued stays queued and is found after.
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
