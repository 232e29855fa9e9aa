//! The BM25 ranking behind knowledge retrieval, and the per-session cache that keeps it off
//! the send path.
//!
//! Most of what retrieval searches — archived messages, observations, reflections — changes
//! only with the session's memory version (migration 0004). For those items this keeps, per
//! session, which items hold each searched keyword and how often (`memory::knowledge_session`);
//! when the version moves, the cache catches up from what changed instead of being read
//! again. A model call reads SQLite only for keywords it never searched (one unranked match
//! per keyword, `Store::knowledge_matches`) and ranks in memory. Messages still in the
//! model's history change every turn; they are read afresh each call (`Store::history_texts`;
//! with memory on the history stays short) and matched here.
//!
//! The ranking is FTS5's `bm25()` formula (k1 1.2, b 0.75, IDF `ln((N - n + 0.5) / (n + 0.5))`,
//! at least 1e-6) over the session's own statistics rather than the whole database's: an
//! item's score no longer depends on what other conversations contain, and no query scans
//! other sessions' rows. Lengths are the stored token counts.
//!
//! Items are ranked by how many distinct keywords they hold (a whole user sentence rarely
//! has all its words in one note), then by that score.
//!
//! Owns the cache and the ranking. The SQL is the store's, the tokenizer and snippets are
//! `store::snippet`'s; what the prompt shows from the ranking is `memory::knowledge`'s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::knowledge_session::SessionIndex;
use super::knowledge_vocabulary::Vocabulary;
use crate::store::{
    fold, plain_snippet, term_frequencies, KnowledgeDoc, ReadOn, SearchHitKind, Store, StoreResult,
    SNIPPET_TOKENS,
};

/// One retrievable item of a session, ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: SearchHitKind,
    pub id: String,
    /// Messages: a snippet around the query's words (or, when only the vector ranking found
    /// it, the start of its text). Observations and reflections: their whole text.
    pub content: String,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Matching items read per keyword and collection at most (the newest): bounds a cold
/// keyword's read, the cache and the ranking in a long conversation, so their cost stops
/// growing with it (`make soak`). A word held by more items than this is
/// common there, weighs little (its IDF), and its newest holders stand for it — the
/// trade-off global search makes too; a rarer word always brings all its items.
const MATCHES_PER_COLLECTION: u32 = 500;
/// Items a session's index may record by catching up before a refresh builds it anew.
const REBUILD_AFTER: usize = 1_000;
/// Sessions kept; beyond that the cache starts over (a desktop has a few conversations open).
const SESSIONS: usize = 16;

/// Per-session retrieval statistics, shared by the calls of one model adapter. Cheap to
/// clone; `Default` is an empty cache (a one-off ranking, as the inspector makes).
#[derive(Debug, Default, Clone)]
pub struct KnowledgeIndex {
    sessions: Arc<Mutex<HashMap<String, SessionIndex>>>,
    /// Per session, the words its memory holds (`memory::knowledge_vocabulary`): a keyword
    /// outside it is known to match nothing without a read.
    vocabularies: Arc<Mutex<HashMap<String, Vocabulary>>>,
    counts: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    keywords: AtomicU64,
    read: AtomicU64,
}

/// How often the cache answered: keywords searched, and those read from the database (not
/// seen since the session's last memory change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexCounts {
    pub keywords: u64,
    pub read: u64,
}

