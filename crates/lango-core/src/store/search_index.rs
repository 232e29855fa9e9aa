//! Indexing queued messages for search, in small batches, in the background.
//!
//! Appends and edits only queue a message (`message_fts_pending`, migration 0005): indexing
//! it in the append's transaction cost most of the append. The queue is indexed here a batch
//! per write transaction, each batch sized to hold the writer ~[`BATCH_TARGET`] (a send
//! waiting behind it waits at most that long), the write gate released between batches. The
//! app starts the background task ([`Store::start_background_indexing`]): woken by every
//! append or edit, it waits [`GATHER_DELAY`] for a burst (a streamed reply, an import) to
//! gather and indexes the queue. A search indexes a small remainder itself first and
//! reports a large one as `unindexed` ([`Store::index_small_remainder`]).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::error::StoreResult;
use super::index_form::index_form;
use super::pacing::next_size;
use super::tokens::search_index_words;
use super::Store;

/// How long one batch should hold the writer.
const BATCH_TARGET: Duration = Duration::from_millis(25);
/// Rows in the first batch; later ones are sized from how long the last took.
const FIRST_BATCH: i64 = 256;
const MIN_BATCH: i64 = 32;
const MAX_BATCH: i64 = 8192;
/// How long the background task lets queued messages gather before indexing them.
const GATHER_DELAY: Duration = Duration::from_millis(250);
/// A queue up to this long is indexed by a search before it runs (a few batches).
const SMALL_REMAINDER: i64 = 2000;

/// Indexes the queued messages with ids up to `?1` from wherever each lives now (a queued row
/// may have been archived since; it is never in both tables at once), but those in `?2` (a
/// JSON array of ids): the ones the index holds in another form, indexed by [`INDEX_ROWS`].
///
/// Here and below, `CROSS JOIN` keeps SQLite's join order: the short queue outside, each
/// row looked up by id. Left to the planner, a batch of a few rows walked every message
/// below its last id (the whole archive, or a million-row `messages` table).
const INDEX_QUEUED: &str = "
INSERT INTO message_fts (rowid, text, session_id)
    SELECT m.id, m.content, m.session_id FROM message_fts_pending p CROSS JOIN messages m ON m.id = p.id
     WHERE p.id <= ?1 AND m.content <> '' AND m.kind = 'message'
       AND p.id NOT IN (SELECT value FROM json_each(?2))
    UNION ALL
    SELECT a.id, a.content, a.session_id FROM message_fts_pending p CROSS JOIN archived_messages a ON a.id = p.id
     WHERE p.id <= ?1 AND a.content <> '' AND a.kind = 'message'
       AND p.id NOT IN (SELECT value FROM json_each(?2))";

/// The queued messages with ids up to `?1` (as [`INDEX_QUEUED`]): id, text and session, for
/// their words ([`QUEUED_TERMS`]) and to find those the index holds in another form.
const QUEUED_ROWS: &str = "
SELECT m.id, m.content, m.session_id FROM message_fts_pending p CROSS JOIN messages m ON m.id = p.id
 WHERE p.id <= ?1 AND m.content <> '' AND m.kind = 'message'
UNION ALL
SELECT a.id, a.content, a.session_id FROM message_fts_pending p CROSS JOIN archived_messages a ON a.id = p.id
 WHERE p.id <= ?1 AND a.content <> '' AND a.kind = 'message'";

/// Indexes rows given as a JSON array of `[id, text, session id]`: the rows the index holds
/// in another form (`store::index_form`: Chinese or Thai spaced, marks kept), which SQL
/// cannot make.
const INDEX_ROWS: &str = "
INSERT INTO message_fts (rowid, text, session_id)
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
      FROM json_each(?1)";

/// Adds the words of a batch (a JSON array) to the words a search can expand the word being
/// typed into (migration 0009).
const QUEUED_TERMS: &str =
    "INSERT OR IGNORE INTO search_terms (term) SELECT value FROM json_each(?1)";

/// Queued rows that compaction has archived since change what a session's memory can
/// retrieve once indexed: their sessions get a new memory version (migration 0004), so
/// retrieval's statistics cached for the old one (`memory::knowledge_index`) are dropped.
const VERSION_INDEXED_ARCHIVE: [&str; 2] = [
    "UPDATE memory_clock SET value = value + 1
      WHERE EXISTS (SELECT 1 FROM message_fts_pending p CROSS JOIN archived_messages a ON a.id = p.id
                     WHERE p.id <= ?1)",
    "UPDATE sessions SET memory_version = (SELECT value FROM memory_clock)
      WHERE id IN (SELECT a.session_id FROM message_fts_pending p
                     CROSS JOIN archived_messages a ON a.id = p.id WHERE p.id <= ?1)",
];

