//! The reads behind the prompt's memory and knowledge sections (REFERENCE §3.8, §3.9): the
//! session's memory version and what it holds (one query per model call), the items of a
//! session matching a knowledge query, and the texts the embedding buffer still has to
//! embed. The statistics retrieval's ranking needs, and what changed in a session's memory
//! since its cache was built, are `knowledge_delta`'s.
//!
//! Plain persistence: ranking, fusion and caching are `memory::knowledge_index`,
//! `memory::knowledge` and `memory::context`.

use rusqlite::OptionalExtension;

use super::error::StoreResult;
use super::models::SearchHitKind;
use super::search_query::{text_only, to_fts_any_query};
use super::{ReadOn, Store};

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

/// The session's memory version and what it holds (see [`MemoryState`]).
const MEMORY_STATE: &str = "
SELECT s.memory_version,
       (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id),
       EXISTS (SELECT 1 FROM archived_messages a WHERE a.session_id = s.id),
       EXISTS (SELECT 1 FROM observations o WHERE o.session_id = s.id),
       EXISTS (SELECT 1 FROM reflections r WHERE r.session_id = s.id),
       (SELECT COUNT(*) FROM memory_vectors v WHERE v.session_id = s.id)
FROM sessions s WHERE s.key = ?1";

/// Every memory item of the session (archived messages, observations, reflections) matching
/// the query, unranked, newest first per collection (at most ?3 each): what
/// [`crate::memory::knowledge_index`] scores itself.
const KNOWLEDGE_MATCHES: &str = "
WITH scope AS (
    SELECT ?1 || ' AND session_id : \"' || COALESCE((SELECT id FROM sessions WHERE key = ?2), 0) || '\"' AS q
)
SELECT * FROM (
    SELECT 'message', CAST(a.id AS TEXT), a.content, a.token_count
    FROM message_fts f JOIN archived_messages a ON a.id = f.rowid
    WHERE message_fts MATCH (SELECT q FROM scope) AND a.kind = 'message'
    ORDER BY f.rowid DESC LIMIT ?3
)
UNION ALL
SELECT * FROM (
    SELECT 'observation', o.id, o.content, o.token_count
    FROM observation_fts f JOIN observations o ON o.rowid = f.rowid
    WHERE observation_fts MATCH (SELECT q FROM scope)
    ORDER BY f.rowid DESC LIMIT ?3
)
UNION ALL
SELECT * FROM (
    SELECT 'reflection', r.id, r.content, r.token_count
    FROM reflection_fts f JOIN reflections r ON r.rowid = f.rowid
    WHERE reflection_fts MATCH (SELECT q FROM scope)
    ORDER BY f.rowid DESC LIMIT ?3
)";

/// The messages of a session's model history that retrieval can show (the ones the search
/// index holds: plain messages with text), newest first, at most ?2.
const HISTORY_TEXTS: &str = "
SELECT CAST(m.id AS TEXT), m.content, m.token_count FROM messages m
 WHERE m.session_id = (SELECT id FROM sessions WHERE key = ?1)
   AND m.kind = 'message' AND m.content <> ''
 ORDER BY m.id DESC LIMIT ?2";

/// An item knowledge retrieval may rank, unranked.
#[derive(Debug, Clone, PartialEq)]
pub struct KnowledgeDoc {
    pub kind: SearchHitKind,
    /// Message id as a string, or the observation/reflection id.
    pub item_id: String,
    pub text: String,
    /// Its stored token count (the length BM25 normalises by).
    pub tokens: i64,
}

/// A text to embed: `(collection, item id, text)`.
pub type PendingEmbedding = (String, String, String);

/// One [`KNOWLEDGE_MATCHES`] query per word, each item once: (collection, id, text, tokens).
struct MatchesRead {
    queries: Vec<String>,
    key: String,
    per_collection: i64,
}

type MatchRow = (String, String, String, i64);

