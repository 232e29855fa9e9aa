//! The user's search at scale: ranking over a bounded candidate set, pages and counts,
//! plain snippets with dates, and indexing in batches and in the background.

use std::time::Duration;

use lango_core::store::{NewMessage, SearchHitKind, Store};

use crate::raw_db::raw_pool;
use crate::temp_store;

/// Queues `rows` messages mentioning `word` in session `key` in one SQL statement, as
/// another process or an import would leave them (appends through the API would take long).
async fn queue_rows(store: &Store, key: &str, rows: i64, word: &str) {
    store.create_session(key, "").await.unwrap();
    insert_rows(store, key, rows, word).await;
}

/// A second connection to the store's file: writes there bypass the store (no wake-up, no
/// append path), as another process's would.
async fn side_door(store: &Store) -> sqlx::SqlitePool {
    raw_pool(store.path()).await
}

/// The rows of [`queue_rows`] into an existing session, without the store knowing.
async fn insert_rows(store: &Store, key: &str, rows: i64, word: &str) {
    let pool = side_door(store).await;
    sqlx::query(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?2)
         INSERT INTO messages (session_id, seq, role, content, created_at)
         SELECT (SELECT id FROM sessions WHERE key = ?1), x, 'user',
                'message ' || x || ' about the ' || ?3 || ' and what to do next', x FROM n",
    )
    .bind(key)
    .bind(rows)
    .bind(word)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("UPDATE sessions SET next_seq = ?1 + 1 WHERE key = ?2")
        .bind(rows)
        .bind(key)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

/// Waits (up to 30 s) until the background indexing has emptied the queue; `why` names what
/// failed if it never does.
async fn background_indexing_done(store: &Store, why: &str) {
    for _ in 0..600 {
        if store.unindexed_messages().await.unwrap() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{why}");
}

#[tokio::test]
async fn the_best_match_comes_first_even_when_older_than_every_other_match() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    store
        .append_message("s", NewMessage::new("user", "Quokka, quokka: the quokka."))
        .await
        .unwrap();
    for i in 0..30 {
        let text = format!(
            "Message {i} says a lot about travel plans, budgets, trains and tickets, \
             and mentions a quokka once among many other words about the trip."
        );
        store
            .append_message("s", NewMessage::new("assistant", text))
            .await
            .unwrap();
    }
    let results = store.search_page("quokka", None, 5, 0).await.unwrap();
    assert_eq!(results.hits[0].seq, Some(1), "{:?}", results.hits[0]);
    assert_eq!(results.total, 31);
    assert!(!results.total_is_lower_bound && results.more);
}

#[tokio::test]
async fn pages_follow_one_another_without_repeats_and_the_count_is_capped() {
    let (_d, store) = temp_store().await;
    queue_rows(&store, "many", 1_500, "wombat").await;
    store.index_pending_messages().await.unwrap();

    let mut seen = std::collections::HashSet::new();
    for offset in [0, 50, 100] {
        let page = store.search_page("wombat", None, 50, offset).await.unwrap();
        assert_eq!(page.hits.len(), 50);
        assert!(page.more);
        // More matches than are ranked: the count says "at least".
        assert!(
            page.total_is_lower_bound && page.total >= 500,
            "{}",
            page.total
        );
        for hit in page.hits {
            assert!(seen.insert(hit.item_id), "a hit came twice");
        }
    }

    store.create_session("few", "").await.unwrap();
    for i in 0..60 {
        store
            .append_message("few", NewMessage::new("user", format!("numbat {i}")))
            .await
            .unwrap();
    }
    let last = store.search_page("numbat", None, 50, 50).await.unwrap();
    assert_eq!((last.hits.len(), last.total, last.more), (10, 60, false));
    assert!(!last.total_is_lower_bound);
}

#[tokio::test]
async fn a_common_word_ranks_its_newest_notes_and_messages_within_one_budget() {
    let (_d, store) = temp_store().await;
    queue_rows(&store, "many", 1_500, "wombat").await;
    store.index_pending_messages().await.unwrap();
    for i in 0..200 {
        crate::memory::save_obs(&store, "many", &format!("Wombat {i}: wombat, wombat.")).await;
    }

    let first = store.search_page("wombat", None, 50, 0).await.unwrap();
    // 1,700 items hold the word; a search ranks 500 of them (RANK_BUDGET), whatever the
    // size of the database, and says the count is a lower bound ("500+ results").
    assert_eq!(
        (first.total, first.total_is_lower_bound, first.more),
        (500, true, true)
    );
    // The best come first: the short notes that say the word three times.
    assert!(first
        .hits
        .iter()
        .all(|h| h.kind == SearchHitKind::Observation));
    // The notes give at most 125 (a quarter of it): the messages are ranked after them, and
    // they are the newest 375 (seq 1,126 to 1,500), newest first among equals.
    let after_notes = store.search_page("wombat", None, 50, 125).await.unwrap();
    let seqs: Vec<i64> = after_notes.hits.iter().filter_map(|h| h.seq).collect();
    assert_eq!(seqs.len(), 50, "{:?}", after_notes.hits);
    assert_eq!(seqs[0], 1_500);
    assert!(seqs.iter().all(|&seq| seq > 1_500 - 375), "{seqs:?}");
}

