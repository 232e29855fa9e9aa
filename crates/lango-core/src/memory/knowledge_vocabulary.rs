//! Which words a session's memory holds at all, so that retrieval reads SQLite on the send
//! path only for words that can match something.
//!
//! Most words of a new user message were never said before in the conversation's memory (a
//! number, a name, a new topic); without this, each such word cost a full-text query before
//! the model call (`make bench`: memory on / off first partial). The vocabulary is built off
//! the send path, when the engine refreshes retrieval after a memory cycle
//! (`KnowledgeIndex::refresh`), and is trusted only at the memory version it was built for:
//! a later change to the memory makes retrieval read as before until the next refresh, or
//! until the cache catches up on the send path from a change that covers what the
//! vocabulary lacks (`Vocabulary::catch_up`).
//!
//! It may hold more words than the memory (an observation edited or deleted since): a word
//! it holds is read as before, so extra words cost a read, never a missed item. It is read
//! from the same change retrieval's cache catches up from (`Store::memory_delta`): the
//! messages archived since its last read (the archive only grows) and every note; a session
//! re-created under the same key (another row id) is read again whole.

use std::collections::HashSet;

use crate::store::{index_words, MemoryDelta, ReadOn, Store, StoreResult};

/// The words of one session's memory at one version.
#[derive(Debug, Default, Clone)]
pub(crate) struct Vocabulary {
    version: i64,
    /// The session's row id, and the last archived seq read.
    session_id: i64,
    archive_last: i64,
    words: HashSet<String>,
}

impl Vocabulary {
    /// Built for `version`.
    pub(crate) fn is_at(&self, version: i64) -> bool {
        self.version == version
    }

    /// True when no memory item of the session holds `word` (folded) at `version`.
    pub(crate) fn rules_out(&self, version: i64, word: &str) -> bool {
        self.version == version && !self.words.contains(word)
    }

    /// The words the memory holds (folded), in no particular order.
    pub(crate) fn words(&self) -> impl Iterator<Item = &String> {
        self.words.iter()
    }

    /// `previous` (if any) brought to `version`, the version read before the texts: texts
    /// newer than it only add words, which is safe. Off the send path.
    pub(crate) async fn update(
        previous: Option<Vocabulary>,
        store: &Store,
        key: &str,
        version: i64,
    ) -> StoreResult<Vocabulary> {
        let mut vocabulary = previous.unwrap_or_default();
        let mut delta = store
            .memory_delta(key, vocabulary.archive_last, ReadOn::Background)
            .await?;
        if vocabulary.session_id != 0 && vocabulary.session_id != delta.session_id {
            vocabulary = Vocabulary::default();
            delta = store.memory_delta(key, 0, ReadOn::Background).await?;
        }
        for (_, doc) in &delta.archived {
            index_words(&doc.text, &mut vocabulary.words);
        }
        for note in &delta.notes {
            index_words(&note.text, &mut vocabulary.words);
        }
        vocabulary.session_id = delta.session_id;
        vocabulary.archive_last = delta.archive_last;
        vocabulary.version = version;
        Ok(vocabulary)
    }

    /// Brings the vocabulary to `version` from `delta` — the change since archive seq
    /// `since` that retrieval's cache read on the send path to catch up, `version` read
    /// before it — when that covers every message archived after the vocabulary's last
    /// read: otherwise it stays at its version (and retrieval reads as before). Saves a read
    /// per new word of a message sent before the refresh after the last memory cycle has
    /// finished (an agent's tool steps, `make soak`).
    pub(crate) fn catch_up(&mut self, version: i64, since: i64, delta: &MemoryDelta) -> bool {
        let covered = self.session_id != 0
            && self.session_id == delta.session_id
            && since <= self.archive_last;
        if !covered || version <= self.version {
            return false;
        }
        for (_, doc) in &delta.archived {
            index_words(&doc.text, &mut self.words);
        }
        for note in &delta.notes {
            index_words(&note.text, &mut self.words);
        }
        self.archive_last = self.archive_last.max(delta.archive_last);
        self.version = version;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Vocabulary;
    use crate::store::{KnowledgeDoc, MemoryDelta, SearchHitKind};

    fn archived(seq: i64, text: &str) -> (i64, KnowledgeDoc) {
        let doc = KnowledgeDoc {
            kind: SearchHitKind::Message,
            item_id: seq.to_string(),
            text: text.to_owned(),
            tokens: 2,
        };
        (seq, doc)
    }

    #[test]
    fn the_change_the_cache_caught_up_from_brings_the_vocabulary_along_when_it_covers_it() {
        let mut vocabulary = Vocabulary {
            version: 1,
            session_id: 7,
            archive_last: 10,
            words: ["tiles".to_owned()].into(),
        };
        let delta = MemoryDelta {
            session_id: 7,
            archive_mark: 12,
            archive_last: 12,
            archived: vec![archived(11, "Plumber Thursday"), archived(12, "paint")],
            notes: Vec::new(),
        };
        // Read since seq 8: covers everything after the vocabulary's last read (10).
        assert!(vocabulary.catch_up(2, 8, &delta));
        assert!(!vocabulary.rules_out(2, "plumber") && !vocabulary.rules_out(2, "tiles"));
        assert!(
            vocabulary.rules_out(2, "1992"),
            "a word nothing holds: no read"
        );

        // Read since seq 14, past its last read (12): seqs 13 and 14 would be missing.
        let gap = MemoryDelta {
            archive_last: 20,
            archived: vec![archived(20, "wiring")],
            ..delta
        };
        assert!(!vocabulary.catch_up(3, 14, &gap));
        assert!(
            !vocabulary.rules_out(3, "1992"),
            "not trusted at a version it missed"
        );
    }
}
