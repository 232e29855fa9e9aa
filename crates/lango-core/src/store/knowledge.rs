//! The reads behind the prompt's memory and knowledge sections (REFERENCE §3.8, §3.9): the
//! session's memory version and what it holds (one query per model call), the per-session
//! knowledge search, and the texts the embedding buffer still has to embed.
//!
//! Plain persistence: ranking, fusion and caching are `memory::knowledge`/`memory::context`.

use rusqlite::OptionalExtension;

use super::error::StoreResult;
use super::models::SearchHitKind;
use super::search::{text_only, to_fts_any_query};
use super::snippet::{snippet, SNIPPET_TOKENS};
use super::Store;

/// What context assembly checks before each model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryState {
    /// Changes (to a value never used before, by any session) in the same transaction as any
    /// change to the session's observations, reflections or archive (migration 0004); 0 = none
    /// was ever written. Equal versions mean an equal memory section.
    pub version: i64,
    /// Rows in the session's model history (messages and summaries).
    pub live_messages: i64,
    /// Archived (compacted) messages exist.
    pub archived: bool,
    pub observations: bool,
    pub reflections: bool,
    /// Stored embedding vectors of the session.
    pub vectors: i64,
}

impl MemoryState {
    /// Something outside the model's history can be retrieved: an archived message, an
    /// observation or a reflection.
    pub fn has_memory(&self) -> bool {
        self.archived || self.observations || self.reflections
    }
}

/// One knowledge-search hit of a session, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct KnowledgeHit {
    pub kind: SearchHitKind,
    /// Message id as a string, or the observation/reflection id.
    pub item_id: String,
    /// The matching text with matches wrapped in `[` `]`.
    pub snippet: String,
    /// The whole text of an observation or reflection; None for messages.
    pub content: Option<String>,
}

/// The session's hits of the store's search query (`search.rs`), best first, with each item's
/// whole text. Snippets are made in Rust for the kept rows only (`snippet.rs` says why).
///
/// The match is scoped to the session inside FTS5 (`... AND session_id : "<id>"`, migration
/// 0006), so only its rows are ranked, however many other sessions the database holds, and
/// no join with `sessions` is needed to filter them.
const KNOWLEDGE_SEARCH: &str = "
WITH scope AS (
    SELECT ?1 || ' AND session_id : \"' || COALESCE((SELECT id FROM sessions WHERE key = ?2), 0) || '\"' AS q
)
SELECT kind, item_id, text FROM (
    SELECT 'message' AS kind, CAST(f.rowid AS TEXT) AS item_id,
           COALESCE(m.content, a.content) AS text, bm25(message_fts, 1.0, 0.0) AS rank
    FROM message_fts f
    LEFT JOIN messages m ON m.id = f.rowid
    LEFT JOIN archived_messages a ON a.id = f.rowid
    WHERE message_fts MATCH (SELECT q FROM scope) AND COALESCE(m.kind, a.kind) = 'message'
    UNION ALL
    SELECT 'observation', o.id, o.content, bm25(observation_fts, 1.0, 0.0)
    FROM observation_fts f JOIN observations o ON o.rowid = f.rowid
    WHERE observation_fts MATCH (SELECT q FROM scope)
    UNION ALL
    SELECT 'reflection', r.id, r.content, bm25(reflection_fts, 1.0, 0.0)
    FROM reflection_fts f JOIN reflections r ON r.rowid = f.rowid
    WHERE reflection_fts MATCH (SELECT q FROM scope)
    ORDER BY rank LIMIT ?3
)
ORDER BY rank";

/// The session's memory version and what it holds (see [`MemoryState`]).
const MEMORY_STATE: &str = "
SELECT s.memory_version,
       (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id),
       EXISTS (SELECT 1 FROM archived_messages a WHERE a.session_id = s.id),
       EXISTS (SELECT 1 FROM observations o WHERE o.session_id = s.id),
       EXISTS (SELECT 1 FROM reflections r WHERE r.session_id = s.id),
       (SELECT COUNT(*) FROM memory_vectors v WHERE v.session_id = s.id)
