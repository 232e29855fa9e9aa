//! Moving the large tool results of rows written before migration 0015 beside their rows,
//! in the background, a row at a time.
//!
//! Such a row keeps a whole result (megabytes of a file read) inline in `tool_calls`, which
//! every page, history tail and inspection parses. Here it gets the shape new rows have
//! (`tool_results`): its first [`HEAD_BYTES`] and size inline, the whole beside. The scan
//! walks each table's ids up to the newest one when migration 0016 ran, a span per read,
//! reading only each row's size (`octet_length` needs no overflow page); a row it rewrites is
//! read outside the write lock and written only if unchanged since, so a send waits for at
//! most one row's write. The JSON is edited as it is (each entry's `meta.fullOutput`), never
//! re-typed, so nothing the row holds is dropped, and a row that does not read as a list of
//! objects is left as it is.
//!
//! Owns the scan and that edit. The split's sizes are tool_results.rs's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::error::StoreResult;
use super::tool_results::{to_column, HEAD_BYTES, INLINE_RESULT_BYTES};
use super::Store;
use crate::text::floor_char_boundary;

/// Ids one scan read covers (their sizes only: a few milliseconds at a million rows).
const SCAN_SPAN: i64 = 20_000;
/// A pause between rewritten rows, so a burst of large rows leaves the disk to the app.
const PAUSE: Duration = Duration::from_millis(20);

/// One scanned table's statements (SQL is static text: sqlx takes no table name as a value).
struct Table {
    name: &'static str,
    /// The first row after `?1` up to `?2` whose calls are over `?3` bytes, nothing beside.
    next: &'static str,
    read: &'static str,
    /// Row `?3` gets its moved columns if its calls are still `?4`.
    rewrite: &'static str,
}

/// The tables in the order they are scanned (see migration 0016 for why this order).
const TABLES: [Table; 2] = [
    Table {
        name: "messages",
        next: "SELECT id FROM messages
                WHERE id > ?1 AND id <= ?2 AND tool_results IS NULL AND octet_length(tool_calls) > ?3
                ORDER BY id LIMIT 1",
        read: "SELECT tool_calls FROM messages WHERE id = ?1",
        rewrite: "UPDATE messages SET tool_calls = ?1, tool_results = ?2
                   WHERE id = ?3 AND tool_results IS NULL AND tool_calls = ?4",
    },
    Table {
        name: "archived_messages",
        next: "SELECT id FROM archived_messages
                WHERE id > ?1 AND id <= ?2 AND tool_results IS NULL AND octet_length(tool_calls) > ?3
                ORDER BY id LIMIT 1",
        read: "SELECT tool_calls FROM archived_messages WHERE id = ?1",
        rewrite: "UPDATE archived_messages SET tool_calls = ?1, tool_results = ?2
                   WHERE id = ?3 AND tool_results IS NULL AND tool_calls = ?4",
    },
];

/// The columns of a legacy row after its large results are moved: `tool_calls` with each
/// such result cut to its start and size, and the whole ones for `tool_results`; `None`
/// when nothing is over [`INLINE_RESULT_BYTES`] or `json` is not a list of calls.
pub(super) fn moved_out(json: &str) -> Option<(String, String)> {
    let Ok(Value::Array(mut calls)) = serde_json::from_str::<Value>(json) else {
        return None;
    };
    let mut wholes: Vec<Option<String>> = vec![None; calls.len()];
    for (call, whole) in calls.iter_mut().zip(wholes.iter_mut()) {
        let Some(meta) = call.get_mut("meta").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(full) = meta
            .get("fullOutput")
            .and_then(Value::as_str)
            .filter(|full| full.len() > INLINE_RESULT_BYTES)
            .map(str::to_owned)
        else {
            continue;
        };
        let head = full[..floor_char_boundary(&full, HEAD_BYTES)].to_owned();
        meta.insert("fullOutput".into(), Value::String(head));
        meta.insert("fullOutputBytes".into(), Value::from(full.len() as u64));
        *whole = Some(full);
    }
    if wholes.iter().all(Option::is_none) {
        return None;
    }
    let column: Vec<Option<&str>> = wholes.iter().map(Option::as_deref).collect();
    Some((Value::Array(calls).to_string(), to_column(&column)))
}