impl KnowledgeIndex {
    /// The items of session `key` matching ANY of `words`, best first, at most `limit`:
    /// its memory (from the cache for `version`, reading only what is missing) and the
    /// messages still in the model's history.
    pub async fn search(
        &self,
        store: &Store,
        key: &str,
        version: i64,
        words: &[String],
        limit: usize,
    ) -> StoreResult<Vec<Candidate>> {
        let words: Vec<String> = words.iter().map(|w| fold(w.trim())).collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        self.catch_up(store, key, version, ReadOn::SendPath).await?;
        let (missing, need_stats) = {
            let mut sessions = self.lock();
            if sessions.len() >= SESSIONS && !sessions.contains_key(key) {
                sessions.clear();
            }
            let index = sessions
                .entry(key.to_owned())
                .or_insert_with(|| SessionIndex::new(version));
            if index.version != version {
                // Could not catch up (see `catch_up`): start over.
                let recent = std::mem::take(&mut index.recent);
                *index = SessionIndex::new(version);
                index.recent = recent;
            }
            index.used(&words);
            let missing: Vec<String> = words
                .iter()
                .filter(|w| !index.postings.contains_key(*w))
                .cloned()
                .collect();
            (missing, index.stats.is_none())
        };
        // Keywords the memory's vocabulary rules out match nothing: no read.
        let (absent, missing): (Vec<String>, Vec<String>) = {
            let vocabularies = self.vocabularies();
            let vocabulary = vocabularies.get(key);
            missing
                .into_iter()
                .partition(|w| vocabulary.is_some_and(|v| v.rules_out(version, w)))
        };
        self.counts
            .keywords
            .fetch_add(words.len() as u64, Ordering::Relaxed);
        self.counts
            .read
            .fetch_add(missing.len() as u64, Ordering::Relaxed);
        let stats = if need_stats {
            Some(store.knowledge_stats(key, ReadOn::SendPath).await?)
        } else {
            None
        };
        let found = if missing.is_empty() {
            Vec::new()
        } else {
            store
                .knowledge_matches(&missing, key, MATCHES_PER_COLLECTION, ReadOn::SendPath)
                .await?
        };
        let live = store.history_texts(key, MATCHES_PER_COLLECTION).await?;

        let mut sessions = self.lock();
        let index = sessions
            .entry(key.to_owned())
            .or_insert_with(|| SessionIndex::new(version));
        if index.version != version {
            // Another call moved the session to a newer version meanwhile: rank this call's
            // reads in a throwaway index (the cache stays with the newer version).
            let mut own = SessionIndex::new(version);
            own.stats = stats;
            own.add(&missing, found);
            return Ok(rank(&own, &words, live, limit));
        }
        if let Some(stats) = stats {
            index.stats = Some(stats);
        }
        if !missing.is_empty() {
            index.add(&missing, found);
        }
        if !absent.is_empty() {
            index.add(&absent, Vec::new());
        }
        Ok(rank(index, &words, live, limit))
    }

    /// Brings session `key`'s cache to its current memory version, off the send path (the
    /// engine calls it after each memory cycle): the memory's vocabulary is brought up to
    /// date, and the cache catches up from what changed (`knowledge_session`), so the next
    /// model call finds it current. Every [`REBUILD_AFTER`] items recorded since it was
    /// built, it is built anew from the recently searched keywords instead, on the
    /// background connection: that drops replaced notes and brings each keyword back to
    /// its newest [`MATCHES_PER_COLLECTION`]. Nothing to do for a session never searched.
    pub async fn refresh(&self, store: &Store, key: &str) -> StoreResult<()> {
        let Some(state) = store.memory_state(key).await? else {
            return Ok(());
        };
        if !self.lock().contains_key(key) {
            return Ok(());
        }
        let previous = self.vocabularies().get(key).cloned();
        if previous.as_ref().is_none_or(|v| !v.is_at(state.version)) {
            let vocabulary = Vocabulary::update(previous, store, key, state.version).await?;
            let mut vocabularies = self.vocabularies();
            if vocabularies.len() >= SESSIONS && !vocabularies.contains_key(key) {
                vocabularies.clear();
            }
            vocabularies.insert(key.to_owned(), vocabulary);
        }
        let rebuild = match self.lock().get(key) {
            Some(index) => index.recorded_since_built() > REBUILD_AFTER,
            None => return Ok(()),
        };
        if !rebuild {
            self.catch_up(store, key, state.version, ReadOn::Background)
                .await?;
            if self
                .lock()
                .get(key)
                .is_some_and(|i| i.version >= state.version)
            {
                return Ok(());
            }
        }
        let (words, built_from) = match self.lock().get(key) {
            Some(index) => (index.recent.clone(), index.version),
            None => return Ok(()),
        };
        let stats = store.knowledge_stats(key, ReadOn::Background).await?;
        let found = store
            .knowledge_matches(&words, key, MATCHES_PER_COLLECTION, ReadOn::Background)
            .await?;
        let mut fresh = SessionIndex::new(state.version);
        fresh.stats = Some(stats);
        fresh.add(&words, found);
        fresh.recent = words;
        fresh.built();
        let mut sessions = self.lock();
        // A model call may have moved the entry past this version meanwhile.
        if sessions
            .get(key)
            .is_some_and(|i| i.version <= state.version && i.version >= built_from)
        {
            sessions.insert(key.to_owned(), fresh);
        }
        Ok(())
    }

    /// Brings session `key`'s cached index to `version` from what changed since it was
    /// built or last caught up ([`Store::memory_delta`]: the messages archived since, and
    /// the notes), instead of reading every cached keyword again. Leaves it as it is when
    /// it cannot (the search then starts over).
    async fn catch_up(
        &self,
        store: &Store,
        key: &str,
        version: i64,
        on: ReadOn,
    ) -> StoreResult<()> {
        let from = match self.lock().get(key) {
            Some(index) if index.version < version => {
                index.stats.map(|s| (index.version, s.archive_mark))
            }
            _ => None,
        };
        let Some((from, mark)) = from else {
            return Ok(());
        };
        let delta = store.memory_delta(key, mark, on).await?;
        let mut sessions = self.lock();
        if let Some(index) = sessions.get_mut(key) {
            // Unless another call moved it meanwhile.
            if index.version == from {
                index.catch_up(version, delta);
            }
        }
        Ok(())
    }

