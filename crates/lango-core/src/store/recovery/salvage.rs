//! Salvage: copy every row that can still be read from a damaged database into a new,
//! freshly set-up one. The damaged file is opened read-only and never changed.
//!
//! The bundled SQLite has no recovery extension (`sqlite3_recover` is not part of the
//! amalgamation libsqlite3-sys builds), so rows are read table by table in rowid order. When
//! a read fails on a damaged page, the scan restarts further on — jumping ahead in growing
//! steps until a read works, then narrowing back to the first rowid that reads — so only
//! the rows of the damaged pages are lost. Rows whose conversation was lost are not kept
//! (they could not be shown) and count as lost.

use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

use super::error::RecoveryError;
use super::health::{check_file, open_read_only, Depth, Health};
use crate::store::Store;
use crate::tokens::default_counter;

/// Parents before children, so a row's conversation is already there.
const TABLES: &[&str] = &[
    "sessions",
    "attachments",
    "messages",
    "archived_messages",
    "observations",
    "reflections",
    "memory_vectors",
    "memory_triples",
    "imported_conversations",
];

/// The background move of large inline tool results, set to scan every copied row.
const LEGACY_RESULTS_SCAN: &str = "
DELETE FROM legacy_results_scan;
INSERT INTO legacy_results_scan (tbl, next_id, end_id)
    SELECT 'messages', 0, max(id) FROM messages HAVING max(id) IS NOT NULL;
INSERT INTO legacy_results_scan (tbl, next_id, end_id)
    SELECT 'archived_messages', 0, max(id) FROM archived_messages HAVING max(id) IS NOT NULL;";

/// The walk that indexes texts anew in the index's form (`store::reindex_walk`), set to cover
/// every copied row: the copied notes' triggers index them as written.
const CJK_REINDEX_SCAN: &str = "
DELETE FROM cjk_reindex_scan;
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'observations', 0, max(rowid) FROM observations HAVING max(rowid) IS NOT NULL;
INSERT INTO cjk_reindex_scan (tbl, next_id, end_id)
    SELECT 'reflections', 0, max(rowid) FROM reflections HAVING max(rowid) IS NOT NULL;";

/// What a salvage recovered of one table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableSalvage {
    pub table: String,
    pub saved: u64,
    /// Rows known lost: unreadable, or whose conversation was lost. When SQLite could still
    /// count the table, the count it gave minus what was saved.
    pub lost: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SalvageReport {
    pub source: PathBuf,
    /// The new file (the source is left as it was).
    pub salvaged: PathBuf,
    pub tables: Vec<TableSalvage>,
    /// The new file as it checks.
    pub health: Health,
}

/// Salvages `source` into a new file in `out_dir` named `lango-salvaged-<time>.db`.
pub async fn salvage(source: &Path, out_dir: &Path) -> Result<SalvageReport, RecoveryError> {
    if !source.exists() {
        return Err(RecoveryError::NoDatabase {
            path: source.to_path_buf(),
        });
    }
    // Fail before creating anything when not even the table list can be read.
    let probe = source.to_path_buf();
    blocking(move || readable_tables(&probe).map(|_| ())).await?;

    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let target = out_dir.join(format!("lango-salvaged-{stamp}.db"));
    // The store sets up the newest schema; its own backups folder stays unused (new file).
    let fresh = Store::open_with(&target, &out_dir.join("backups"), default_counter()).await?;
    fresh.close().await;
    // Only this process ever opens the new file until it is reported: its set-up lock goes.
    let _ = std::fs::remove_file(crate::store::side_file(&target, ".migrate.lock"));

    let (from, to) = (source.to_path_buf(), target.clone());
    let copied = blocking(move || copy_all(&from, &to)).await;
    let tables = match copied {
        Ok(tables) => tables,
        Err(e) => {
            // Our own half-made file only; the source is untouched.
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(crate::store::side_file(&target, suffix));
            }
            return Err(e);
        }
    };
    let health = check_file(&target, Depth::Full);
    tracing::info!(source = %source.display(), salvaged = %target.display(), "database salvaged");
    Ok(SalvageReport {
        source: source.to_path_buf(),
        salvaged: target,
        tables,
        health,
    })
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, RecoveryError> + Send + 'static,
) -> Result<T, RecoveryError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(RecoveryError::Sqlite {
            path: PathBuf::new(),
            detail: format!("the salvage stopped: {e}"),
        })
    })
}

/// The tables the damaged file still lists.
fn readable_tables(source: &Path) -> Result<Vec<String>, RecoveryError> {
    let nothing = |e: rusqlite::Error| RecoveryError::NothingReadable {
        path: source.to_path_buf(),
        detail: e.to_string(),
    };
    let conn = open_read_only(source).map_err(nothing)?;
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .map_err(nothing)?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(nothing)?;
    Ok(names)
}