FROM sessions s WHERE s.key = ?1";

/// A text to embed: `(collection, item id, text)`.
pub type PendingEmbedding = (String, String, String);

impl Store {
    /// The session's memory version and what it holds, in one read; None for an unknown key.
    /// Runs before every model call, inline on the hot read connection (`hot_path.rs`).
    pub async fn memory_state(&self, key: &str) -> StoreResult<Option<MemoryState>> {
        let key = key.to_owned();
        self.hot_read(move |conn| {
            conn.prepare_cached(MEMORY_STATE)?
                .query_row([&key], |r| {
                    Ok(MemoryState {
                        version: r.get(0)?,
                        live_messages: r.get(1)?,
                        archived: r.get(2)?,
                        observations: r.get(3)?,
                        reflections: r.get(4)?,
                        vectors: r.get(5)?,
                    })
                })
                .optional()
        })
        .await
    }

    /// Items of session `key` matching ANY of `words` (messages — archived ones included —,
    /// observations, reflections), best BM25 first, at most `limit`: the same hits, in the
    /// same order, as [`Store::search_any`] with the session's key, plus the whole text of
    /// observations and reflections (no second read per hit).
    ///
    /// Unlike the user's searches it does not index queued messages first: that is a write,
    /// and this runs before every model call. The memory cycle indexes them after each turn
    /// ([`Store::tidy_search_index`]), so what is still queued here is in practice the
    /// current turn's message, which the request itself carries. Runs inline on the hot read
    /// connection (`hot_path.rs`).
    pub async fn knowledge_search(
        &self,
        words: &[String],
        key: &str,
        limit: u32,
    ) -> StoreResult<Vec<KnowledgeHit>> {
        let Some(fts) = to_fts_any_query(words) else {
            return Ok(Vec::new());
        };
        let (query, key) = (text_only(&fts), key.to_owned());
        let rows: Vec<(String, String, String)> = self
            .hot_read(move |conn| {
                conn.prepare_cached(KNOWLEDGE_SEARCH)?
                    .query_map(rusqlite::params![query, key, i64::from(limit)], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?
                    .collect()
            })
            .await?;
        let words: Vec<String> = words.iter().map(|w| w.trim().to_lowercase()).collect();
        Ok(rows
            .into_iter()
            .map(|(kind, item_id, text)| {
                let kind = SearchHitKind::from_name(&kind).unwrap_or(SearchHitKind::Message);
                KnowledgeHit {
                    kind,
                    item_id,
                    snippet: snippet(&text, &words, SNIPPET_TOKENS),
                    content: (kind != SearchHitKind::Message).then_some(text),
                }
            })
            .collect())
    }

    /// The texts of these items of session `key` (`(collection, id)` pairs; messages from the
    /// history or the archive), as `(collection, id, text)`. Unknown or deleted items and
    /// items of other sessions are left out; the order is unspecified.
    pub async fn item_texts(
        &self,
        key: &str,
        items: &[(String, String)],
    ) -> StoreResult<Vec<(String, String, String)>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let ids = |collection: &str| -> StoreResult<String> {
            let ids: Vec<&str> = items
                .iter()
                .filter(|(c, _)| c == collection)
                .map(|(_, id)| id.as_str())
                .collect();
            Ok(serde_json::to_string(&ids)?)
        };
        sqlx::query_as(
            "WITH sess AS (SELECT id FROM sessions WHERE key = ?1)
             SELECT 'message', CAST(m.id AS TEXT), m.content FROM messages m
              WHERE m.session_id = (SELECT id FROM sess) AND m.kind = 'message'
                AND m.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2))
             UNION ALL
             SELECT 'message', CAST(a.id AS TEXT), a.content FROM archived_messages a
              WHERE a.session_id = (SELECT id FROM sess) AND a.kind = 'message'
                AND a.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2))
             UNION ALL
             SELECT 'observation', o.id, o.content FROM observations o
              WHERE o.session_id = (SELECT id FROM sess) AND o.id IN (SELECT value FROM json_each(?3))
             UNION ALL
             SELECT 'reflection', r.id, r.content FROM reflections r
              WHERE r.session_id = (SELECT id FROM sess) AND r.id IN (SELECT value FROM json_each(?4))",
        )
        .bind(key)
        .bind(ids("message")?)
        .bind(ids("observation")?)
        .bind(ids("reflection")?)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// User and assistant messages of session `key` (history and archive) with an id above
    /// `after_id`, some text and no vector by `model` yet, oldest first, at most `limit`: what
    /// the embedding buffer has not embedded. Tool results and summaries are not embedded.
    pub async fn messages_to_embed(
        &self,
        key: &str,
        model: &str,
        after_id: i64,
        limit: u32,
    ) -> StoreResult<Vec<(i64, String)>> {
        sqlx::query_as(
            "WITH sess AS (SELECT id FROM sessions WHERE key = ?1)
             SELECT id, content FROM (
                 SELECT m.id, m.content, m.role, m.kind FROM messages m
                  WHERE m.session_id = (SELECT id FROM sess) AND m.id > ?2
                 UNION ALL
                 SELECT a.id, a.content, a.role, a.kind FROM archived_messages a
                  WHERE a.session_id = (SELECT id FROM sess) AND a.id > ?2
             ) x
             WHERE x.kind = 'message' AND x.role IN ('user', 'assistant', 'model') AND trim(x.content) <> ''
               AND NOT EXISTS (SELECT 1 FROM memory_vectors v
                                WHERE v.collection = 'message' AND v.item_id = CAST(x.id AS TEXT)
                                  AND v.model = ?4)
             ORDER BY id LIMIT ?3",
        )
        .bind(key)
        .bind(after_id)
        .bind(i64::from(limit))
        .bind(model)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// Observations and reflections of session `key` without a vector by `model` (new, or
    /// edited since they were embedded), as `(collection, id, text)`, oldest first.
    pub async fn memory_items_to_embed(
        &self,
        key: &str,
        model: &str,
    ) -> StoreResult<Vec<PendingEmbedding>> {
        sqlx::query_as(
            "WITH sess AS (SELECT id FROM sessions WHERE key = ?1)
             SELECT collection, id, content FROM (
                 SELECT 'observation' AS collection, o.id, o.content, o.created_at, o.rowid AS ord
                   FROM observations o WHERE o.session_id = (SELECT id FROM sess)
                 UNION ALL
                 SELECT 'reflection', r.id, r.content, r.created_at, r.rowid
                   FROM reflections r WHERE r.session_id = (SELECT id FROM sess)
             ) x
             WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v
                                WHERE v.collection = x.collection AND v.item_id = x.id
                                  AND v.model = ?2)
             ORDER BY created_at, collection, ord",
        )
        .bind(key)
        .bind(model)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))
    }
}

/// Pages of full-text index merged per [`Store::tidy_search_index`] call and table.
const INDEX_MERGE_PAGES: i64 = 16;

impl Store {
    /// A bounded step of incremental optimisation of the full-text indexes (FTS5
    /// `merge` with a negative page count): every append leaves a small index segment, and a
    /// search reads every segment, so a search over a fragmented index costs several times
    /// more. Each call writes at most a few pages per table and is nearly free when the index
    /// is already compact. Run off the send path (the memory cycle, after each turn). The
    /// messages' index always; the observations' and reflections' with `notes`.
    ///
    /// First indexes the queued messages ([`Store::index_pending_messages`]), so knowledge
    /// retrieval, which does not, finds the turn's messages from the next turn on.
    pub async fn tidy_search_index(&self, notes: bool) -> StoreResult<()> {
        self.index_pending_messages().await?;
        let tables: &[&str] = if notes {
            &["message_fts", "observation_fts", "reflection_fts"]
        } else {
            &["message_fts"]
        };
        for table in tables {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "INSERT INTO {table} ({table}, rank) VALUES ('merge', ?)"
            )))
            .bind(-INDEX_MERGE_PAGES)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