#[tokio::test]
async fn snippets_are_plain_words_with_brackets_only_around_matches() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "Notes").await.unwrap();
    let stored = store
        .append_message(
            "s",
            NewMessage::new(
                "assistant",
                "## Plan\n\nThe **Quokka** lives in [Rottnest](https://example.com); \
                 `quokkas` smile. - [x] done",
            ),
        )
        .await
        .unwrap();
    let hits = store.search_page("quokk", None, 5, 0).await.unwrap().hits;
    let snippet = &hits[0].snippet;
    assert_eq!(
        snippet,
        "Plan The [Quokka] lives in Rottnest; [quokkas] smile. - (x) done"
    );
    assert_eq!(hits[0].at, stored.created_at);
    let session = store.get_session("s").await.unwrap();
    assert_eq!(hits[0].session_updated_at, session.updated_at);
}

#[tokio::test]
async fn the_word_being_typed_matches_the_words_it_begins_in_messages_and_notes() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    for text in ["a project plan", "two projects", "a projector", "prose"] {
        store
            .append_message("s", NewMessage::new("user", text))
            .await
            .unwrap();
    }
    crate::memory::save_obs(&store, "s", "The user is projecting slides").await;
    let hits = store.search_page("proj", None, 10, 0).await.unwrap().hits;
    let mut snippets: Vec<&str> = hits.iter().map(|h| h.snippet.as_str()).collect();
    snippets.sort_unstable();
    assert_eq!(
        snippets,
        [
            "The user is [projecting] slides",
            "a [project] plan",
            "a [projector]",
            "two [projects]"
        ]
    );
    assert!(hits.iter().any(|h| h.kind == SearchHitKind::Observation));
    // Every other word whole, the last one a prefix.
    assert_eq!(store.search("two proj", None, 10).await.unwrap().len(), 1);
    assert!(store.search("proj two", None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_word_ending_in_a_symbol_matches_as_typed_not_every_word_it_begins() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    for text in [
        "I write C++ every day",
        "the crate compiles",
        "what changed?",
        "whatever",
    ] {
        store
            .append_message("s", NewMessage::new("user", text))
            .await
            .unwrap();
    }
    let snippets = |hits: Vec<lango_core::store::SearchHit>| {
        let mut s: Vec<String> = hits.into_iter().map(|h| h.snippet).collect();
        s.sort_unstable();
        s
    };
    // "c++" is a finished word: the index keeps its "c", and only that is matched and marked.
    let hits = store.search_page("c++", None, 10, 0).await.unwrap().hits;
    assert_eq!(snippets(hits), ["I write [C]++ every day"]);
    let hits = store.search_page("what?", None, 10, 0).await.unwrap().hits;
    assert_eq!(snippets(hits), ["[what] changed?"]);
    // While a word is being typed it still matches the words it begins.
    let hits = store.search_page("what", None, 10, 0).await.unwrap().hits;
    assert_eq!(snippets(hits), ["[what] changed?", "[whatever]"]);
}

#[tokio::test]
async fn a_send_is_not_held_behind_indexing_a_long_queue() {
    let (_d, store) = temp_store().await;
    queue_rows(&store, "import", 30_000, "dugong").await;
    assert_eq!(store.unindexed_messages().await.unwrap(), 30_000);

    let indexing = tokio::spawn({
        let store = store.clone();
        async move { store.index_pending_messages().await }
    });
    // Once the indexing has begun, a message is sent.
    while store.unindexed_messages().await.unwrap() == 30_000 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    store.create_session("chat", "").await.unwrap();
    store
        .append_message("chat", NewMessage::new("user", "a dugong question"))
        .await
        .unwrap();
    // It was stored between two batches, long before the queue was indexed.
    let left = store.unindexed_messages().await.unwrap();
    assert!(left > 5_000, "the send waited for {} rows", 30_000 - left);

    assert_eq!(indexing.await.unwrap().unwrap(), 30_001);
    let found = store
        .search_page("dugong", Some("chat"), 5, 0)
        .await
        .unwrap();
    assert_eq!((found.hits.len(), found.unindexed), (1, 0));
    assert_eq!(
        store.search_page("dugong", None, 5, 0).await.unwrap().total,
        500
    );
}

#[tokio::test]
async fn a_search_reports_a_long_queue_and_the_background_indexing_empties_it() {
    let (_d, store) = temp_store().await;
    queue_rows(&store, "import", 5_000, "narwhal").await;
    let before = store.search_page("narwhal", None, 5, 0).await.unwrap();
    assert_eq!((before.hits.len(), before.unindexed), (0, 5_000));

    store.start_background_indexing();
    background_indexing_done(&store, "the background indexing never finished").await;
    let after = store.search_page("narwhal", None, 5, 0).await.unwrap();
    assert_eq!(
        (after.hits.len(), after.total, after.unindexed),
        (5, 500, 0)
    );

    // Then each append wakes it.
    queue_rows(&store, "later", 3_000, "beluga").await;
    store
        .append_message("later", NewMessage::new("user", "beluga"))
        .await
        .unwrap();
    background_indexing_done(&store, "the background indexing did not wake").await;
    store.close().await;
}

/// An import or a compaction writes in its own transaction, not through the append path:
/// its commit must wake the background indexing too, or those messages would wait for the
/// next message or search to be indexed (and the memory's retrieval would not see them).
#[tokio::test]
async fn a_write_transaction_such_as_a_compaction_wakes_the_background_indexing() {
    let (_d, store) = temp_store().await;
    store.start_background_indexing();
    store.create_session("c", "").await.unwrap();
    store.create_session("imported", "").await.unwrap();
    for i in 0..4 {
        store
            .append_message("c", NewMessage::new("user", format!("m{i}")))
            .await
            .unwrap();
    }
    background_indexing_done(&store, "the background indexing never finished").await;
    // Every wake-up the appends left is used up, then rows are queued behind the store's
    // back (as another process would leave them): nothing wakes the indexing yet.
    tokio::time::sleep(Duration::from_millis(500)).await;
    insert_rows(&store, "imported", 2_000, "walrus").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(store.unindexed_messages().await.unwrap(), 2_000);

    store.compact_messages("c", 1, "summary").await.unwrap();
    background_indexing_done(&store, "the compaction's commit did not wake the indexing").await;
    store.close().await;
}

/// `rows` messages saying `text` in session 1, with consecutive ids from `first_id` and seqs
/// from `first_seq`: ids far apart, as after many other messages, without writing those.
async fn insert_texts(
    pool: &sqlx::SqlitePool,
    first_id: i64,
    first_seq: i64,
    rows: i64,
    text: &str,
) {
    sqlx::query(
        "WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < ?3 - 1)
         INSERT INTO messages (id, session_id, seq, role, content, created_at)
         SELECT ?1 + x, 1, ?2 + x, 'user', ?4 || ' ' || x, ?2 + x FROM n",
    )
    .bind(first_id)
    .bind(first_seq)
    .bind(rows)
    .bind(text)
    .execute(pool)
    .await
    .unwrap();
}

/// Every page of `query`, 50 hits each, until the search says there are no more.
async fn every_page(store: &Store, query: &str) -> Vec<lango_core::store::SearchHit> {
    let mut hits = Vec::new();
    for page in 0.. {
        let results = store.search_page(query, None, 50, page * 50).await.unwrap();
        hits.extend(results.hits);
        if !results.more {
            return hits;
        }
        assert!(page < 100, "pages never end");
    }
    unreachable!()
}

#[tokio::test]
async fn several_words_rank_their_best_match_first_even_when_it_is_older_than_a_page_of_others() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let pool = side_door(&store).await;
    // 60 old messages that say little but the two words, then (ids far later, as after
    // 200,000 others) 60 new ones that mention them among many other words.
    insert_texts(&pool, 1, 1, 60, "alpha beta").await;
    let wordy = "alpha and beta among a great many other words about the trip and the trains";
    insert_texts(&pool, 200_001, 61, 60, wordy).await;
    pool.close().await;

    let first = store.search_page("alpha beta", None, 50, 0).await.unwrap();
    assert!(
        first.hits.iter().all(|h| h.seq.unwrap() <= 60),
        "the best matches first, however old: {:?}",
        first.hits.iter().map(|h| h.seq).collect::<Vec<_>>()
    );
    assert_eq!(
        (first.total, first.total_is_lower_bound, first.more),
        (120, false, true)
    );
    // Paging on shows every match once: none repeated, none skipped.
    let all = every_page(&store, "alpha beta").await;
    let mut seqs: Vec<i64> = all.iter().filter_map(|h| h.seq).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=120).collect::<Vec<_>>());
}

#[tokio::test]
async fn paging_past_the_first_500_candidates_shows_every_match_once_notes_included() {
    let (_d, store) = temp_store().await;
    queue_rows(&store, "many", 1_100, "wombat").await;
    store.index_pending_messages().await.unwrap();
    for i in 0..130 {
        crate::memory::save_obs(&store, "many", &format!("Wombat {i}: wombat, wombat.")).await;
    }

    let first = store.search_page("wombat", None, 50, 0).await.unwrap();
    assert_eq!((first.total, first.total_is_lower_bound), (500, true));
    // Every page reads only the blocks of 500 it reaches, ranks each the same way, and the
    // pages together hold each of the 1,230 matches once: the 130th observation too.
    let all = every_page(&store, "wombat").await;
    let keys: std::collections::HashSet<(bool, String)> = all
        .iter()
        .map(|h| (h.kind == SearchHitKind::Message, h.item_id.clone()))
        .collect();
    assert_eq!((all.len(), keys.len()), (1_230, 1_230));
    let last = store.search_page("wombat", None, 50, 1_200).await.unwrap();
    assert_eq!(
        (
            last.hits.len(),
            last.total,
            last.total_is_lower_bound,
            last.more
        ),
        (30, 1_230, false, false)
    );
}