fn copy_all(source: &Path, target: &Path) -> Result<Vec<TableSalvage>, RecoveryError> {
    let present = readable_tables(source)?;
    let src = open_read_only(source).map_err(RecoveryError::sqlite(source))?;
    let mut dst = Connection::open_with_flags(target, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(RecoveryError::sqlite(target))?;
    dst.execute_batch("PRAGMA foreign_keys = ON")
        .map_err(RecoveryError::sqlite(target))?;
    let tx = dst.transaction().map_err(RecoveryError::sqlite(target))?;
    let mut report = Vec::new();
    for table in TABLES.iter().filter(|t| present.iter().any(|p| p == *t)) {
        report.push(copy_table(&src, &tx, table).map_err(RecoveryError::sqlite(target))?);
    }
    // Rows copied from an earlier version may hold large tool results inline: the store
    // moves them beside their rows once the file is in use (store::legacy_results).
    tx.execute_batch(LEGACY_RESULTS_SCAN)
        .map_err(RecoveryError::sqlite(target))?;
    // Copied messages are queued for the search index, which spaces them itself; copied
    // notes are indexed by their triggers as written, so the walk respaces them.
    tx.execute_batch(CJK_REINDEX_SCAN)
        .map_err(RecoveryError::sqlite(target))?;
    tx.commit().map_err(RecoveryError::sqlite(target))?;
    dst.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .map_err(RecoveryError::sqlite(target))?;
    Ok(report)
}

fn columns(conn: &Connection, table: &str) -> Vec<String> {
    conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .and_then(|mut stmt| {
            stmt.query_map([], |row| row.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .unwrap_or_default()
}

/// Copies the readable rows of one table (names come from [`TABLES`], never from input).
fn copy_table(src: &Connection, dst: &Connection, table: &str) -> rusqlite::Result<TableSalvage> {
    let theirs = columns(src, table);
    let shared: Vec<String> = columns(dst, table)
        .into_iter()
        .filter(|c| theirs.contains(c))
        .collect();
    let list = shared
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let scan = format!("SELECT rowid, {list} FROM \"{table}\" WHERE rowid >= ?1 ORDER BY rowid");
    let marks = vec!["?"; shared.len()].join(", ");
    let mut insert = dst.prepare(&format!(
        "INSERT INTO \"{table}\" ({list}) VALUES ({marks})"
    ))?;

    let (mut saved, mut unreadable, mut rejected) = (0u64, 0u64, 0u64);
    // Lango's rowids start at 1.
    let mut from = 0;
    loop {
        match scan_from(src, &scan, from, shared.len(), &mut |values| match insert
            .execute(rusqlite::params_from_iter(values))
        {
            Ok(_) => saved += 1,
            Err(_) => rejected += 1,
        }) {
            Scan::Done => break,
            Scan::FailedAfter(last) => {
                unreadable += 1;
                match next_readable(src, &scan, last) {
                    Some(next) => from = next,
                    None => break,
                }
            }
        }
    }
    // The table's count may still be readable (it can come from an index): then it says
    // how many rows the damage cost, beyond the failed reads we saw.
    let counted: Option<u64> = src
        .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
            r.get::<_, i64>(0)
        })
        .ok()
        .map(|n| n.max(0) as u64);
    let lost = match counted {
        Some(total) => total.saturating_sub(saved).max(rejected),
        None => unreadable + rejected,
    };
    tracing::info!(table, saved, lost, "table salvaged");
    Ok(TableSalvage {
        table: table.to_string(),
        saved,
        lost,
    })
}

enum Scan {
    Done,
    /// A read failed; the last rowid read before it (or the start).
    FailedAfter(i64),
}

/// Reads rows from rowid `from` on, handing each to `keep`, until the end or a failure.
fn scan_from(
    src: &Connection,
    scan: &str,
    from: i64,
    width: usize,
    keep: &mut dyn FnMut(Vec<Value>),
) -> Scan {
    let mut last = from.saturating_sub(1);
    let Ok(mut stmt) = src.prepare(scan) else {
        return Scan::FailedAfter(last);
    };
    let Ok(mut rows) = stmt.query([from]) else {
        return Scan::FailedAfter(last);
    };
    loop {
        match rows.next() {
            Ok(None) => return Scan::Done,
            Ok(Some(row)) => {
                let Ok(rowid) = row.get::<_, i64>(0) else {
                    return Scan::FailedAfter(last);
                };
                last = rowid;
                let values: rusqlite::Result<Vec<Value>> =
                    (1..=width).map(|i| row.get::<_, Value>(i)).collect();
                match values {
                    Ok(values) => keep(values),
                    // One unreadable row (a damaged overflow page): skip just that row.
                    Err(_) => return Scan::FailedAfter(last),
                }
            }
            Err(_) => return Scan::FailedAfter(last),
        }
    }
}

/// Does a scan starting at `from` read its first row (or find the end) without failing?
fn reads_at(src: &Connection, scan: &str, from: i64) -> bool {
    src.prepare(scan)
        .and_then(|mut stmt| {
            let mut rows = stmt.query([from])?;
            rows.next().map(|_| ())
        })
        .is_ok()
}

/// The first rowid after `last` where reading works again: jump ahead in doubling steps
/// until a read works, then bisect back. None when nothing further reads.
fn next_readable(src: &Connection, scan: &str, last: i64) -> Option<i64> {
    let mut failed = last;
    let mut step: i64 = 1;
    let works = loop {
        let probe = last.checked_add(step)?;
        if reads_at(src, scan, probe) {
            break probe;
        }
        failed = probe;
        step = step.checked_mul(2)?;
        if step > 1 << 62 {
            return None;
        }
    };
    let (mut lo, mut hi) = (failed, works);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if reads_at(src, scan, mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
