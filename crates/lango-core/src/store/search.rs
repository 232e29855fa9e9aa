//! The user's full-text search (SQLite FTS5) across every session's messages — archived
//! ones included — observations and reflections, ranked by BM25 over a bounded candidate set.
//!
//! Why bounded: SQLite's `bm25()` first counts, for every query word, all the rows holding it
//! (its IDF), and `ORDER BY rank` scores every match: a word in half of a million messages
//! cost ~1 s. Here FTS5 only streams matches newest first (its native order, no ranking) and
//! a search takes at most [`RANK_BUDGET`] of them — the notes' newest first (at most a
//! quarter of it per notes index), the newest messages for the rest — so a common word
//! costs the same in a million messages as in a thousand. Those candidates are ranked in Rust
//! (`store::search_rank`), and only the page's hits get a snippet. A query with fewer
//! matches than that — every rare word, most multi-word queries — is ranked exactly; a
//! common word ranks its newest matches. The whole read is one call on the store's
//! background read connection (rusqlite, on a blocking thread): through sqlx every row is
//! handed over from its worker thread, which cost more than the reading at 1M messages.
//! ARCHITECTURE.md, "The store", has the trade-off and the measurements.

use rusqlite::{Connection, OptionalExtension};

use super::error::StoreResult;
use super::models::{SearchHit, SearchHitKind, SearchResults};
use super::plain_text::plain_text;
use super::search_query::{query_terms, text_only, to_fts_query, to_fts_query_expanded};
use super::search_rank::{rank, CandidateRow};
use super::snippet::{marked_snippet, QueryTerms};
use super::Store;

/// Most indexed words the word being typed expands into (shortest first).
const MAX_EXPANSIONS: i64 = 128;

/// Most candidates a search ranks, over the three indexes (a page further on than this
/// widens it); also where counting stops (`SearchResults::total_is_lower_bound`).
const RANK_BUDGET: usize = 500;

/// The share of the budget each notes index (observations, reflections) may take, as a
/// divisor: notes are read first — few, and each a distilled summary — and messages fill
/// the budget's rest. 4: at most 125 each of the 500.
const NOTE_SHARE: usize = 4;

/// Tokens per search snippet.
const SNIPPET_TOKENS: usize = 16;

/// The newest `?2` matches of `?1` (the typed word expanded) among the messages with an id
/// above `?3` and at most `?4`, newest first, no ranking.
const MESSAGE_CANDIDATES: &str = "
SELECT rowid FROM message_fts WHERE message_fts MATCH ?1 AND rowid > ?3 AND rowid <= ?4
 ORDER BY rowid DESC LIMIT ?2";

/// The newest `?2` matches of `?1` in the notes' indexes (small: a prefix is cheap).
const NOTE_CANDIDATES: &str = "
SELECT 1 AS kind, rowid AS id FROM (
    SELECT rowid FROM observation_fts WHERE observation_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)
UNION ALL
SELECT 2, rowid FROM (
    SELECT rowid FROM reflection_fts WHERE reflection_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)";

/// How many of the newest message ids the first look covers; how far each next one reaches
/// follows from what the looks before found ([`next_span`]).
const FIRST_SPAN: i64 = 65_536;

