//! The user's full-text search (SQLite FTS5) across every session's messages — archived
//! ones included — observations and reflections, ranked by BM25 over a bounded candidate set.
//!
//! Why bounded: SQLite's `bm25()` first counts, for every query word, all the rows holding it
//! (its IDF), and `ORDER BY rank` scores every match: a word in half of a million messages
//! cost ~1 s. Here FTS5 only streams matches newest first (its native order, no ranking) and
//! stops at [`RANK_WINDOW`] per table; those candidates are ranked in Rust with BM25 over
//! their own text (`snippet::term_counts`), and only the page's hits get a snippet. A query
//! with fewer matches than the window — every rare word, most multi-word queries — is ranked
//! exactly; a common word ranks its newest matches. ARCHITECTURE.md, "The store", has the
//! trade-off and the measurements.

use sqlx::FromRow;

use super::error::StoreResult;
use super::models::{SearchHit, SearchHitKind, SearchResults};
use super::plain_text::plain_text;
use super::snippet::{fold, marked_snippet, term_counts, QueryTerms};
use super::Store;

/// Most indexed words the word being typed expands into (shortest first).
const MAX_EXPANSIONS: i64 = 128;

/// Newest matches per table ranked by a search; also where counting stops
/// (`SearchResults::total_is_lower_bound`). A page beyond it widens it.
const RANK_WINDOW: u32 = 1000;

/// Tokens per search snippet.
const SNIPPET_TOKENS: usize = 16;

/// BM25's usual constants (as FTS5's `bm25()`).
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

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

