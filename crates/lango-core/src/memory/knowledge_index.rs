//! The per-session cache that keeps knowledge retrieval off the send path.
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
//! Owns the cache; the ranking is `memory::knowledge_rank`'s. The SQL is the store's; what
//! the prompt shows from the ranking is `memory::knowledge`'s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::knowledge_rank::rank;
use super::knowledge_session::SessionIndex;
use super::knowledge_vocabulary::Vocabulary;
use crate::store::{fold, ReadOn, SearchHitKind, Store, StoreResult};

/// One retrievable item of a session, ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: SearchHitKind,
    pub id: String,
    /// Messages: a snippet around the query's words (or, when only the vector ranking found
    /// it, the start of its text). Observations and reflections: their whole text.
    pub content: String,
}

/// Matching items read per keyword and collection at most (the newest): bounds a cold
/// keyword's read, the cache and the ranking in a long conversation, so their cost stops
/// growing with it (`make soak`). A word held by more items than this is
/// common there, weighs little (its IDF), and its newest holders stand for it — the
/// trade-off global search makes too; a rarer word always brings all its items. Catching up
/// keeps a keyword's archived messages to this too (`SessionIndex::catch_up`).
const MATCHES_PER_COLLECTION: u32 = 500;
/// Items a session's index may record by catching up before a refresh compacts it.
const COMPACT_AFTER: usize = 1_000;
/// Sessions kept; beyond that the cache starts over (a desktop has a few conversations open).
const SESSIONS: usize = 16;
/// Words of the memory's vocabulary a refresh reads into the cache at most, off the send
/// path, so that a word the memory holds is usually cached before a message first asks about
/// it (`make bench`: memory on / off first partial — such first reads were ~0.6 a turn,
/// about the whole gap).
const WARM_PER_REFRESH: usize = 64;
/// A refresh warms the cache only while its session's index holds fewer keywords than this —
/// well below what a compaction keeps (`knowledge_session`), so warming never makes a
/// compaction drop the words a conversation searched — and fewer items than
/// [`WARM_ITEMS_BELOW`]: the cache keeps each item's text, and a long imported archive must
/// not end up in memory whole because its common words were warmed.
const WARM_BELOW: usize = 2_048;
/// See [`WARM_BELOW`]: ~2 MB of text at a few hundred bytes an item.
const WARM_ITEMS_BELOW: usize = 5_000;

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
    /// model call finds it current. Every [`COMPACT_AFTER`] items recorded since it was
    /// built or compacted, it forgets the items no keyword holds any more (in memory,
    /// `SessionIndex::compact`). When it cannot catch up, it is built anew from the
    /// recently searched keywords, on the background connection. Nothing to do for a
    /// session never searched.
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
        self.catch_up(store, key, state.version, ReadOn::Background)
            .await?;
        let current = match self.lock().get_mut(key) {
            Some(index) if index.version >= state.version => {
                if index.recorded_since_built() > COMPACT_AFTER {
                    index.compact();
                }
                true
            }
            _ => false,
        };
        if current {
            return self.warm(store, key, state.version).await;
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

    /// Reads up to [`WARM_PER_REFRESH`] words the memory holds that session `key`'s cache
    /// lacks into it, on the background connection (while the index is at `version`, has its
    /// statistics, and holds fewer than [`WARM_BELOW`] keywords and [`WARM_ITEMS_BELOW`]
    /// items). Warmed words do not count as searched: a refresh that rebuilds reads only the
    /// searched ones again.
    async fn warm(&self, store: &Store, key: &str, version: i64) -> StoreResult<()> {
        let words: Vec<String> = {
            let sessions = self.lock();
            let Some(index) = sessions.get(key) else {
                return Ok(());
            };
            if index.version != version
                || index.stats.is_none()
                || index.postings.len() >= WARM_BELOW
                || index.docs.len() >= WARM_ITEMS_BELOW
            {
                return Ok(());
            }
            // Nested in this order only (sessions, then vocabularies): no call takes them
            // the other way round.
            let vocabularies = self.vocabularies();
            let Some(vocabulary) = vocabularies.get(key).filter(|v| v.is_at(version)) else {
                return Ok(());
            };
            vocabulary
                .words()
                .filter(|w| !index.postings.contains_key(*w))
                .take(WARM_PER_REFRESH)
                .cloned()
                .collect()
        };
        if words.is_empty() {
            return Ok(());
        }
        let found = store
            .knowledge_matches(&words, key, MATCHES_PER_COLLECTION, ReadOn::Background)
            .await?;
        let mut sessions = self.lock();
        // Unless a model call moved the session to a newer version meanwhile.
        if let Some(index) = sessions.get_mut(key).filter(|i| i.version == version) {
            index.add(&words, found);
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
        if let Some(vocabulary) = self.vocabularies().get_mut(key) {
            vocabulary.catch_up(version, mark, &delta);
        }
        let mut sessions = self.lock();
        if let Some(index) = sessions.get_mut(key) {
            // Unless another call moved it meanwhile.
            if index.version == from {
                index.catch_up(version, delta, MATCHES_PER_COLLECTION as usize);
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
