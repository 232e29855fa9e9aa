//! Reads a data folder's database directly and checks what a crash or a concurrent writer must
//! never break in a conversation with memory on (issue 14, fault suite): the file's integrity,
//! every message in exactly one place, observations that do not overlap, a memory cursor that
//! never points past what an observation or reflection covers, and one summary per compaction.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// One stored message, live or archived.
#[derive(Debug, Clone)]
pub struct Row {
    pub seq: i64,
    pub role: String,
    pub content: String,
    pub status: String,
}

/// id, seq, role, content, status, kind, summary_id of a live or archived row.
type StoredRow = (i64, i64, String, String, String, String, Option<i64>);

/// One session's memory as stored, after [`check_session`] found it consistent.
#[derive(Debug)]
pub struct SessionMemory {
    /// Every message (not summaries), live and archived, by seq.
    pub messages: Vec<Row>,
    /// (seq_start, seq_end, content), by seq_start.
    pub observations: Vec<(i64, i64, String)>,
    pub reflections: usize,
    /// Messages with seq ≤ this were observed.
    pub cursor: i64,
    /// `[Compacted Summary]` rows, live and archived.
    pub summaries: usize,
}

/// Opens `db` read-only (a crashed writer's WAL is replayed by the reader, as a restart
/// would) and fails the test on a damaged file.
pub fn open_checked(db: &Path) -> Connection {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .expect("the database opens");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity check runs");
    assert_eq!(integrity, "ok", "integrity check of {}", db.display());
    conn
}

/// Checks session `key` of `db` and returns what it holds:
/// - every message seq is in exactly one place (history or archive);
/// - every archived row belongs to a finished compaction (has its summary) and was observed;
/// - observations never overlap and none reaches past the cursor;
/// - the cursor points exactly at the end of what is covered (an observation, or a reflection
///   that condensed it), never past it: rows past the last note are not marked observed;
/// - every summary stands for rows it archived (no second summary of one compaction).
pub fn check_session(db: &Path, key: &str) -> SessionMemory {
    let conn = open_checked(db);
    let (session_id, cursor): (i64, i64) = conn
        .query_row(
            "SELECT id, observed_through_seq FROM sessions WHERE key = ?",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the session exists");
    let read = |sql: &str| -> Vec<StoredRow> {
        let mut stmt = conn.prepare(sql).expect("query");
        stmt.query_map([session_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows read")
    };
    let live = read(
        "SELECT id, seq, role, content, status, kind, NULL FROM messages WHERE session_id = ?",
    );
    let archived = read(
        "SELECT id, seq, role, content, status, kind, summary_id FROM archived_messages
          WHERE session_id = ?",
    );

    let mut places: HashMap<i64, usize> = HashMap::new();
    let mut messages = Vec::new();
    let mut summary_ids = Vec::new();
    let mut archived_per_summary: HashMap<i64, usize> = HashMap::new();
    for (id, seq, role, content, status, kind, summary_id) in live.iter().chain(&archived) {
        if kind == "summary" {
            summary_ids.push(*id);
            continue;
        }
        *places.entry(*seq).or_default() += 1;
        messages.push(Row {
            seq: *seq,
            role: role.clone(),
            content: content.clone(),
            status: status.clone(),
        });
        if let Some(summary) = summary_id {
            *archived_per_summary.entry(*summary).or_default() += 1;
        }
    }
    if let Some((seq, n)) = places.iter().find(|(_, n)| **n > 1) {
        panic!("{key}: message seq {seq} is stored {n} times");
    }
    messages.sort_by_key(|m| m.seq);
    for (_, seq, _, _, _, _, summary_id) in &archived {
        assert!(
            summary_id.is_some(),
            "{key}: archived row {seq} has no summary: a half-finished compaction"
        );
        assert!(
            *seq <= cursor,
            "{key}: archived row {seq} was never observed (cursor {cursor})"
        );
    }
    for id in &summary_ids {
        assert!(
            archived_per_summary.get(id).copied().unwrap_or(0) > 0,
            "{key}: summary {id} archived nothing: a second summary of one compaction"
        );
    }

    let mut observations: Vec<(i64, i64, String)> = conn
        .prepare(
            "SELECT seq_start, seq_end, content FROM observations WHERE session_id = ?
              ORDER BY seq_start",
        )
        .expect("query")
        .query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows read");
    observations.sort_by_key(|o| o.0);
    for pair in observations.windows(2) {
        assert!(
            pair[0].1 < pair[1].0,
            "{key}: observations {}..={} and {}..={} overlap",
            pair[0].0,
            pair[0].1,
            pair[1].0,
            pair[1].1
        );
    }
    let (reflections, reflected_end): (usize, i64) = conn
        .query_row(
            "SELECT COUNT(*), COALESCE(MAX(seq_end), 0) FROM reflections WHERE session_id = ?",
            [session_id],
            |r| Ok((r.get::<_, i64>(0)? as usize, r.get(1)?)),
        )
        .expect("reflections");
    let covered = observations
        .iter()
        .map(|o| o.1)
        .max()
        .unwrap_or(0)
        .max(reflected_end);
    assert_eq!(
        cursor, covered,
        "{key}: the memory cursor is at {cursor}, but what observations and reflections cover ends at {covered}"
    );
    SessionMemory {
        messages,
        observations,
        reflections,
        cursor,
        summaries: summary_ids.len(),
    }
}