/// The indexed words starting with `?1`, shortest first (the word being typed is more
/// likely short than long), at most `?2`.
const EXPANSIONS: &str = "
SELECT term FROM search_terms WHERE term >= ?1 AND term < ?1 || char(1114111)
 ORDER BY length(term), term LIMIT ?2";

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
    /// What was typed and its last word folded, when that word is expanded into the indexed
    /// words it begins.
    expand: Option<(String, String)>,
    session_key: Option<String>,
    limit: usize,
    offset: usize,
    terms: QueryTerms,
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
        // The last word is expanded when it is one token (as the index splits words).
        let typed = query.split_whitespace().last().unwrap_or_default();
        let expand = match &terms.prefix {
            Some(prefix) if typed.chars().all(char::is_alphanumeric) => {
                Some((query.to_owned(), prefix.clone()))
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
    if let Some((input, prefix)) = &plan.expand {
        let words: Vec<String> = conn
            .prepare_cached(EXPANSIONS)?
            .query_map(rusqlite::params![prefix, MAX_EXPANSIONS], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if let Some(expanded) = to_fts_query_expanded(input, &words) {
            message_fts = expanded;
        }
    }
    let mut query = text_only(&plan.fts);
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

    let need = plan.offset.saturating_add(plan.limit);
    // Every page within the budget ranks the same candidates, so pages never overlap.
    let budget = RANK_BUDGET.max(need);
    let note_window = budget / NOTE_SHARE;
    let notes: Vec<(i64, i64)> = conn
        .prepare_cached(NOTE_CANDIDATES)?
        .query_map(rusqlite::params![query, note_window as i64], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let of_kind = |kind: i64| -> Vec<i64> {
        (notes.iter())
            .filter(|(k, _)| *k == kind)
            .map(|(_, id)| *id)
            .collect()
    };
    let (observations, reflections) = (of_kind(1), of_kind(2));
    let message_window = budget - notes.len();
    // One word alone is read in one look: FTS5 streams its matches newest first and stops
    // at the window, so looking back in spans would only add looks (a rare word's few
    // matches are all read either way). Spans are for words that must all match.
    let first_span = if plan.terms.words.is_empty() && plan.session_key.is_none() {
        i64::MAX
    } else {
        FIRST_SPAN
    };
    let (messages, bounded) =
        message_candidates(conn, &message_query, message_window, need, first_span)?;
    let full = bounded
        || messages.len() >= message_window
        || observations.len() >= note_window
        || reflections.len() >= note_window;

    let rows: Vec<CandidateRow> = conn
        .prepare_cached(CANDIDATE_ROWS)?
        .query_map(
            rusqlite::params![
                json_ids(&messages),
                json_ids(&observations),
                json_ids(&reflections)
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
    let ranked = rank(rows, &plan.terms);
    let total = ranked.len() as u64;
    let start = plan.offset.min(ranked.len());
    let end = start.saturating_add(plan.limit).min(ranked.len());
    let more = end < ranked.len() || full;
    let page: Vec<CandidateRow> = ranked.into_iter().skip(start).take(end - start).collect();
    Ok(SearchResults {
        hits: page_hits(conn, page, &plan.terms)?,
        total,
        total_is_lower_bound: full,
        more,
        unindexed: 0,
    })
}

/// The newest `window` messages matching `query`, looked for among the newest `first_span`
/// ids first and further back only while fewer than `need` match: words that are each
/// common but rarely together would otherwise have their whole match lists intersected.
/// Each look reads only ids the looks before did not. True when older messages were not
/// looked at (the count is then a lower bound).
fn message_candidates(
    conn: &Connection,
    query: &str,
    window: usize,
    need: usize,
    first_span: i64,
) -> rusqlite::Result<(Vec<i64>, bool)> {
    let newest: i64 = conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = 'messages'")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    let mut statement = conn.prepare_cached(MESSAGE_CANDIDATES)?;
    let mut ids: Vec<i64> = Vec::new();
    // `read_to`: the newest id the looks so far have not read. The first look has no upper
    // bound: a message appended since `newest` was read counts too.
    let (mut span, mut read_to) = (first_span, i64::MAX);
    loop {
        let above = newest.saturating_sub(span).max(0);
        let left = window.saturating_sub(ids.len()) as i64;
        let found = statement
            .query_map(rusqlite::params![query, left, above, read_to], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        ids.extend(found);
        if above == 0 || ids.len() >= need {
            return Ok((ids, above > 0));
        }
        read_to = above;
        span = next_span(span, ids.len(), need);
    }
}

/// How far back the next look reaches, from the `found` matches (fewer than `need`) among
/// the newest `span` ids: twice as far as their density says `need` matches lie (a density
/// is a guess), so always more than twice as far as before; every id when none matched
/// yet. Three words each common but rarely together (374 matches in the 1M-message bench)
/// now read ~290,000 ids for a first page (3–3.5 ms); growing 8-fold each time, looks
/// overlapping, read 590,000 (10 ms).
fn next_span(span: i64, found: usize, need: usize) -> i64 {
    if found == 0 {
        return i64::MAX;
    }
    let found = i64::try_from(found).unwrap_or(i64::MAX);
    let need = i64::try_from(need).unwrap_or(i64::MAX);
    (span.saturating_mul(need) / found).saturating_mul(2)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_look_reaches_twice_as_far_as_the_density_found_says_a_page_lies() {
        // 40 of 50 needed in 65,536 ids: 50 lie within ~81,920; twice that.
        assert_eq!(next_span(65_536, 40, 50), 163_840);
        // Nearly enough found: still over twice as far as before.
        assert_eq!(next_span(65_536, 49, 50), 133_746);
        // A handful: as far as their density says, twice over.
        assert_eq!(next_span(65_536, 5, 50), 1_310_720);
        assert_eq!(next_span(65_536, 0, 50), i64::MAX, "none yet: every id");
        assert_eq!(next_span(i64::MAX / 2, 1, 500), i64::MAX, "saturates");
    }

    /// An index of `texts` at their ids (sparse: up to 300,000) and the newest message id.
    fn index(texts: &[(i64, &str)]) -> Connection {
        let conn = Connection::open_in_memory().expect("in-memory database");
        conn.execute_batch(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT);
             CREATE VIRTUAL TABLE message_fts USING fts5(text);
             INSERT INTO messages (id) VALUES (300000);",
        )
        .expect("schema");
        for (id, text) in texts {
            conn.execute(
                "INSERT INTO message_fts (rowid, text) VALUES (?1, ?2)",
                rusqlite::params![id, text],
            )
            .expect("index a message");
        }
        conn
    }

    #[test]
    fn every_match_is_found_however_far_back_in_one_look_or_in_spans() {
        let conn = index(&[
            (3, "quetzal borrow checker"),
            (120_000, "a quetzal"),
            (250_000, "borrow lifetimes"),
            (290_000, "quetzal again, borrow checker"),
        ]);
        // One word, one look: all three, newest first, and the count is exact.
        let one = message_candidates(&conn, "\"quetzal\"", 500, 50, i64::MAX).expect("search");
        assert_eq!(one, (vec![290_000, 120_000, 3], false));
        // The same word looked for in spans from the newest 65,536 ids: the same answer.
        let spans = message_candidates(&conn, "\"quetzal\"", 500, 50, FIRST_SPAN).expect("search");
        assert_eq!(spans, one);
        // Two words that must both match, in spans: the oldest is found too.
        let both = message_candidates(&conn, "\"borrow\" \"checker\"", 500, 50, FIRST_SPAN)
            .expect("search");
        assert_eq!(both, (vec![290_000, 3], false));
    }

    #[test]
    fn a_page_found_among_the_newest_ids_stops_the_looks_and_says_the_count_is_a_lower_bound() {
        let texts: Vec<(i64, String)> = (0..60)
            .map(|i| (299_000 + i, format!("common word {i}")))
            .collect();
        let mut all: Vec<(i64, &str)> = texts.iter().map(|(id, t)| (*id, t.as_str())).collect();
        all.push((5, "common but old"));
        let conn = index(&all);
        let (ids, bounded) =
            message_candidates(&conn, "\"common\" \"word\"", 500, 50, FIRST_SPAN).expect("search");
        assert_eq!(ids.len(), 60);
        assert!(
            bounded,
            "older messages were not read: the count is a lower bound"
        );
        // One word in one look reads as far as the window, so its count is exact.
        let (ids, bounded) =
            message_candidates(&conn, "\"common\"", 500, 50, i64::MAX).expect("search");
        assert_eq!(
            (ids.len(), ids.last().copied(), bounded),
            (61, Some(5), false)
        );
    }
}