/// The background task's wake-up and stop signals.
#[derive(Debug, Default)]
pub(crate) struct Indexer {
    wake: Arc<Notify>,
    stop: CancellationToken,
    /// The upgrade's re-indexing walk (`store::reindex_walk`) found nothing left: every later
    /// search and batch skips asking the database again.
    reindex_walk_done: AtomicBool,
}

impl Indexer {
    /// Something was queued: the task (if started) indexes it soon.
    pub(crate) fn wake(&self) {
        self.wake.notify_one();
    }

    /// Ends the task after the batch in progress (the store is closing).
    pub(crate) fn stop(&self) {
        self.stop.cancel();
    }

    /// Cancelled when the store closes: the store's other background work ends with it
    /// (legacy_results).
    pub(crate) fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Whether the upgrade's re-indexing walk is known to be done.
    pub(crate) fn reindex_walk_done(&self) -> bool {
        self.reindex_walk_done.load(Ordering::Relaxed)
    }

    /// The walk is done: nothing creates its work again in an open database (only a
    /// migration does, at open).
    pub(crate) fn set_reindex_walk_done(&self) {
        self.reindex_walk_done.store(true, Ordering::Relaxed);
    }
}

impl Store {
    /// Indexes every queued message (appends and edits queue them, see migration 0005), a
    /// batch per transaction so no write waits long behind it. The memory cycle calls this
    /// after each turn (knowledge retrieval reads the index, see
    /// [`Store::knowledge_matches`]); one-shot commands call it before searching. Returns how
    /// many were indexed; 0 costs one read.
    pub async fn index_pending_messages(&self) -> StoreResult<u64> {
        self.index_queue(None).await
    }

    /// [`Store::index_pending_messages`], ending between batches once `stop` is cancelled.
    async fn index_queue(&self, stop: Option<&CancellationToken>) -> StoreResult<u64> {
        // Messages an upgrade left to index anew are queued first (`store::reindex_walk`).
        self.requeue_for_index_form().await?;
        let queued: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM message_fts_pending)")
            .fetch_one(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        if !queued {
            return Ok(0);
        }
        let mut done = 0;
        let mut rows = FIRST_BATCH;
        loop {
            if stop.is_some_and(CancellationToken::is_cancelled) {
                return Ok(done);
            }
            let started = Instant::now();
            let n = self.index_batch(rows).await?;
            if n == 0 {
                return Ok(done);
            }
            done += n;
            rows = next_batch(rows, started.elapsed());
            // Lets a write that queued for the gate meanwhile go first.
            tokio::task::yield_now().await;
        }
    }

