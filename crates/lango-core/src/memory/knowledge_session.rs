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

use std::collections::{HashMap, HashSet};

use crate::store::{
    term_frequencies, word_counts, KnowledgeDoc, KnowledgeStats, MemoryDelta, SearchHitKind,
};

/// Keywords a refresh reads again at most: the session's most recently searched ones.
pub(super) const REFRESH_KEYWORDS: usize = 64;
/// Keywords a session's index keeps through a compaction at most; past it only the most
/// recently searched stay. Each keyword holds at most its newest 500 archived messages and
/// the notes holding it, so this bounds the cache of a very long conversation.
const KEYWORDS_KEPT: usize = 4_096;

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
    /// Each doc's id as a number (messages: newest = largest; notes: none, `i64::MAX`).
    numbers: Vec<i64>,
    /// Keyword → (index into `docs`, occurrences). Keywords with no item map to nothing.
    pub(super) postings: HashMap<String, Vec<(usize, u32)>>,
    /// Keywords whose list may hold a note: a catch-up unlinks the old notes from these
    /// only, not from every cached keyword's list.
    note_words: HashSet<String>,
    /// Searched keywords, least recently used first, at most [`REFRESH_KEYWORDS`]: what a
    /// refresh for the next memory version reads again.
    pub(super) recent: Vec<String>,
    /// `docs.len()` when the index was built or compacted (see
    /// [`SessionIndex::recorded_since_built`]).
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

    /// Forgets the items no keyword holds any more (replaced notes, messages past a
    /// keyword's cap) and, past [`KEYWORDS_KEPT`] keywords, all but the recently searched
    /// ones. In memory, no read: the kept keywords' lists are exactly what catching up made
    /// them, so the words a conversation keeps coming back to stay cached (a rebuild read
    /// the 64 recent keywords again and dropped the rest, which the next message using one
    /// of them read again on the send path).
    pub(super) fn compact(&mut self) {
        if self.postings.len() > KEYWORDS_KEPT {
            let recent = &self.recent;
            self.postings.retain(|word, _| recent.contains(word));
        }
        let mut held = vec![false; self.docs.len()];
        for list in self.postings.values() {
            for &(d, _) in list {
                held[d] = true;
            }
        }
        // Old position → new one; only held items get one, and only they are referenced.
        let mut moved_to = vec![usize::MAX; self.docs.len()];
        let old = std::mem::take(&mut self.docs)
            .into_iter()
            .zip(std::mem::take(&mut self.numbers));
        self.by_id.clear();
        for (d, (doc, number)) in old.enumerate() {
            if held[d] {
                moved_to[d] = self.docs.len();
                self.by_id
                    .insert((doc.kind, doc.item_id.clone()), self.docs.len());
                self.docs.push(doc);
                self.numbers.push(number);
            }
        }
        for list in self.postings.values_mut() {
            for (d, _) in list.iter_mut() {
                *d = moved_to[*d];
            }
        }
        self.built();
    }

    /// The id of item `d` as a number: messages' ids (newest = largest); None for notes.
    pub(super) fn number(&self, d: usize) -> Option<i64> {
        self.numbers.get(d).copied().filter(|&n| n != i64::MAX)
    }

    /// Items recorded since the index was built or compacted: catching up records every
    /// note again and keeps the messages it dropped from keywords' lists; a refresh
    /// compacts the index past a bound.
    pub(super) fn recorded_since_built(&self) -> usize {
        self.docs.len().saturating_sub(self.built_docs)
    }

    /// Records `docs` (every item matching `words`) under each of `words`.
    pub(super) fn add(&mut self, words: &[String], docs: Vec<KnowledgeDoc>) {
        let mut postings: Vec<Vec<(usize, u32)>> = vec![Vec::new(); words.len()];
        for doc in docs {
            let tf = term_frequencies(&doc.text, words);
            let is_note = doc.kind != SearchHitKind::Message;
            let (at, _) = self.record(doc);
            for (w, &n) in tf.iter().enumerate() {
                if n > 0 {
                    postings[w].push((at, n));
                    if is_note {
                        self.note_words.insert(words[w].clone());
                    }
                }
            }
        }
        for (word, list) in words.iter().zip(postings) {
            self.postings.insert(word.clone(), list);
        }
    }

    /// Brings the index to `version` from `delta`, what changed since its archive mark,
    /// keeping each keyword's newest `archived_per_keyword` archived messages. False when
    /// it cannot (built without statistics, or for another session under the same key):
    /// the caller starts over.
    pub(super) fn catch_up(
        &mut self,
        version: i64,
        delta: MemoryDelta,
        archived_per_keyword: usize,
    ) -> bool {
        let Some(mut stats) = self.stats else {
            return false;
        };
        if stats.session_id == 0 || stats.session_id != delta.session_id {
            return false;
        }
        // Notes are replaced whole: unlink the old ones. Only from the lists holding one, and
        // each new item is looked up by its own words: a catch-up costs what changed, not
        // the number of cached keywords (every one of them was walked, and its word copied,
        // at each catch-up on the send path: 0.3 ms with 100 keywords, 1.7 ms with 2,000 in
        // `make soak`, and a long conversation keeps up to KEYWORDS_KEPT).
        let docs = &self.docs;
        for word in std::mem::take(&mut self.note_words) {
            if let Some(list) = self.postings.get_mut(&word) {
                list.retain(|&(d, _)| docs[d].kind == SearchHitKind::Message);
            }
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

        // Keywords that gained archived messages: the only lists that can pass the cap.
        let mut grown: HashSet<String> = HashSet::new();
        for doc in archived.chain(delta.notes) {
            let is_note = doc.kind != SearchHitKind::Message;
            // Only cached keywords can gain the item: the others are not counted at all.
            let counts = word_counts(&doc.text, &|word| self.postings.contains_key(word));
            let (at, new) = self.record(doc);
            for (word, n) in counts {
                let Some(list) = self.postings.get_mut(&word) else {
                    continue;
                };
                // A keyword read after the mark may have recorded the item already (an
                // item recorded just now is in no list yet).
                if !new && list.iter().any(|&(d, _)| d == at) {
                    continue;
                }
                list.push((at, n));
                if is_note {
                    self.note_words.insert(word);
                } else {
                    grown.insert(word);
                }
            }
        }
        // Without this a common word's list grew with the conversation until a refresh
        // rebuilt the index, and a rebuild (~50 ms, on the background connection) never
        // lands while model calls come faster than that — an agent's tool steps, `make
        // soak` — so ranking grew with every turn.
        let numbers = &self.numbers;
        for word in &grown {
            if let Some(list) = self.postings.get_mut(word) {
                keep_newest_messages(list, numbers, archived_per_keyword);
            }
        }
        self.stats = Some(stats);
        self.version = version;
        true
    }

    /// `doc`'s index in `docs`, recording it when new; and whether it is.
    fn record(&mut self, doc: KnowledgeDoc) -> (usize, bool) {
        let id = (doc.kind, doc.item_id.clone());
        if let Some(&at) = self.by_id.get(&id) {
            return (at, false);
        }
        let number = match doc.kind {
            SearchHitKind::Message => doc.item_id.parse().unwrap_or(i64::MAX),
            _ => i64::MAX,
        };
        self.docs.push(doc);
        self.numbers.push(number);
        self.by_id.insert(id, self.docs.len() - 1);
        (self.docs.len() - 1, true)
    }
}

