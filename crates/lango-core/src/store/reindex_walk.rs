//! Indexing anew, once, what was indexed before the index held texts in its own form
//! (`store::index_form`: Chinese and Japanese characters apart since migration 0018, Thai,
//! Lao, Khmer and Burmese apart and marks inside words kept since 0019): such a message or
//! note holds its runs as single words, or its words as their consonants, until it is
//! indexed again. (The walk's table keeps the name 0018 gave it, `cjk_reindex_scan`.)
//!
//! The walk goes over each table's ids up to the newest one when the migration ran, a span
//! per write transaction sized to hold the writer ~25 ms, reading the text only of rows that
//! are not ASCII (`length` and `octet_length` differ). Messages the index holds in another
//! form are queued for the search indexing (`store::search_index`), which indexes them in
//! it; notes get their search row set at once (`store::note_index`). It runs before the
//! indexing does — in the background task and before a search — so a search right after
//! the upgrade counts the messages still to do as queued ("indexing… n left") instead of
//! missing them.

use std::time::{Duration, Instant};

use super::error::StoreResult;
use super::index_form::{index_form, needs_index_form};
use super::note_index::NoteTable;
use super::pacing::next_size;
use super::Store;

/// Ids the first span covers: a few milliseconds at a million ASCII rows.
const FIRST_SPAN: i64 = 20_000;
/// How long one span should hold the writer (as the search indexing's batches,
/// `store::search_index`): a span of Chinese messages takes each out of the index, 20,000 of
/// them ~150 ms, so spans are sized from the last one's pace.
const SPAN_TARGET: Duration = Duration::from_millis(25);
const MIN_SPAN: i64 = 256;
const MAX_SPAN: i64 = 100_000;

/// One walked table's statements (SQL is static text: sqlx takes no table name as a value).
struct Table {
    name: &'static str,
    /// The rows with ids after `?1` up to `?2` whose text is not ASCII: id and text.
    non_ascii: &'static str,
    /// Messages are queued for indexing; a note's search row is set at once.
    note: Option<NoteTable>,
}

const TABLES: [Table; 4] = [
    Table {
        name: "messages",
        non_ascii: "SELECT id, content FROM messages
                     WHERE id > ?1 AND id <= ?2 AND kind = 'message'
                       AND length(content) <> octet_length(content)",
        note: None,
    },
    Table {
        name: "archived_messages",
        non_ascii: "SELECT id, content FROM archived_messages
                     WHERE id > ?1 AND id <= ?2 AND kind = 'message'
                       AND length(content) <> octet_length(content)",
        note: None,
    },
    Table {
        name: "observations",
        non_ascii: "SELECT rowid, content FROM observations
                     WHERE rowid > ?1 AND rowid <= ?2 AND length(content) <> octet_length(content)",
        note: Some(NoteTable::Observations),
    },
    Table {
        name: "reflections",
        non_ascii: "SELECT rowid, content FROM reflections
                     WHERE rowid > ?1 AND rowid <= ?2 AND length(content) <> octet_length(content)",
        note: Some(NoteTable::Reflections),
    },
];

/// Queues the ids (a JSON array) for indexing; queued rows are never in the index.
const REQUEUE: [&str; 2] = [
    "INSERT OR IGNORE INTO message_fts_pending (id) SELECT value FROM json_each(?1)",
    "DELETE FROM message_fts WHERE rowid IN (SELECT value FROM json_each(?1))",
];

impl Store {
    /// Walks what is left of the migrations' spans to the end: the messages the index holds
    /// in another form queued for indexing anew, the notes' search rows set; how many rows it
    /// took up. Nothing to do costs one read per open store (then it is remembered); a
    /// read-only store leaves it for later.
    pub(crate) async fn requeue_for_index_form(&self) -> StoreResult<u64> {
        if self.inner.read_only || self.inner.indexer.reindex_walk_done() {
            return Ok(0);
        }
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM cjk_reindex_scan")
            .fetch_one(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        if left == 0 {
            self.inner.indexer.set_reindex_walk_done();
            return Ok(0);
        }
        let mut queued = 0;
        let mut span = FIRST_SPAN;
        for table in &TABLES {
            loop {
                let started = Instant::now();
                let Some(n) = self.requeue_span(table, span).await? else {
                    break;
                };
                queued += n;
                span = next_span(span, started.elapsed());
                // Lets a write that queued for the gate meanwhile go first.
                tokio::task::yield_now().await;
            }
        }
        self.inner.indexer.set_reindex_walk_done();
        Ok(queued)
    }

    /// The next span of `table`'s walk, in one write transaction (the walk's place read in
    /// it too, so two walkers never do a span twice): its rows the index holds in another
    /// form queued (messages) or set (notes), the walk moved on or ended for the table. None when
    /// the table's walk is done.
    async fn requeue_span(&self, table: &Table, span: i64) -> StoreResult<Option<u64>> {
        let mut tx = self.begin_write().await?;
        let scan: Option<(i64, i64)> =
            sqlx::query_as("SELECT next_id, end_id FROM cjk_reindex_scan WHERE tbl = ?")
                .bind(table.name)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        let Some((next_id, end_id)) = scan else {
            return Ok(None); // the transaction rolls back: nothing was written
        };
        let span_end = next_id.saturating_add(span).min(end_id);
        let rows: Vec<(i64, String)> = sqlx::query_as(table.non_ascii)
            .bind(next_id)
            .bind(span_end)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        let rows: Vec<&(i64, String)> = rows
            .iter()
            .filter(|(_, text)| needs_index_form(text))
            .collect();
        if let Some(note) = table.note {
            for (rowid, text) in &rows {
                sqlx::query(note.respace_rowid())
                    .bind(index_form(text).as_ref())
                    .bind(rowid)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.err(e))?;
            }
        } else if !rows.is_empty() {
            let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
            let json = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".to_owned());
            for statement in REQUEUE {
                sqlx::query(statement)
                    .bind(&json)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.err(e))?;
            }
        }
        let step = if span_end >= end_id {
            sqlx::query("DELETE FROM cjk_reindex_scan WHERE tbl = ?").bind(table.name)
        } else {
            sqlx::query("UPDATE cjk_reindex_scan SET next_id = ? WHERE tbl = ?")
                .bind(span_end)
                .bind(table.name)
        };
        step.execute(&mut *tx).await.map_err(|e| self.err(e))?;
        tx.commit_quietly().await.map_err(|e| self.err(e))?;
        Ok(Some(rows.len() as u64))
    }
}

/// The next span's ids: sized so it takes about [`SPAN_TARGET`] at the last one's pace, at
/// most doubling.
fn next_span(span: i64, took: Duration) -> i64 {
    next_size(span, took, SPAN_TARGET, MIN_SPAN, MAX_SPAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_span_makes_the_next_one_shorter_and_a_fast_one_longer() {
        assert_eq!(next_span(20_000, Duration::from_millis(150)), 3_333);
        assert_eq!(next_span(20_000, Duration::from_millis(1)), 40_000);
        assert_eq!(next_span(80_000, Duration::from_millis(1)), MAX_SPAN);
        assert_eq!(next_span(300, Duration::from_secs(5)), MIN_SPAN);
    }
}
