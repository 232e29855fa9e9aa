//! What retrieval's cache (`memory::knowledge_index`, `memory::knowledge_session`) reads to
//! build and to catch up: a session's memory statistics with its archive mark, and what
//! changed in its memory since a mark, in one snapshot.
//!
//! Plain persistence: what the cache does with them is `memory::knowledge_session`'s.

use super::error::StoreResult;
use super::knowledge::KnowledgeDoc;
use super::models::SearchHitKind;
use super::{ReadOn, Store};

/// How many memory items each collection of a session holds and their tokens: archived
/// messages, observations, reflections.
const KNOWLEDGE_STATS: &str = "
WITH sess AS (SELECT id FROM sessions WHERE key = ?1)
SELECT (SELECT COUNT(*) FROM archived_messages WHERE session_id = (SELECT id FROM sess) AND kind = 'message' AND content <> ''),
       (SELECT COALESCE(SUM(token_count), 0) FROM archived_messages WHERE session_id = (SELECT id FROM sess) AND kind = 'message' AND content <> ''),
       (SELECT COUNT(*) FROM observations WHERE session_id = (SELECT id FROM sess)),
       (SELECT COALESCE(SUM(token_count), 0) FROM observations WHERE session_id = (SELECT id FROM sess)),
       (SELECT COUNT(*) FROM reflections WHERE session_id = (SELECT id FROM sess)),
       (SELECT COALESCE(SUM(token_count), 0) FROM reflections WHERE session_id = (SELECT id FROM sess)),
       COALESCE((SELECT id FROM sess), 0),
       -- Archived rows still queued for the search index are not matched yet: the mark
       -- stays below them, so the next catch-up reads them.
       COALESCE((SELECT MIN(a.seq) - 1 FROM archived_messages a JOIN message_fts_pending p ON p.id = a.id
                  WHERE a.session_id = (SELECT id FROM sess)),
                (SELECT MAX(seq) FROM archived_messages WHERE session_id = (SELECT id FROM sess)),
                0),
       COALESCE((SELECT MAX(seq) FROM archived_messages WHERE session_id = (SELECT id FROM sess)), 0)";

/// What changed in a session's memory since an archive mark (`?2`, a seq), in one
/// snapshot: the session's id, the archived plain messages after the mark, the new mark
/// (below any of them still queued for the search index, so they come again once indexed:
/// a keyword first read meanwhile did not match them) and the last archived seq, and every
/// observation and reflection (few, and edited in place).
const MEMORY_DELTA: &str = "
WITH sess AS (SELECT id FROM sessions WHERE key = ?1)
SELECT 'session', '', '', 0, COALESCE((SELECT id FROM sess), 0)
UNION ALL
SELECT 'mark', '', '', 0,
       COALESCE((SELECT MIN(a.seq) - 1 FROM archived_messages a JOIN message_fts_pending p ON p.id = a.id
                  WHERE a.session_id = (SELECT id FROM sess) AND a.seq > ?2),
                (SELECT MAX(a.seq) FROM archived_messages a WHERE a.session_id = (SELECT id FROM sess) AND a.seq > ?2),
                ?2)
UNION ALL
SELECT 'last', '', '', 0, COALESCE(MAX(a.seq), ?2) FROM archived_messages a
 WHERE a.session_id = (SELECT id FROM sess) AND a.seq > ?2
UNION ALL
SELECT 'message', CAST(a.id AS TEXT), a.content, a.token_count, a.seq FROM archived_messages a
 WHERE a.session_id = (SELECT id FROM sess) AND a.seq > ?2 AND a.kind = 'message' AND a.content <> ''
UNION ALL
SELECT 'observation', o.id, o.content, o.token_count, 0 FROM observations o
 WHERE o.session_id = (SELECT id FROM sess)
UNION ALL
SELECT 'reflection', r.id, r.content, r.token_count, 0 FROM reflections r
 WHERE r.session_id = (SELECT id FROM sess)";

/// Memory items and their tokens per collection of a session (archived messages,
/// observations, reflections), indexed by [`SearchHitKind::position`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KnowledgeStats {
    pub items: [i64; 3],
    pub tokens: [i64; 3],
    /// The session's row id (0: unknown session): a session deleted and created again under
    /// the same key is another one.
    pub session_id: i64,
    /// The archive mark: archived messages up to this seq were matchable when these were
    /// read ([`Store::memory_delta`] reads what came after).
    pub archive_mark: i64,
    /// The last archived seq the counts include (at or past the mark).
    pub archive_counted: i64,
}

/// What changed in a session's memory since an archive mark ([`Store::memory_delta`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryDelta {
    pub session_id: i64,
    /// The new mark (see [`KnowledgeStats::archive_mark`]).
    pub archive_mark: i64,
    /// The last archived seq.
    pub archive_last: i64,
    /// Archived plain messages after the old mark, with their seq.
    pub archived: Vec<(i64, KnowledgeDoc)>,
    /// Every observation and reflection of the session.
    pub notes: Vec<KnowledgeDoc>,
}

fn knowledge_stats_of(conn: &rusqlite::Connection, key: &str) -> rusqlite::Result<KnowledgeStats> {
    conn.prepare_cached(KNOWLEDGE_STATS)?.query_row([key], |r| {
        Ok(KnowledgeStats {
            items: [r.get(0)?, r.get(2)?, r.get(4)?],
            tokens: [r.get(1)?, r.get(3)?, r.get(5)?],
            session_id: r.get(6)?,
            archive_mark: r.get(7)?,
            archive_counted: r.get(8)?,
        })
    })
}

impl Store {
    /// Memory items and tokens per collection of session `key` (zeros for an unknown key),
    /// with its archive mark.
    pub async fn knowledge_stats(&self, key: &str, on: ReadOn) -> StoreResult<KnowledgeStats> {
        let key = key.to_owned();
        self.read_on(on, move |conn| knowledge_stats_of(conn, &key))
            .await
    }

    /// What changed in session `key`'s memory since archive mark `mark` (see [`MemoryDelta`]):
    /// lets retrieval bring its cache (and the memory's vocabulary) to a new memory version
    /// by reading only the change.
    pub async fn memory_delta(&self, key: &str, mark: i64, on: ReadOn) -> StoreResult<MemoryDelta> {
        let key = key.to_owned();
        self.read_on(on, move |conn| {
            let mut delta = MemoryDelta {
                archive_mark: mark,
                archive_last: mark,
                ..MemoryDelta::default()
            };
            let mut statement = conn.prepare_cached(MEMORY_DELTA)?;
            let mut rows = statement.query(rusqlite::params![key, mark])?;
            while let Some(r) = rows.next()? {
                let kind: String = r.get(0)?;
                let doc = |kind| -> rusqlite::Result<KnowledgeDoc> {
                    Ok(KnowledgeDoc {
                        kind,
                        item_id: r.get(1)?,
                        text: r.get(2)?,
                        tokens: r.get(3)?,
                    })
                };
                match kind.as_str() {
                    "session" => delta.session_id = r.get(4)?,
                    "mark" => delta.archive_mark = r.get(4)?,
                    "last" => delta.archive_last = r.get(4)?,
                    "message" => delta
                        .archived
                        .push((r.get(4)?, doc(SearchHitKind::Message)?)),
                    "observation" => delta.notes.push(doc(SearchHitKind::Observation)?),
                    "reflection" => delta.notes.push(doc(SearchHitKind::Reflection)?),
                    _ => {}
                }
            }
            Ok(delta)
        })
        .await
    }
}