/// Drops a keyword's oldest archived messages beyond `cap` (message ids grow with time;
/// notes, numbered `i64::MAX`, always stay). The order of `list` does not matter.
fn keep_newest_messages(list: &mut Vec<(usize, u32)>, numbers: &[i64], cap: usize) {
    // Counted first: most lists are under the cap, and this runs for every cached keyword
    // at every catch-up.
    let messages = list
        .iter()
        .filter(|&&(d, _)| numbers[d] != i64::MAX)
        .count();
    if messages <= cap {
        return;
    }
    let mut ids: Vec<i64> = list
        .iter()
        .map(|&(d, _)| numbers[d])
        .filter(|&n| n != i64::MAX)
        .collect();
    let excess = messages - cap;
    let (_, &mut newest_dropped, _) = ids.select_nth_unstable(excess - 1);
    list.retain(|&(d, _)| numbers[d] > newest_dropped);
}

#[cfg(test)]
mod tests {
    use super::{keep_newest_messages, SessionIndex};
    use crate::store::{KnowledgeDoc, KnowledgeStats, MemoryDelta, SearchHitKind};

    fn message(id: i64, text: &str) -> KnowledgeDoc {
        KnowledgeDoc {
            kind: SearchHitKind::Message,
            item_id: id.to_string(),
            text: text.to_owned(),
            tokens: 4,
        }
    }

