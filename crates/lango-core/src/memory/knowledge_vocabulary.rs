//! Which words a session's memory holds at all, so that retrieval reads SQLite on the send
//! path only for words that can match something.
//!
//! Most words of a new user message were never said before in the conversation's memory (a
//! number, a name, a new topic); without this, each such word cost a full-text query before
//! the model call (`make bench`: memory on / off first partial). The vocabulary is built off
//! the send path, when the engine refreshes retrieval after a memory cycle
//! (`KnowledgeIndex::refresh`), and is trusted only at the memory version it was built for:
//! any later change to the memory makes retrieval read as before until the next refresh.
//!
//! It may hold more words than the memory (an observation edited or deleted since): a word
//! it holds is read as before, so extra words cost a read, never a missed item. It is read
//! from the same change retrieval's cache catches up from (`Store::memory_delta`): the
//! messages archived since its last read (the archive only grows) and every note; a session
//! re-created under the same key (another row id) is read again whole.

use std::collections::HashSet;

use crate::store::{index_words, ReadOn, Store, StoreResult};

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
}
