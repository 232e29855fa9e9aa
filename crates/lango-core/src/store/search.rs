//! The user's full-text search (SQLite FTS5) across every session's messages — archived
//! ones included — observations and reflections, ranked by BM25 over a bounded candidate set.
//!
//! Why bounded: SQLite's `bm25()` first counts, for every query word, all the rows holding it
//! (its IDF), and `ORDER BY rank` scores every match: a word in half of a million messages
//! cost ~1 s. Here FTS5 only streams matches newest first (its native order, no ranking) and
//! a first page takes at most [`RANK_BUDGET`] of them — the notes' newest first (at most a
//! quarter of it per notes index), the newest messages for the rest — so a common word
//! costs the same in a million messages as in a thousand. Those candidates are ranked in Rust
//! (`store::search_rank`), and only the page's hits get a snippet. A query with fewer
//! matches than that is ranked exactly, however old its best match; one with more ranks its
//! newest matches, and pages further on than the budget rank the next ones after them
//! (`Blocks`), so paging shows every match once. The whole read is one call on the store's
//! background read connection (rusqlite, on a blocking thread): through sqlx every row is
//! handed over from its worker thread, which cost more than the reading at 1M messages.
//! ARCHITECTURE.md, "The store", has the trade-off and the measurements.

use rusqlite::{Connection, OptionalExtension};

use super::error::StoreResult;
use super::marks::keep_marks;
use super::models::{SearchHit, SearchHitKind, SearchResults};
use super::plain_text::plain_text;
use super::query_terms::QueryTerms;
use super::search_candidates::Blocks;
use super::search_query::{
    is_one_word, query_terms, text_only, to_fts_query, to_fts_query_expanded,
};
use super::search_rank::CandidateRow;
use super::snippet::marked_snippet;
use super::Store;

/// Most indexed words the word being typed expands into (shortest first).
const MAX_EXPANSIONS: i64 = 128;

/// Tokens per search snippet.
const SNIPPET_TOKENS: usize = 16;

/// The indexed words from `?1` up to (not including) `?2` — those the word being typed may
/// become ([`Expansion`]) —, shortest first (the word being typed is more likely short than
/// long), at most `?3`.
const EXPANSIONS: &str = "
SELECT term FROM search_terms WHERE term >= ?1 AND term < ?2
 ORDER BY length(term), term LIMIT ?3";

/// The rows behind candidates (ids as JSON arrays: ?1 messages, ?2 observations, ?3
/// reflections), with their text and session.
const CANDIDATE_ROWS: &str = "
SELECT 0 AS kind, m.id AS id, CAST(m.id AS TEXT) AS item_id, m.session_id, m.seq, m.content,
       m.created_at, 0 AS archived
  FROM messages m WHERE m.id IN (SELECT value FROM json_each(?1)) AND m.kind = 'message'
UNION ALL
SELECT 0, a.id, CAST(a.id AS TEXT), a.session_id, a.seq, a.content, a.created_at, 1
  FROM archived_messages a WHERE a.id IN (SELECT value FROM json_each(?1)) AND a.kind = 'message'
UNION ALL
SELECT 1, o.rowid, o.id, o.session_id, NULL, o.content, o.created_at, 0
  FROM observations o WHERE o.rowid IN (SELECT value FROM json_each(?2))
UNION ALL
SELECT 2, r.rowid, r.id, r.session_id, NULL, r.content, r.created_at, 0
  FROM reflections r WHERE r.rowid IN (SELECT value FROM json_each(?3))";

/// The sessions of a page's hits (ids as a JSON array).
const HIT_SESSIONS: &str = "
SELECT id, key, title, updated_at FROM sessions WHERE id IN (SELECT value FROM json_each(?1))";

/// A hit's conversation.
struct SessionRow {
    id: i64,
    key: String,
    title: String,
    updated_at: i64,
}

/// One page of a search, as `read_page` needs it.
struct Plan {
    /// The FTS5 query of what was typed (the last word a prefix).
    fts: String,
    /// When the last word is expanded into the indexed words it may become.
    expand: Option<Expansion>,
    session_key: Option<String>,
    limit: usize,
    offset: usize,
    terms: QueryTerms,
}

/// The word being typed, expanded: what was typed, and the range of indexed words (folded,
/// in the index's form: marks kept, `store::marks`) the last word may become — the words it
/// begins, or for Korean still being composed the words its syllable may become (the
/// range `QueryTerms::prefix_range` holds, `store::hangul`).
struct Expansion {
    input: String,
    range: (String, String),
}

impl Expansion {
    /// `composing`: the range of a Korean syllable still being composed, as `query_terms`
    /// found it; without one, the words `prefix` begins.
    fn of(input: &str, prefix: &str, composing: Option<&(String, String)>) -> Self {
        let in_index = |word: &str| keep_marks(word).into_owned();
        let range = match composing {
            Some((lo, hi)) => (in_index(lo), in_index(hi)),
            None => {
                let prefix = in_index(prefix);
                let end = format!("{prefix}\u{10FFFF}");
                (prefix, end)
            }
        };
        Self {
            input: input.to_owned(),
            range,
        }
    }
}

