//! Which candidates a user's search ranks (`store::search`): FTS5's matches streamed newest
//! first, no ranking, in blocks of [`RANK_BUDGET`] — each notes index's newest first (at
//! most a quarter of a block each), the newest messages for the rest. Each block is ranked on
//! its own and the blocks follow one another, so every page of a search ranks the same
//! candidates the same way: paging never repeats or skips a match, and a page reads only the
//! blocks it reaches.

use std::collections::HashMap;

use rusqlite::Connection;

use super::query_terms::QueryTerms;
use super::search_rank::{rank, CandidateRow};

/// Most candidates ranked together, over the three indexes: a first page's whole candidate
/// set (a page further on than this reads the next block of as many); also where counting
/// stops (`SearchResults::total_is_lower_bound`).
const RANK_BUDGET: usize = 500;

/// The share of the budget each notes index (observations, reflections) may take, as a
/// divisor: notes are read first — few, and each a distilled summary — and messages fill
/// the budget's rest. 4: at most 125 each of the 500.
const NOTE_SHARE: usize = 4;

/// The newest `?2` matches of `?1` (the typed word expanded) among the messages, newest
/// first, no ranking: FTS5 streams them in that order and stops at the limit.
const MESSAGE_CANDIDATES: &str = "
SELECT rowid FROM message_fts WHERE message_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2";

/// The newest `?2` matches of `?1` in the notes' indexes (small: a prefix is cheap).
const NOTE_CANDIDATES: &str = "
SELECT 1 AS kind, rowid AS id FROM (
    SELECT rowid FROM observation_fts WHERE observation_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)
UNION ALL
SELECT 2, rowid FROM (
    SELECT rowid FROM reflection_fts WHERE reflection_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)";

/// A search's candidates in ranked blocks of [`RANK_BUDGET`], newest first: block `k` holds
/// each notes index's matches `k·w … (k+1)·w` (w = a [`NOTE_SHARE`] of the budget) and the
/// next messages to fill it. Every page ranks the same blocks the same way whatever its
/// offset — the hits are block 0's best first, then block 1's — so paging shows each match
/// once and skips none; a page reads only the blocks it reaches.
pub(super) struct Blocks {
    /// Candidate ids, newest first.
    pub messages: Vec<i64>,
    pub observations: Vec<i64>,
    pub reflections: Vec<i64>,
    /// How many messages each block holds.
    messages_per_block: Vec<usize>,
    /// More matches than were read may exist (the count is a lower bound).
    pub full: bool,
}

