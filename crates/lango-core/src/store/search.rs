//! Full-text search (SQLite FTS5, BM25 ranking) across every session's messages — archived
//! ones included — observations and reflections.

use sqlx::FromRow;

use super::error::StoreResult;
use super::models::{SearchHit, SearchHitKind};
use super::Store;

#[derive(FromRow)]
struct HitRow {
    kind: String,
    item_id: String,
    session_key: String,
    session_title: String,
    seq: Option<i64>,
    snippet: String,
    archived: i64,
}

/// Turns what a user typed into an FTS5 query that cannot be a syntax error: every word is
/// a quoted phrase (quotes doubled), all must match, and the last is a prefix so results
/// appear while typing. Returns None when nothing searchable is left.
pub(crate) fn to_fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input
        .split_whitespace()
        .map(|w| w.replace('"', "\"\""))
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    let (last, rest) = words.split_last()?;
    let mut query = rest.join(" ");
    if !query.is_empty() {
        query.push(' ');
    }
    query.push_str(last);
    query.push('*');
    Some(query)
}

/// An FTS5 query matching ANY of the words (each quoted, so none is syntax); BM25 ranks
/// items matching more and rarer words first. None when no word is left.
pub(crate) fn to_fts_any_query(words: &[String]) -> Option<String> {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| w.trim().replace('"', "\"\""))
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Indexes every queued message from wherever it lives now (a queued row may have been
/// archived since; it is never in both tables at once).
const INDEX_PENDING: &str = "
INSERT INTO message_fts (rowid, text, session_id)
    SELECT m.id, m.content, m.session_id FROM message_fts_pending p JOIN messages m ON m.id = p.id
     WHERE m.content <> '' AND m.kind = 'message'
    UNION ALL
    SELECT a.id, a.content, a.session_id FROM message_fts_pending p JOIN archived_messages a ON a.id = p.id
     WHERE a.content <> '' AND a.kind = 'message'";

/// Queued rows that compaction has archived since change what a session's memory can
/// retrieve once indexed: their sessions get a new memory version (migration 0004), so
/// retrieval's statistics cached for the old one (`memory::knowledge_index`) are dropped.
const VERSION_INDEXED_ARCHIVE: [&str; 2] = [
    "UPDATE memory_clock SET value = value + 1
      WHERE EXISTS (SELECT 1 FROM message_fts_pending p JOIN archived_messages a ON a.id = p.id)",
    "UPDATE sessions SET memory_version = (SELECT value FROM memory_clock)
      WHERE id IN (SELECT a.session_id FROM message_fts_pending p JOIN archived_messages a ON a.id = p.id)",
];

/// Restricts an FTS5 query to the `text` column: the indexes also hold the session id
/// (migration 0006), which a number in the query must never match.
pub(crate) fn text_only(fts: &str) -> String {
    format!("text : ({fts})")
}

const SEARCH: &str = "
SELECT * FROM (
    SELECT 'message' AS kind, CAST(f.rowid AS TEXT) AS item_id, s.key AS session_key, s.title AS session_title,
           COALESCE(m.seq, a.seq) AS seq, snippet(message_fts, 0, '[', ']', '…', 12) AS snippet,
           (a.id IS NOT NULL) AS archived, bm25(message_fts, 1.0, 0.0) AS rank
    FROM message_fts f
    JOIN sessions s ON s.id = f.session_id
    LEFT JOIN messages m ON m.id = f.rowid
    LEFT JOIN archived_messages a ON a.id = f.rowid
    WHERE message_fts MATCH ?1 AND (?2 IS NULL OR s.key = ?2)
      AND COALESCE(m.kind, a.kind) = 'message'
    UNION ALL
    SELECT 'observation', o.id, s.key, s.title, NULL, snippet(observation_fts, 0, '[', ']', '…', 12), 0,
           bm25(observation_fts, 1.0, 0.0)
    FROM observation_fts f JOIN observations o ON o.rowid = f.rowid JOIN sessions s ON s.id = o.session_id
    WHERE observation_fts MATCH ?1 AND (?2 IS NULL OR s.key = ?2)
    UNION ALL
    SELECT 'reflection', r.id, s.key, s.title, NULL, snippet(reflection_fts, 0, '[', ']', '…', 12), 0,
           bm25(reflection_fts, 1.0, 0.0)
    FROM reflection_fts f JOIN reflections r ON r.rowid = f.rowid JOIN sessions s ON s.id = r.session_id
    WHERE reflection_fts MATCH ?1 AND (?2 IS NULL OR s.key = ?2)
) ORDER BY rank LIMIT ?3";

impl Store {
    /// Searches every session (or only `session_key`), best matches first. Every word must
    /// match (the last as a prefix): what a person typing in a search box expects.
    pub async fn search(
        &self,
        query: &str,
        session_key: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<SearchHit>> {
        let Some(fts) = to_fts_query(query) else {
            return Ok(Vec::new());
        };
        self.run_search(fts, session_key, limit).await
    }

    /// Items matching ANY of `words`, best first, in one query (knowledge retrieval: a
    /// sentence rarely has all its words in one note).
    pub async fn search_any(
        &self,
        words: &[String],
        session_key: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<SearchHit>> {
        let Some(fts) = to_fts_any_query(words) else {
            return Ok(Vec::new());
        };
        self.run_search(fts, session_key, limit).await
    }

    /// Indexes the messages queued for search since the last call (appends and edits queue
    /// them instead of indexing, see migration 0005) in one transaction. The user's searches
    /// call this first, so they always see every message; knowledge retrieval relies on the
    /// memory cycle calling it after each turn (see [`Store::knowledge_matches`]). Returns how many
    /// were queued; 0 costs one read.
    pub async fn index_pending_messages(&self) -> StoreResult<u64> {
        let queued: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM message_fts_pending)")
            .fetch_one(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        if !queued {
            return Ok(0);
        }
        let mut tx = self.begin_write().await?;
        sqlx::query(INDEX_PENDING)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        for statement in VERSION_INDEXED_ARCHIVE {
            sqlx::query(statement)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        let done = sqlx::query("DELETE FROM message_fts_pending")
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(done.rows_affected())
    }

    async fn run_search(
        &self,
        fts: String,
        session_key: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<SearchHit>> {
        self.index_pending_messages().await?;
        let rows: Vec<HitRow> = sqlx::query_as(SEARCH)
            .bind(text_only(&fts))
            .bind(session_key)
            .bind(i64::from(limit))
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|r| SearchHit {
                session_key: r.session_key,
                session_title: r.session_title,
                kind: SearchHitKind::from_name(&r.kind).unwrap_or(SearchHitKind::Message),
                item_id: r.item_id,
                seq: r.seq,
                snippet: r.snippet,
                archived: r.archived != 0,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::to_fts_query;

    #[test]
    fn user_input_becomes_a_safe_prefix_query() {
        assert_eq!(
            to_fts_query("rust borrow").as_deref(),
            Some("\"rust\" \"borrow\"*")
        );
        assert_eq!(
            to_fts_query("say \"hi\" AND (").as_deref(),
            Some("\"say\" \"\"\"hi\"\"\" \"AND\" \"(\"*")
        );
        assert_eq!(to_fts_query("   "), None);
    }
}