impl Store {
    /// Starts moving legacy rows' large tool results beside their rows, in the background
    /// (the app calls this once after opening the store). Stopped by [`Store::close`]; a
    /// read-only store is left as it is.
    pub fn start_moving_legacy_results(&self) {
        if self.inner.read_only {
            return;
        }
        let stop = self.inner.indexer.stop_token();
        // A weak handle: the task must not keep a dropped store open.
        let store = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let Some(inner) = store.upgrade() else { return };
            let store = Store { inner };
            match store.move_legacy_results(&stop).await {
                Ok(0) => {}
                Ok(moved) => tracing::info!(
                    rows = moved,
                    "large tool results of earlier versions moved beside their rows"
                ),
                Err(e) if !stop.is_cancelled() => tracing::warn!(
                    error = %e,
                    "moving earlier versions' large tool results failed; tried again at the next start"
                ),
                Err(_) => {}
            }
        });
    }

    /// Scans what is left of both tables, rewriting each legacy row with a large result;
    /// how many rows were rewritten. Ends between rows once `stop` is cancelled.
    pub async fn move_legacy_results(&self, stop: &CancellationToken) -> StoreResult<u64> {
        let mut moved = 0;
        for table in &TABLES {
            loop {
                if stop.is_cancelled() {
                    return Ok(moved);
                }
                let scan: Option<(i64, i64)> = sqlx::query_as(
                    "SELECT next_id, end_id FROM legacy_results_scan WHERE tbl = ?1",
                )
                .bind(table.name)
                .fetch_optional(self.reader())
                .await
                .map_err(|e| self.err(e))?;
                let Some((next_id, end_id)) = scan else {
                    break;
                };
                if next_id >= end_id {
                    self.finish_scan(table.name).await?;
                    break;
                }
                let span_end = next_id.saturating_add(SCAN_SPAN).min(end_id);
                let found = self.next_legacy_row(table, next_id, span_end).await?;
                let Some((id, json)) = found else {
                    self.advance_scan(table.name, span_end).await?;
                    continue;
                };
                if let Some((calls, results)) = moved_out(&json) {
                    if self.rewrite_row(table, id, &json, &calls, &results).await? {
                        moved += 1;
                    }
                    tokio::time::sleep(PAUSE).await;
                }
                self.advance_scan(table.name, id).await?;
            }
        }
        Ok(moved)
    }

    /// The first row of `table` after `after` up to `upto` whose calls are larger than a
    /// result may be inline, with no results beside it yet.
    async fn next_legacy_row(
        &self,
        table: &Table,
        after: i64,
        upto: i64,
    ) -> StoreResult<Option<(i64, String)>> {
        let id: Option<i64> = sqlx::query_scalar(table.next)
            .bind(after)
            .bind(upto)
            .bind(INLINE_RESULT_BYTES as i64)
            .fetch_optional(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        let Some(id) = id else { return Ok(None) };
        let json: Option<String> = sqlx::query_scalar(table.read)
            .bind(id)
            .fetch_optional(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        // Gone since (a regenerate removed it): the scan goes on past it.
        Ok(Some((id, json.unwrap_or_default())))
    }

    /// Writes the moved columns of row `id` if its calls are still `old`; whether it did.
    async fn rewrite_row(
        &self,
        table: &Table,
        id: i64,
        old: &str,
        calls: &str,
        results: &str,
    ) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(table.rewrite)
            .bind(calls)
            .bind(results)
            .bind(id)
            .bind(old)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit_quietly().await.map_err(|e| self.err(e))?;
        Ok(done.rows_affected() == 1)
    }

    async fn advance_scan(&self, table: &str, next_id: i64) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("UPDATE legacy_results_scan SET next_id = ?1 WHERE tbl = ?2")
            .bind(next_id)
            .bind(table)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit_quietly().await.map_err(|e| self.err(e))
    }

    async fn finish_scan(&self, table: &str) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM legacy_results_scan WHERE tbl = ?1")
            .bind(table)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit_quietly().await.map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_large_result_moves_out_with_every_other_key_kept() {
        let whole = "é".repeat(40_000); // 80,000 bytes, two per character
        let json = json!([
            {"id": "c1", "name": "files__read", "output": "cut copy", "someFutureKey": 7,
             "meta": {"status": "done", "fullOutput": whole, "server": "files"}},
            {"id": "c2", "name": "files__list", "meta": {"status": "done", "fullOutput": "a.txt"}},
        ])
        .to_string();
        let (calls, results) = moved_out(&json).expect("a result over 64 KB moves");
        let calls: Value = serde_json::from_str(&calls).unwrap();
        let meta = &calls[0]["meta"];
        let head = meta["fullOutput"].as_str().unwrap();
        assert!(whole.starts_with(head) && head.len() <= HEAD_BYTES && head.len() > HEAD_BYTES - 2);
        assert_eq!(meta["fullOutputBytes"], json!(80_000));
        assert_eq!(meta["server"], json!("files"));
        assert_eq!(calls[0]["someFutureKey"], json!(7));
        assert_eq!(
            calls[1]["meta"]["fullOutput"],
            json!("a.txt"),
            "a small one stays"
        );
        let results: Vec<Option<String>> = serde_json::from_str(&results).unwrap();
        assert_eq!(results, vec![Some(whole), None]);
    }

    #[test]
    fn rows_with_nothing_to_move_or_not_a_list_are_left_alone() {
        let big_input = json!([{"id": "c1", "input": "x".repeat(100_000)}]).to_string();
        assert_eq!(
            moved_out(&big_input),
            None,
            "large arguments are not a result"
        );
        assert_eq!(
            moved_out(&format!("{{\"not\": \"{}\"}}", "x".repeat(70_000))),
            None
        );
        assert_eq!(
            moved_out("[{\"meta\": {\"fullOutput\": \"x\"}}"),
            None,
            "cut JSON"
        );
    }
}