/// [`to_fts_query`] with the last word replaced by any of `words` (whole words): the word
/// being typed, expanded (migration 0009 says why).
fn to_fts_query_expanded(input: &str, words: &[String]) -> Option<String> {
    let mut typed: Vec<&str> = input.split_whitespace().collect();
    typed.pop()?;
    let alternatives = to_fts_any_query(words)?;
    // FTS5 implies AND only between phrases: before a group it must be written.
    let mut parts: Vec<String> = typed
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    parts.push(format!("({alternatives})"));
    Some(parts.join(" AND "))
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

/// Restricts an FTS5 query to the `text` column: the indexes also hold the session id
/// (migration 0006), which a number in the query must never match.
pub(crate) fn text_only(fts: &str) -> String {
    format!("text : ({fts})")
}

/// The newest `?2` matches of `?1` (the typed word expanded) among the messages with an id
/// above `?3`, newest first, no ranking.
const MESSAGE_CANDIDATES: &str = "
SELECT rowid FROM message_fts WHERE message_fts MATCH ?1 AND rowid > ?3 ORDER BY rowid DESC LIMIT ?2";

/// The newest `?2` matches of `?1` in the notes' indexes (small: a prefix is cheap).
const NOTE_CANDIDATES: &str = "
SELECT 1 AS kind, rowid AS id FROM (
    SELECT rowid FROM observation_fts WHERE observation_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)
UNION ALL
SELECT 2, rowid FROM (
    SELECT rowid FROM reflection_fts WHERE reflection_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)";

/// How many of the newest message ids the first look covers; each next one 8 times more.
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

/// A candidate as `CANDIDATE_ROWS` reads it (rusqlite, see `Store::search`).
struct CandidateRow {
    kind: i64,
    id: i64,
    item_id: String,
    session_id: i64,
    seq: Option<i64>,
    content: String,
    created_at: i64,
    archived: i64,
}

#[derive(FromRow)]
struct SessionRow {
    id: i64,
    key: String,
    title: String,
    updated_at: i64,
}

/// One page of a search.
#[derive(Debug, Clone, Copy)]
struct Page {
    limit: u32,
    offset: u32,
}

/// What a user typed, as the terms ranking and snippets match: every word's tokens (as the
/// index tokenizes them), the last token a prefix.
fn query_terms(input: &str) -> QueryTerms {
    let mut words: Vec<String> = input
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(fold)
        .collect();
    let prefix = words.pop();
    QueryTerms { words, prefix }
}

fn json_ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".to_owned())
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
        let page = Page { limit, offset };
        let terms = query_terms(query);
        // The last word is expanded when it is one token (as the index splits words).
        let typed = query.split_whitespace().last().unwrap_or_default();
        let expand = match &terms.prefix {
            Some(prefix) if typed.chars().all(char::is_alphanumeric) => {
                Some((query, prefix.clone()))
            }
            _ => None,
        };
        self.run_search(fts, terms, session_key, page, expand).await
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
        let terms = QueryTerms {
            words: words.iter().map(|w| fold(w.trim())).collect(),
            prefix: None,
        };
        let page = Page { limit, offset: 0 };
        Ok(self
            .run_search(fts, terms, session_key, page, None)
            .await?
            .hits)
    }

    async fn run_search(
        &self,
        fts: String,
        terms: QueryTerms,
        session_key: Option<&str>,
        page: Page,
        expand: Option<(&str, String)>,
    ) -> StoreResult<SearchResults> {
        let unindexed = self.index_small_remainder().await?;
        let mut message_fts = fts.clone();
        if let Some((input, prefix)) = expand {
            let words: Vec<String> = sqlx::query_scalar(EXPANSIONS)
                .bind(prefix)
                .bind(MAX_EXPANSIONS)
                .fetch_all(self.reader())
                .await
                .map_err(|e| self.err(e))?;
            if let Some(expanded) = to_fts_query_expanded(input, &words) {
                message_fts = expanded;
            }
        }
        let mut query = text_only(&fts);
        let mut message_query = text_only(&message_fts);
        if let Some(key) = session_key {
            let id: Option<i64> = sqlx::query_scalar("SELECT id FROM sessions WHERE key = ?")
                .bind(key)
                .fetch_optional(self.reader())
                .await
                .map_err(|e| self.err(e))?;
            let Some(id) = id else {
                return Ok(SearchResults {
                    unindexed,
                    ..SearchResults::default()
                });
            };
            // The session is part of the match (migration 0006): only its rows are read.
            let session = format!(" AND session_id : \"{id}\"");
            query.push_str(&session);
            message_query.push_str(&session);
        }
        let window = RANK_WINDOW.max(page.offset.saturating_add(page.limit));
        let need = page.offset.saturating_add(page.limit) as usize;
        let (messages, bounded) = self
            .message_candidates(&message_query, window, need)
            .await?;
        let notes: Vec<(i64, i64)> = sqlx::query_as(NOTE_CANDIDATES)
            .bind(&query)
            .bind(i64::from(window))
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        let of_kind = |kind: i64| -> Vec<i64> {
            notes
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, id)| *id)
                .collect()
        };
        let (observations, reflections) = (of_kind(1), of_kind(2));
        let full = bounded
            || [&messages, &observations, &reflections]
                .iter()
                .any(|ids| ids.len() >= window as usize);
        // Up to a few thousand rows with their text: read on a blocking thread by rusqlite,
        // which decodes them where it runs (sqlx hands each row over from its worker
        // thread: 13 ms for 2,100 rows at 1M messages).
        let ids = [
            json_ids(&messages),
            json_ids(&observations),
            json_ids(&reflections),
        ];
        let rows: Vec<CandidateRow> = self
            .background_read(move |conn| {
                let mut statement = conn.prepare_cached(CANDIDATE_ROWS)?;
                let rows = statement.query_map(rusqlite::params![ids[0], ids[1], ids[2]], |r| {
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
                })?;
                rows.collect()
            })
            .await?;
        let ranked = rank(rows, &terms);
        let total = ranked.len() as u64;
        let start = (page.offset as usize).min(ranked.len());
        let end = start.saturating_add(page.limit as usize).min(ranked.len());
        let more = end < ranked.len() || full;
        let page_rows: Vec<CandidateRow> =
            ranked.into_iter().skip(start).take(end - start).collect();
        let hits = self.page_hits(page_rows, &terms).await?;
        Ok(SearchResults {
            hits,
            total,
            total_is_lower_bound: full,
            more,
            unindexed,
        })
    }

    /// The newest `window` messages matching `query`, looked for among the newest ids first
    /// and further back only while fewer than `need` match: words that are each common but
    /// rarely together would otherwise have their whole match lists intersected. True when
    /// older messages were not looked at (the count is then a lower bound).
    async fn message_candidates(
        &self,
        query: &str,
        window: u32,
        need: usize,
    ) -> StoreResult<(Vec<i64>, bool)> {
        let newest: i64 =
            sqlx::query_scalar("SELECT seq FROM sqlite_sequence WHERE name = 'messages'")
                .fetch_optional(self.reader())
                .await
                .map_err(|e| self.err(e))?
                .unwrap_or(0);
        let mut span = FIRST_SPAN;
        loop {
            let above = newest.saturating_sub(span).max(0);
            let ids: Vec<i64> = sqlx::query_scalar(MESSAGE_CANDIDATES)
                .bind(query)
                .bind(i64::from(window))
                .bind(above)
                .fetch_all(self.reader())
                .await
                .map_err(|e| self.err(e))?;
            if above == 0 || ids.len() >= need {
                return Ok((ids, above > 0));
            }
            span = span.saturating_mul(8);
        }
    }

    /// The page's rows as hits: their sessions, and a plain snippet each.
    async fn page_hits(
        &self,
        rows: Vec<CandidateRow>,
        terms: &QueryTerms,
    ) -> StoreResult<Vec<SearchHit>> {
        let mut session_ids: Vec<i64> = rows.iter().map(|r| r.session_id).collect();
        session_ids.sort_unstable();
        session_ids.dedup();
        let sessions: Vec<SessionRow> = sqlx::query_as(HIT_SESSIONS)
            .bind(json_ids(&session_ids))
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
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
}