    /// How many messages are queued for the search index.
    pub async fn unindexed_messages(&self) -> StoreResult<u64> {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM message_fts_pending")
            .fetch_one(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        Ok(n.max(0) as u64)
    }

    /// Before a search: indexes the queue when it is short, so the search sees every message;
    /// returns how many are still queued (a long queue — an import, a database from before
    /// the background indexing — is left to the background task and reported).
    pub(crate) async fn index_small_remainder(&self) -> StoreResult<u64> {
        self.requeue_for_index_form().await?;
        let queued: i64 =
            sqlx::query_scalar("SELECT count(*) FROM (SELECT 1 FROM message_fts_pending LIMIT ?)")
                .bind(SMALL_REMAINDER + 1)
                .fetch_one(self.reader())
                .await
                .map_err(|e| self.err(e))?;
        if queued == 0 {
            return Ok(0);
        }
        if queued <= SMALL_REMAINDER && !self.inner.read_only {
            self.index_pending_messages().await?;
            return Ok(0);
        }
        self.unindexed_messages().await
    }

    /// Indexes the `rows` oldest queued messages in one write transaction; how many it took
    /// off the queue.
    async fn index_batch(&self, rows: i64) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT max(id) FROM (SELECT id FROM message_fts_pending ORDER BY id LIMIT ?)",
        )
        .bind(rows)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let Some(last) = last else {
            return Ok(0); // the transaction rolls back: nothing was written
        };
        let rows: Vec<(i64, String, i64)> = sqlx::query_as(QUEUED_ROWS)
            .bind(last)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        let mut words = HashSet::new();
        let mut formed_ids = Vec::new();
        let mut formed_rows = Vec::new();
        for (id, text, session) in &rows {
            search_index_words(text, &mut words);
            // Borrowed when the index holds the text as written: one pass decides and forms.
            if let Cow::Owned(formed) = index_form(text) {
                formed_ids.push(*id);
                formed_rows.push(serde_json::json!([id, formed, session]));
            }
        }
        sqlx::query(INDEX_QUEUED)
            .bind(last)
            .bind(serde_json::to_string(&formed_ids).unwrap_or_else(|_| "[]".to_owned()))
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        if !formed_rows.is_empty() {
            sqlx::query(INDEX_ROWS)
                .bind(serde_json::Value::Array(formed_rows).to_string())
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        let words: Vec<String> = words.into_iter().collect();
        sqlx::query(QUEUED_TERMS)
            .bind(serde_json::to_string(&words).unwrap_or_else(|_| "[]".to_owned()))
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        for statement in VERSION_INDEXED_ARCHIVE {
            sqlx::query(statement)
                .bind(last)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        let done = sqlx::query("DELETE FROM message_fts_pending WHERE id <= ?")
            .bind(last)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit_quietly().await.map_err(|e| self.err(e))?;
        Ok(done.rows_affected())
    }

    /// Starts indexing queued messages in the background (the app calls this once after
    /// opening the store): now, then after every append or edit. Stopped by
    /// [`Store::close`]. A read-only store has nothing to index.
    pub fn start_background_indexing(&self) {
        if self.inner.read_only {
            return;
        }
        let wake = self.inner.indexer.wake.clone();
        let stop = self.inner.indexer.stop.clone();
        // A weak handle: the task must not keep a dropped store open.
        let store = Arc::downgrade(&self.inner);
        wake.notify_one(); // what earlier runs left queued
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = wake.notified() => {}
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(GATHER_DELAY) => {}
                }
                let Some(inner) = store.upgrade() else { return };
                let store_now = Store { inner };
                if let Err(e) = store_now.index_queue(Some(&stop)).await {
                    if !stop.is_cancelled() {
                        tracing::warn!(error = %e, "background search indexing failed; retried at the next message");
                    }
                }
            }
        });
    }
}

/// The next batch's rows: sized so it takes about [`BATCH_TARGET`] at the last one's pace.
fn next_batch(rows: i64, took: Duration) -> i64 {
    next_size(rows, took, BATCH_TARGET, MIN_BATCH, MAX_BATCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_grow_slowly_and_shrink_when_slow() {
        assert_eq!(next_batch(256, Duration::from_millis(1)), 512);
        assert_eq!(next_batch(8192, Duration::from_millis(1)), MAX_BATCH);
        assert_eq!(next_batch(1000, Duration::from_millis(100)), 250);
        assert_eq!(next_batch(64, Duration::from_secs(10)), MIN_BATCH);
    }

    /// A batch of a few queued rows must cost a few lookups, not a walk over every message
    /// below its last id: each statement reads the queue first, then each row by id.
    #[tokio::test]
    async fn a_batch_looks_its_rows_up_by_id_from_the_queue() {
        let (_dir, store) = Store::open_temporary().await;
        let statements = [INDEX_QUEUED, QUEUED_ROWS]
            .into_iter()
            .chain(VERSION_INDEXED_ARCHIVE);
        for statement in statements {
            let plan = store.query_plan(statement).await;
            let reads: Vec<&String> = plan
                .iter()
                .filter(|step| step.starts_with("SEARCH") || step.starts_with("SCAN"))
                .filter(|step| !step.contains("memory_clock") && !step.contains("sessions"))
                // The ids left out (a short list, read once into a filter).
                .filter(|step| !step.contains("json_each"))
                .collect();
            assert!(!reads.is_empty(), "{statement}: {plan:?}");
            for pair in reads.chunks(2) {
                assert!(
                    pair[0].starts_with("SEARCH p "),
                    "the queue first: {plan:?}"
                );
                if let Some(row) = pair.get(1) {
                    assert!(row.contains("(rowid=?)"), "then one row by id: {plan:?}");
                }
            }
        }
        store.close().await;
    }
}