    /// Keywords searched so far, and how many of them were read from the database.
    pub fn counts(&self) -> IndexCounts {
        IndexCounts {
            keywords: self.counts.keywords.load(Ordering::Relaxed),
            read: self.counts.read.load(Ordering::Relaxed),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionIndex>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn vocabularies(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vocabulary>> {
        self.vocabularies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where a ranked item is: a cached memory item (index into `SessionIndex::docs`) or a
/// message of the history read for this call (index into `live`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    Memory(usize),
    History(usize),
}

/// Every item holding a keyword — the cached memory items of `index` and the history's
/// messages `live` —, by keywords held, then BM25; best `limit` first, as candidates.
fn rank(
    index: &SessionIndex,
    words: &[String],
    live: Vec<KnowledgeDoc>,
    limit: usize,
) -> Vec<Candidate> {
    let doc = |source: Source| match source {
        Source::Memory(d) => &index.docs[d],
        Source::History(d) => &live[d],
    };
    let live_tf: Vec<Vec<u32>> = live
        .iter()
        .map(|d| term_frequencies(&d.text, words))
        .collect();
    // Items and tokens per collection; messages are the archive's and the history's.
    let stats = index.stats.unwrap_or_default();
    let (mut items, mut tokens) = (stats.items, stats.tokens);
    items[0] += live.len() as i64;
    tokens[0] += live.iter().map(|d| d.tokens.max(0)).sum::<i64>();
    let avg_len: [f64; 3] = std::array::from_fn(|c| {
        if items[c] > 0 && tokens[c] > 0 {
            tokens[c] as f64 / items[c] as f64
        } else {
            1.0
        }
    });

    // item → (keywords held, score)
    let mut scores: HashMap<Source, (usize, f64)> = HashMap::new();
    for (w, word) in words.iter().enumerate() {
        let cached = index.postings.get(word).map(Vec::as_slice).unwrap_or(&[]);
        let holding: Vec<(Source, u32)> = cached
            .iter()
            .map(|&(d, tf)| (Source::Memory(d), tf))
            .chain(
                (live_tf.iter().enumerate())
                    .filter(|(_, tf)| tf[w] > 0)
                    .map(|(d, tf)| (Source::History(d), tf[w])),
            )
            .collect();
        let mut holders = [0usize; 3];
        for &(source, _) in &holding {
            holders[doc(source).kind.position()] += 1;
        }
        for (source, tf) in holding {
            let item = doc(source);
            let c = item.kind.position();
            let tf = f64::from(tf);
            let norm = 1.0 - B + B * (item.tokens.max(0) as f64) / avg_len[c];
            let term =
                idf(items[c] as f64, holders[c] as f64) * (tf * (K1 + 1.0)) / (tf + K1 * norm);
            let entry = scores.entry(source).or_default();
            entry.0 += 1;
            entry.1 += term;
        }
    }

    let mut ranked: Vec<Ranked<'_>> = scores
        .into_iter()
        .map(|(source, (held, score))| {
            let doc = doc(source);
            Ranked {
                held,
                score,
                kind: doc.kind.position(),
                number: doc.item_id.parse().ok(),
                doc,
            }
        })
        .collect();
    // Only the best `limit` are sorted: a common word in a long memory holds up to
    // MATCHES_PER_COLLECTION items per collection, and sorting them all was the part of a
    // turn that grew with the memory (`make soak`).
    if ranked.len() > limit {
        ranked.select_nth_unstable_by(limit, Ranked::order);
        ranked.truncate(limit);
    }
    ranked.sort_by(Ranked::order);
    ranked
        .into_iter()
        .map(|Ranked { doc, .. }| Candidate {
            kind: doc.kind,
            id: doc.item_id.clone(),
            content: match doc.kind {
                SearchHitKind::Message => plain_snippet(&doc.text, words, SNIPPET_TOKENS),
                _ => doc.text.clone(),
            },
        })
        .collect()
}

/// FTS5's IDF: `ln((N - n + 0.5) / (n + 0.5))`, at least 1e-6 (a word in most items still
/// counts a little, never negatively).
fn idf(items: f64, holders: f64) -> f64 {
    let idf = ((items - holders + 0.5) / (holders + 0.5)).ln();
    if idf.is_finite() && idf > 1e-6 {
        idf
    } else {
        1e-6
    }
}

/// A scored item and what orders it, its id's number read once (not in every comparison).
struct Ranked<'a> {
    /// Keywords the item holds.
    held: usize,
    /// Its BM25 score.
    score: f64,
    /// Its collection's position.
    kind: usize,
    /// Its id as a number, when it is one (message ids: newest = largest).
    number: Option<i64>,
    doc: &'a KnowledgeDoc,
}

impl Ranked<'_> {
    /// Most keywords first, then best score; equal ones by collection in a fixed order,
    /// newest first within one, so a ranking never depends on hash order.
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.held
            .cmp(&a.held)
            .then(b.score.total_cmp(&a.score))
            .then(a.kind.cmp(&b.kind))
            .then(match (a.number, b.number) {
                (Some(x), Some(y)) => y.cmp(&x),
                // Observation and reflection ids compare as text.
                _ => b.doc.item_id.cmp(&a.doc.item_id),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::KnowledgeStats;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn idf_is_positive_and_rarer_words_weigh_more() {
        assert!(idf(100.0, 2.0) > idf(100.0, 20.0));
        assert_eq!(
            idf(10.0, 9.0),
            1e-6,
            "a word in most items still counts a little"
        );
        assert_eq!(idf(0.0, 0.0), 1e-6);
    }

    fn doc(kind: SearchHitKind, id: &str, text: &str) -> KnowledgeDoc {
        KnowledgeDoc {
            kind,
            item_id: id.into(),
            text: text.into(),
            tokens: text.split_whitespace().count() as i64,
        }
    }

    #[test]
    fn items_with_more_and_rarer_words_rank_first() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [20, 2, 0],
            tokens: [100, 10, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["heron", "lake"]);
        index.add(
            &w,
            vec![
                doc(SearchHitKind::Message, "1", "the lake"),
                doc(SearchHitKind::Message, "2", "a heron by the lake"),
                doc(SearchHitKind::Message, "3", "a heron"),
                doc(SearchHitKind::Message, "4", "lake again"),
                doc(SearchHitKind::Message, "5", "lake and lake"),
            ],
        );
        let hits = rank(&index, &w, Vec::new(), 10);
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids[0], "2", "both words");
        assert_eq!(ids[1], "3", "the rarer word");
        assert_eq!(hits.len(), 5);
        assert_eq!(hits[0].content, "a heron by the lake");
    }

    #[test]
    fn history_items_rank_with_the_cached_ones_and_the_limit_applies() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [3, 0, 0],
            tokens: [9, 0, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["otter"]);
        index.add(&w, vec![doc(SearchHitKind::Message, "1", "an otter swims")]);
        let live = vec![doc(SearchHitKind::Message, "9", "otter otter otter")];
        let hits = rank(&index, &w, live, 1);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "9", "more occurrences rank first");
    }
    #[test]
    fn the_best_few_of_many_matches_are_the_head_of_the_full_ranking() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [400, 100, 0],
            tokens: [4000, 1000, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["heron", "lake"]);
        let texts = [
            "the lake",
            "a heron by the lake",
            "a heron",
            "lake and lake",
        ];
        let messages = (0..300).map(|i| {
            let text = texts[i % texts.len()];
            doc(SearchHitKind::Message, &(i * 7 % 300).to_string(), text)
        });
        let observations = (0..100).map(|i| {
            let text = texts[i % texts.len()];
            doc(SearchHitKind::Observation, &format!("obs-{i:03}"), text)
        });
        index.add(&w, messages.chain(observations).collect());
        let ids = |limit| -> Vec<(SearchHitKind, String)> {
            rank(&index, &w, Vec::new(), limit)
                .into_iter()
                .map(|c| (c.kind, c.id))
                .collect()
        };
        let all = ids(usize::MAX);
        assert_eq!(all.len(), 400);
        for limit in [0, 1, 7, 50, 399, 400, 401] {
            let head: Vec<_> = all.iter().take(limit).cloned().collect();
            assert_eq!(ids(limit), head, "limit {limit}");
        }
        // The 75 messages holding both words score the same: newest (largest) id first,
        // compared as numbers ("100" before "99").
        let best: Vec<i64> = all
            .iter()
            .take(75)
            .map(|(kind, id)| {
                assert_eq!(*kind, SearchHitKind::Message);
                id.parse().unwrap_or(-1)
            })
            .collect();
        assert!(best.windows(2).all(|p| p[0] > p[1]), "{best:?}");
        assert!(best.iter().any(|&id| id >= 100) && best.iter().any(|&id| id < 100));
    }
}
