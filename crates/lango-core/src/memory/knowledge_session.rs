//! One session's retrieval cache at one memory version (`memory::knowledge_index` keeps one
//! per session): which memory items hold each searched keyword, how often, and the
//! statistics BM25 needs.
//!
//! A memory change moves the session's version. Most changes add: a memory cycle archives a
//! few messages and saves a note. The cache then catches up from what changed
//! ([`Store::memory_delta`](crate::store::Store::memory_delta): the messages archived after
//! its mark, and every note) instead of reading every cached keyword's matches again, which
//! cost the send path up to ~20 ms in a long conversation (`make soak`). The archive only
//! grows (rows leave it only with their session), so what lies up to the mark stays as it
//! was; notes are edited and deleted in place, so they are replaced whole.

use std::collections::HashMap;

use crate::store::{
    term_frequencies, word_counts, KnowledgeDoc, KnowledgeStats, MemoryDelta, SearchHitKind,
};

/// Keywords a refresh reads again at most: the session's most recently searched ones.
pub(super) const REFRESH_KEYWORDS: usize = 64;

/// What one session's retrieval knows at one memory version.
#[derive(Debug, Default)]
pub(super) struct SessionIndex {
    pub(super) version: i64,
    /// Items and tokens of the archive, observations and reflections, and the archive mark.
    pub(super) stats: Option<KnowledgeStats>,
    /// Items ever recorded; one no longer referenced (a replaced note) stays until the index
    /// is rebuilt by a refresh.
    pub(super) docs: Vec<KnowledgeDoc>,
    by_id: HashMap<(SearchHitKind, String), usize>,
    /// Keyword → (index into `docs`, occurrences). Keywords with no item map to nothing.
    pub(super) postings: HashMap<String, Vec<(usize, u32)>>,
    /// Searched keywords, least recently used first, at most [`REFRESH_KEYWORDS`]: what a
    /// refresh for the next memory version reads again.
    pub(super) recent: Vec<String>,
    /// `docs.len()` when the index was built (see [`SessionIndex::recorded_since_built`]).
    built_docs: usize,
}

impl SessionIndex {
    pub(super) fn new(version: i64) -> Self {
        SessionIndex {
            version,
            ..SessionIndex::default()
        }
    }

    pub(super) fn used(&mut self, words: &[String]) {
        self.recent.retain(|w| !words.contains(w));
        self.recent.extend(words.iter().cloned());
        let over = self.recent.len().saturating_sub(REFRESH_KEYWORDS);
        self.recent.drain(..over);
    }

    /// Marks the index as built now (by a refresh).
    pub(super) fn built(&mut self) {
        self.built_docs = self.docs.len();
    }

    /// Items recorded since the index was built: catching up adds every note again, and
    /// keywords' lists grow past their cap; a refresh rebuilds the index past a bound.
    pub(super) fn recorded_since_built(&self) -> usize {
        self.docs.len().saturating_sub(self.built_docs)
    }

    /// Records `docs` (every item matching `words`) under each of `words`.
    pub(super) fn add(&mut self, words: &[String], docs: Vec<KnowledgeDoc>) {
        let mut postings: Vec<Vec<(usize, u32)>> = vec![Vec::new(); words.len()];
        for doc in docs {
            let tf = term_frequencies(&doc.text, words);
            let at = self.record(doc);
            for (w, &n) in tf.iter().enumerate() {
                if n > 0 {
                    postings[w].push((at, n));
                }
            }
        }
        for (word, list) in words.iter().zip(postings) {
            self.postings.insert(word.clone(), list);
        }
    }

    /// Brings the index to `version` from `delta`, what changed since its archive mark.
    /// False when it cannot (built without statistics, or for another session under the
    /// same key): the caller starts over.
    pub(super) fn catch_up(&mut self, version: i64, delta: MemoryDelta) -> bool {
        let Some(mut stats) = self.stats else {
            return false;
        };
        if stats.session_id == 0 || stats.session_id != delta.session_id {
            return false;
        }
        // Notes are replaced whole: unlink the old ones.
        let docs = &self.docs;
        for list in self.postings.values_mut() {
            list.retain(|&(d, _)| docs[d].kind == SearchHitKind::Message);
        }
        self.by_id
            .retain(|(kind, _), _| *kind == SearchHitKind::Message);
        for kind in [SearchHitKind::Observation, SearchHitKind::Reflection] {
            let of_kind = delta.notes.iter().filter(|d| d.kind == kind);
            stats.items[kind.position()] = of_kind.clone().count() as i64;
            stats.tokens[kind.position()] = of_kind.map(|d| d.tokens).sum();
        }
        // Archived messages after the mark; those after the last counted one are new to the
        // statistics (one still queued for indexing comes again, see `Store::memory_delta`).
        let counted = stats.archive_counted;
        let (new_items, new_tokens) = delta
            .archived
            .iter()
            .filter(|(seq, _)| *seq > counted)
            .fold((0, 0), |(n, t), (_, d)| (n + 1, t + d.tokens));
        stats.items[0] += new_items;
        stats.tokens[0] += new_tokens;
        stats.archive_counted = counted.max(delta.archive_last);
        stats.archive_mark = delta.archive_mark;
        let archived = delta.archived.into_iter().map(|(_, d)| d);

        let words: HashMap<String, usize> = self
            .postings
            .keys()
            .enumerate()
            .map(|(i, w)| (w.clone(), i))
            .collect();
        let mut added: Vec<Vec<(usize, u32)>> = vec![Vec::new(); words.len()];
        for doc in archived.chain(delta.notes) {
            let counts = word_counts(&doc.text, &words);
            let at = self.record(doc);
            for (w, n) in counts {
                added[w].push((at, n));
            }
        }
        for (word, w) in &words {
            if let Some(list) = self.postings.get_mut(word) {
                // A keyword read after the mark may have recorded the item already.
                for (at, n) in std::mem::take(&mut added[*w]) {
                    if !list.iter().any(|&(d, _)| d == at) {
                        list.push((at, n));
                    }
                }
            }
        }
        self.stats = Some(stats);
        self.version = version;
        true
    }

    /// `doc`'s index in `docs`, recording it when new.
    fn record(&mut self, doc: KnowledgeDoc) -> usize {
        let id = (doc.kind, doc.item_id.clone());
        if let Some(&at) = self.by_id.get(&id) {
            return at;
        }
        self.docs.push(doc);
        self.by_id.insert(id, self.docs.len() - 1);
        self.docs.len() - 1
    }
}