impl Blocks {
    /// The blocks through the one holding the `need`-th candidate: notes matching `query`,
    /// messages matching `message_query`.
    pub fn read(
        conn: &Connection,
        query: &str,
        message_query: &str,
        need: usize,
    ) -> rusqlite::Result<Self> {
        let count = need.div_ceil(RANK_BUDGET);
        let note_window = RANK_BUDGET / NOTE_SHARE;
        let notes: Vec<(i64, i64)> = conn
            .prepare_cached(NOTE_CANDIDATES)?
            .query_map(
                rusqlite::params![query, (count * note_window) as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
            .collect::<rusqlite::Result<_>>()?;
        let of_kind = |kind: i64| -> Vec<i64> {
            (notes.iter())
                .filter(|(k, _)| *k == kind)
                .map(|(_, id)| *id)
                .collect()
        };
        let (observations, reflections) = (of_kind(1), of_kind(2));
        let messages_per_block = messages_per_block(count, observations.len(), reflections.len());
        let window: usize = messages_per_block.iter().sum();
        let messages: Vec<i64> = conn
            .prepare_cached(MESSAGE_CANDIDATES)?
            .query_map(rusqlite::params![message_query, window as i64], |r| {
                r.get(0)
            })?
            .collect::<rusqlite::Result<_>>()?;
        let notes_full = count * note_window;
        let full = messages.len() >= window
            || observations.len() >= notes_full
            || reflections.len() >= notes_full;
        Ok(Self {
            messages,
            observations,
            reflections,
            messages_per_block,
            full,
        })
    }

    /// Each candidate's block, by kind and id.
    fn block_index(&self) -> HashMap<(i64, i64), usize> {
        let note_window = RANK_BUDGET / NOTE_SHARE;
        let mut index = HashMap::with_capacity(
            self.messages.len() + self.observations.len() + self.reflections.len(),
        );
        for (kind, ids) in [(1, &self.observations), (2, &self.reflections)] {
            for (i, &id) in ids.iter().enumerate() {
                index.insert((kind, id), i / note_window);
            }
        }
        let mut messages = self.messages.iter();
        for (k, &held) in self.messages_per_block.iter().enumerate() {
            for &id in messages.by_ref().take(held) {
                index.insert((0, id), k);
            }
        }
        index
    }

    /// The candidates best first within each block, block after block.
    pub fn rank(&self, rows: Vec<CandidateRow>, terms: &QueryTerms) -> Vec<CandidateRow> {
        let index = self.block_index();
        let mut by_block: Vec<Vec<CandidateRow>> = (0..self.messages_per_block.len())
            .map(|_| Vec::new())
            .collect();
        for row in rows {
            let k = index.get(&(row.kind, row.id)).copied().unwrap_or(0);
            if let Some(block) = by_block.get_mut(k) {
                block.push(row);
            }
        }
        by_block
            .into_iter()
            .flat_map(|block| rank(block, terms))
            .collect()
    }
}

/// How many messages each of `count` blocks holds: the budget less the notes it holds (each
/// notes index gives a block at most a [`NOTE_SHARE`] of the budget, in order).
fn messages_per_block(count: usize, observations: usize, reflections: usize) -> Vec<usize> {
    let note_window = RANK_BUDGET / NOTE_SHARE;
    let in_block = |notes: usize, k: usize| notes.saturating_sub(k * note_window).min(note_window);
    (0..count)
        .map(|k| RANK_BUDGET - in_block(observations, k) - in_block(reflections, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_takes_a_quarter_of_each_notes_index_in_order_and_messages_fill_the_rest() {
        // 130 observations, 2 reflections, three blocks of 500.
        assert_eq!(messages_per_block(3, 130, 2), vec![373, 495, 500]);
        assert_eq!(messages_per_block(1, 0, 0), vec![500]);
        assert_eq!(messages_per_block(2, 300, 300), vec![250, 250]);
    }

    fn blocks(messages: usize, observations: usize, reflections: usize, count: usize) -> Blocks {
        let ids = |n: usize, from: i64| (0..n as i64).map(|i| from - i).collect::<Vec<_>>();
        Blocks {
            messages: ids(messages, 10_000),
            observations: ids(observations, 900),
            reflections: ids(reflections, 90),
            messages_per_block: messages_per_block(count, observations, reflections),
            full: false,
        }
    }

    fn row(kind: i64, id: i64, content: &str) -> CandidateRow {
        CandidateRow {
            kind,
            id,
            item_id: id.to_string(),
            session_id: 1,
            seq: None,
            content: content.to_owned(),
            created_at: id,
            archived: 0,
        }
    }

    #[test]
    fn a_better_match_in_a_later_block_ranks_after_every_match_of_an_earlier_one() {
        let blocks = blocks(600, 130, 0, 2);
        let terms = crate::store::search_query::query_terms("wombat");
        // Block 0: the newest message says the word once among many words, the newest
        // observation twice. Block 1 (the 130th observation, the 600th message): both say
        // little but the word — better matches, ranked after all of block 0.
        let rows = vec![
            row(
                0,
                10_000,
                "wombat and a great many other words about the trip and the trains",
            ),
            row(0, 10_000 - 599, "wombat wombat"),
            row(1, 900 - 129, "wombat wombat wombat"),
            row(1, 900, "wombat wombat in a note"),
        ];
        let ranked: Vec<i64> = blocks.rank(rows, &terms).iter().map(|r| r.id).collect();
        assert_eq!(ranked, vec![900, 10_000, 900 - 129, 10_000 - 599]);
    }
}