    /// Session 7's index at version 1, `turn` and `quokka` read from `archived`.
    fn index_of(archived: Vec<KnowledgeDoc>) -> SessionIndex {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            session_id: 7,
            ..KnowledgeStats::default()
        });
        index.add(&["turn".to_owned(), "quokka".to_owned()], archived);
        index
    }

    /// The ids of the items `word` holds, sorted.
    fn held(index: &SessionIndex, word: &str) -> Vec<String> {
        let mut ids: Vec<String> = index.postings[word]
            .iter()
            .map(|&(d, _)| index.docs[d].item_id.clone())
            .collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn catching_up_keeps_a_common_words_newest_archived_messages_only() {
        let mut index = index_of((1..=5).map(|id| message(id, "turn")).collect());
        // A memory cycle archived five more turns, one of them about a quokka.
        let delta = MemoryDelta {
            session_id: 7,
            archive_mark: 10,
            archive_last: 10,
            archived: (6..=10)
                .map(|id| {
                    (
                        id,
                        message(id, if id == 6 { "turn quokka" } else { "turn" }),
                    )
                })
                .collect(),
            notes: Vec::new(),
        };
        assert!(index.catch_up(2, delta, 4));
        assert_eq!(
            held(&index, "turn"),
            ["10", "7", "8", "9"],
            "the newest four"
        );
        assert_eq!(held(&index, "quokka"), ["6"], "a rare word keeps its item");
        assert_eq!(index.version, 2);
    }

    fn observation(id: &str, text: &str) -> KnowledgeDoc {
        KnowledgeDoc {
            kind: SearchHitKind::Observation,
            item_id: id.to_owned(),
            text: text.to_owned(),
            tokens: 6,
        }
    }

    #[test]
    fn catching_up_replaces_the_notes_in_every_keyword_that_held_one() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            session_id: 7,
            ..KnowledgeStats::default()
        });
        index.add(
            &[
                "quokka".to_owned(),
                "tiles".to_owned(),
                "plumber".to_owned(),
            ],
            vec![
                message(1, "a quokka on the tiles"),
                observation("obs-1", "The user saw a quokka; tiles arrive Tuesday."),
            ],
        );
        assert_eq!(held(&index, "quokka"), ["1", "obs-1"]);
        // The memory cycle rewrote its notes: obs-1 is gone, obs-2 says something else.
        let delta = MemoryDelta {
            session_id: 7,
            archive_mark: 2,
            archive_last: 2,
            archived: vec![(2, message(2, "the plumber"))],
            notes: vec![observation(
                "obs-2",
                "The plumber comes Thursday; the tiles too.",
            )],
        };
        assert!(index.catch_up(2, delta, 500));
        assert_eq!(held(&index, "quokka"), ["1"], "the old note left its lists");
        assert_eq!(held(&index, "tiles"), ["1", "obs-2"]);
        assert_eq!(held(&index, "plumber"), ["2", "obs-2"]);

        // And the next catch-up replaces obs-2 wherever it was linked.
        let delta = MemoryDelta {
            session_id: 7,
            archive_mark: 2,
            archive_last: 2,
            archived: Vec::new(),
            notes: vec![observation("obs-3", "Nothing about any of it.")],
        };
        assert!(index.catch_up(3, delta, 500));
        assert_eq!(
            (held(&index, "tiles"), held(&index, "plumber")),
            (vec!["1".to_owned()], vec!["2".to_owned()])
        );
    }

    #[test]
    fn compacting_forgets_unheld_items_and_keeps_every_keywords_items() {
        let first = (1..=5).map(|id| message(id, if id <= 2 { "turn quokka" } else { "turn" }));
        let mut index = index_of(first.collect());
        let delta = MemoryDelta {
            session_id: 7,
            archive_mark: 8,
            archive_last: 8,
            archived: (6..=8).map(|id| (id, message(id, "turn"))).collect(),
            notes: Vec::new(),
        };
        assert!(index.catch_up(2, delta, 4));
        let (turn, quokka) = (held(&index, "turn"), held(&index, "quokka"));
        assert_eq!(turn, ["5", "6", "7", "8"]);
        assert_eq!(
            index.docs.len(),
            8,
            "the dropped messages are still recorded"
        );

        index.compact();
        assert_eq!(
            (held(&index, "turn"), held(&index, "quokka")),
            (turn, quokka)
        );
        let mut recorded: Vec<&str> = index.docs.iter().map(|d| d.item_id.as_str()).collect();
        recorded.sort_unstable();
        assert_eq!(
            recorded,
            ["1", "2", "5", "6", "7", "8"],
            "3 and 4: no keyword holds them"
        );
        assert_eq!(index.recorded_since_built(), 0);

        // Read again for another keyword: a kept item is not recorded twice.
        index.add(&["turn".to_owned()], vec![message(1, "turn quokka")]);
        assert_eq!(index.docs.len(), 6);
    }

    #[test]
    fn a_keyword_keeps_its_newest_messages_and_every_note() {
        // docs 0..6: messages numbered 10, 50, 30, 20, 40; doc 5 a note.
        let numbers = [10, 50, 30, 20, 40, i64::MAX];
        let mut list: Vec<(usize, u32)> = (0..6).map(|d| (d, 1)).collect();
        keep_newest_messages(&mut list, &numbers, 2);
        let mut kept: Vec<usize> = list.iter().map(|&(d, _)| d).collect();
        kept.sort_unstable();
        assert_eq!(kept, [1, 4, 5], "messages 50 and 40, and the note");

        let mut short: Vec<(usize, u32)> = vec![(0, 3), (5, 1)];
        keep_newest_messages(&mut short, &numbers, 2);
        assert_eq!(short, [(0, 3), (5, 1)], "under the cap: unchanged");
    }
}