impl Store {
    /// Searches every session (or only `session_key`), best matches first. Every word must
    /// match (the last as a prefix): what a person typing in a search box expects.
    pub async fn search(
        &self,
        query: &str,
        session_key: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<SearchHit>> {
        Ok(self.search_page(query, session_key, limit, 0).await?.hits)
    }

    /// One page of [`Store::search`]: `limit` hits after the first `offset`, with how many
    /// match in all and whether more follow. Messages still queued for the index are indexed
    /// first when few (`search_index.rs`), else counted in `unindexed`.
    pub async fn search_page(
        &self,
        query: &str,
        session_key: Option<&str>,
        limit: u32,
        offset: u32,
    ) -> StoreResult<SearchResults> {
        let Some(fts) = to_fts_query(query) else {
            return Ok(SearchResults::default());
        };
        let terms = query_terms(query);
        // The last word is expanded when it is one token (as the index splits words; a word
        // with Chinese, Japanese or Thai is several).
        let typed = query.split_whitespace().last().unwrap_or_default();
        let expand = match &terms.prefix {
            Some(prefix) if is_one_word(typed) => {
                Some(Expansion::of(query, prefix, terms.prefix_range.as_ref()))
            }
            _ => None,
        };
        let plan = Plan {
            fts,
            expand,
            session_key: session_key.map(str::to_owned),
            limit: limit as usize,
            offset: offset as usize,
            terms,
        };
        let unindexed = self.index_small_remainder().await?;
        let results = self
            .background_read(move |conn| read_page(conn, &plan))
            .await?;
        Ok(SearchResults {
            unindexed,
            ..results
        })
    }
}

/// Reads, ranks and cuts one page of a search (`unindexed` left 0).
fn read_page(conn: &Connection, plan: &Plan) -> rusqlite::Result<SearchResults> {
    let mut message_fts = plan.fts.clone();
    let mut notes_fts = &plan.fts;
    if let Some(expansion) = &plan.expand {
        let (lo, hi) = &expansion.range;
        let words: Vec<String> = conn
            .prepare_cached(EXPANSIONS)?
            .query_map(rusqlite::params![lo, hi, MAX_EXPANSIONS], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if let Some(expanded) = to_fts_query_expanded(&expansion.input, &words) {
            message_fts = expanded;
            // A half-made syllable is no prefix of what it becomes: the notes too are
            // searched for the words it may become.
            if plan.terms.prefix_range.is_some() {
                notes_fts = &message_fts;
            }
        }
    }
    let mut query = text_only(notes_fts);
    let mut message_query = text_only(&message_fts);
    if let Some(key) = &plan.session_key {
        let id: Option<i64> = conn
            .prepare_cached("SELECT id FROM sessions WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?;
        let Some(id) = id else {
            return Ok(SearchResults::default());
        };
        // The session is part of the match (migration 0006): only its rows are read.
        let session = format!(" AND session_id : \"{id}\"");
        query.push_str(&session);
        message_query.push_str(&session);
    }

    let need = plan.offset.saturating_add(plan.limit).max(1);
    let blocks = Blocks::read(conn, &query, &message_query, need)?;
    let rows: Vec<CandidateRow> = conn
        .prepare_cached(CANDIDATE_ROWS)?
        .query_map(
            rusqlite::params![
                json_ids(&blocks.messages),
                json_ids(&blocks.observations),
                json_ids(&blocks.reflections)
            ],
            |r| {
                Ok(CandidateRow {
                    kind: r.get(0)?,
                    id: r.get(1)?,
                    item_id: r.get(2)?,
                    session_id: r.get(3)?,
                    seq: r.get(4)?,
                    content: r.get(5)?,
                    created_at: r.get(6)?,
                    archived: r.get(7)?,
                })
            },
        )?
        .collect::<rusqlite::Result<_>>()?;
    let ranked = blocks.rank(rows, &plan.terms);
    let total = ranked.len() as u64;
    let start = plan.offset.min(ranked.len());
    let end = start.saturating_add(plan.limit).min(ranked.len());
    let more = end < ranked.len() || blocks.full;
    let page: Vec<CandidateRow> = ranked.into_iter().skip(start).take(end - start).collect();
    Ok(SearchResults {
        hits: page_hits(conn, page, &plan.terms)?,
        total,
        total_is_lower_bound: blocks.full,
        more,
        unindexed: 0,
    })
}

/// The page's rows as hits: their sessions, and a plain snippet each.
fn page_hits(
    conn: &Connection,
    rows: Vec<CandidateRow>,
    terms: &QueryTerms,
) -> rusqlite::Result<Vec<SearchHit>> {
    let mut session_ids: Vec<i64> = rows.iter().map(|r| r.session_id).collect();
    session_ids.sort_unstable();
    session_ids.dedup();
    let sessions: Vec<SessionRow> = conn
        .prepare_cached(HIT_SESSIONS)?
        .query_map([json_ids(&session_ids)], |r| {
            Ok(SessionRow {
                id: r.get(0)?,
                key: r.get(1)?,
                title: r.get(2)?,
                updated_at: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    const KINDS: [SearchHitKind; 3] = [
        SearchHitKind::Message,
        SearchHitKind::Observation,
        SearchHitKind::Reflection,
    ];
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let session = sessions.iter().find(|s| s.id == r.session_id)?;
            let kind = *KINDS.get(usize::try_from(r.kind).ok()?)?;
            Some(SearchHit {
                session_key: session.key.clone(),
                session_title: session.title.clone(),
                kind,
                item_id: r.item_id,
                seq: r.seq,
                snippet: marked_snippet(&plain_text(&r.content), terms, SNIPPET_TOKENS),
                archived: r.archived != 0,
                at: r.created_at,
                session_updated_at: session.updated_at,
            })
        })
        .collect())
}

fn json_ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".to_owned())
}