/// The candidates best first: BM25 over the candidates' own text (term frequencies, text
/// lengths, and a term's rarity among the candidates), the newest first among equals.
fn rank(rows: Vec<CandidateRow>, terms: &QueryTerms) -> Vec<CandidateRow> {
    let counted: Vec<(Vec<u32>, usize)> = rows
        .iter()
        .map(|r| term_counts(&r.content, terms))
        .collect();
    let n = counted.len().max(1) as f64;
    let avg_len = counted.iter().map(|(_, len)| *len as f64).sum::<f64>() / n;
    let idf: Vec<f64> = (0..terms.count())
        .map(|t| {
            let df = counted.iter().filter(|(c, _)| c[t] > 0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scored: Vec<(f64, CandidateRow)> = rows
        .into_iter()
        .zip(&counted)
        .map(|(row, (counts, len))| {
            let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * *len as f64 / avg_len.max(1.0));
            let score = counts
                .iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (BM25_K1 + 1.0) / (tf + norm)
                })
                .sum::<f64>();
            (score, row)
        })
        .collect();
    scored.sort_by(|(a, ra), (b, rb)| {
        b.total_cmp(a)
            .then(rb.created_at.cmp(&ra.created_at))
            .then(ra.kind.cmp(&rb.kind))
            .then(rb.id.cmp(&ra.id))
    });
    scored.into_iter().map(|(_, row)| row).collect()
}

#[cfg(test)]
mod tests {
    use super::{to_fts_query, to_fts_query_expanded};

    #[test]
    fn the_word_being_typed_becomes_any_of_its_indexed_words() {
        let words = ["project".to_owned(), "projects".to_owned()];
        assert_eq!(
            to_fts_query_expanded("the \"big\" proj", &words).as_deref(),
            Some("\"the\" AND \"\"\"big\"\"\" AND (\"project\" OR \"projects\")")
        );
        assert_eq!(to_fts_query_expanded("proj", &[]), None);
    }

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