impl MatchesRead {
    /// None: no word can match anything.
    fn new(words: &[String], key: &str, per_collection: u32) -> Option<Self> {
        let queries: Vec<String> = words
            .iter()
            .filter_map(|w| to_fts_any_query(std::slice::from_ref(w)))
            .map(|fts| text_only(&fts))
            .collect();
        (!queries.is_empty()).then(|| MatchesRead {
            queries,
            key: key.to_owned(),
            per_collection: i64::from(per_collection),
        })
    }

    fn run(&self, conn: &rusqlite::Connection) -> rusqlite::Result<Vec<MatchRow>> {
        let mut statement = conn.prepare_cached(KNOWLEDGE_MATCHES)?;
        let mut seen = std::collections::HashSet::new();
        let mut rows = Vec::new();
        for query in &self.queries {
            let matched = statement.query_map(
                rusqlite::params![query, self.key, self.per_collection],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?;
            for row in matched {
                let row: MatchRow = row?;
                if seen.insert((row.0.clone(), row.1.clone())) {
                    rows.push(row);
                }
            }
        }
        Ok(rows)
    }
}

fn docs(rows: Vec<MatchRow>) -> Vec<KnowledgeDoc> {
    rows.into_iter()
        .filter_map(|(kind, item_id, text, tokens)| {
            Some(KnowledgeDoc {
                kind: SearchHitKind::from_name(&kind)?,
                item_id,
                text,
                tokens,
            })
        })
        .collect()
}

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

    /// The memory items of session `key` — archived messages, observations, reflections:
    /// what changes only with its memory version — holding any of `words`, unranked: for
    /// each word its newest `per_collection` matches per collection, each item once. What
    /// knowledge retrieval ranks (`memory::knowledge_index`). A word is matched on its own so
    /// that a common word's many matches never crowd a rare word's few out of the cap. One
    /// query per word, on the connection `on` names.
    pub async fn knowledge_matches(
        &self,
        words: &[String],
        key: &str,
        per_collection: u32,
        on: ReadOn,
    ) -> StoreResult<Vec<KnowledgeDoc>> {
        match MatchesRead::new(words, key, per_collection) {
            Some(read) => Ok(docs(self.read_on(on, move |conn| read.run(conn)).await?)),
            None => Ok(Vec::new()),
        }
    }

    /// The messages of session `key`'s model history that retrieval can show (plain messages
    /// with text, as the search index holds them), newest first, at most `limit`. Read
    /// directly rather than through the index: with memory on the history is short, and this
    /// also sees messages still queued for indexing. Inline on the hot read connection.
    pub async fn history_texts(&self, key: &str, limit: u32) -> StoreResult<Vec<KnowledgeDoc>> {
        let key = key.to_owned();
        self.hot_read(move |conn| {
            conn.prepare_cached(HISTORY_TEXTS)?
                .query_map(rusqlite::params![key, i64::from(limit)], |r| {
                    Ok(KnowledgeDoc {
                        kind: SearchHitKind::Message,
                        item_id: r.get(0)?,
                        text: r.get(1)?,
                        tokens: r.get(2)?,
                    })
                })?
                .collect()
        })
        .await
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
    /// A bounded step of incremental optimisation of the full-text indexes (FTS5 `merge`
    /// with a positive page count): every indexed batch leaves a small index segment, and a
    /// search reads every segment. A positive count merges a level only once it holds
    /// several segments (FTS5's `usermerge`, 4), so the index stays a few segments per level
    /// and a call is nearly free between merges. A negative count, used before, merged every
    /// segment into one: in a growing index that merge never finished, so every call wrote
    /// its full page count while holding the writer (2.2 ms a call after 2,000 turns, twice
    /// the first turns'), with no faster searches to show for it (measured in the soak).
    /// Run off the send path (the memory cycle, after each turn). The messages' index
    /// always; the observations' and reflections' with `notes`.
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
            .bind(INDEX_MERGE_PAGES)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
