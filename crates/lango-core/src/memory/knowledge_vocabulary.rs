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
//! It may hold more words than the memory (an observation edited or a row deleted since):
//! a word it holds is read as before, so extra words cost a read, never a missed item. The
//! archive only grows at its end (compaction archives the oldest rows, ids increasing), so
//! it is read incrementally; when its row count says otherwise (a deletion, an import) it
//! is read again whole. Observations and reflections are few and edited in place: they are
//! read whole each time.

use std::collections::HashSet;

use crate::store::{index_words, Store, StoreResult};

/// The words of one session's memory at one version.
#[derive(Debug, Default, Clone)]
pub(crate) struct Vocabulary {
    version: i64,
    /// Archived messages read: the highest id, and how many rows there were.
    archive_through: i64,
    archive_rows: i64,
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
    /// newer than it only add words, which is safe.
    pub(crate) async fn update(
        previous: Option<Vocabulary>,
        store: &Store,
        key: &str,
        version: i64,
    ) -> StoreResult<Vocabulary> {
        let mut vocabulary = previous.unwrap_or_default();
        let texts = store
            .memory_texts_after(key, vocabulary.archive_through)
            .await?;
        let added = i64::try_from(texts.archive.len()).unwrap_or(i64::MAX);
        let texts = if vocabulary.archive_rows.saturating_add(added) == texts.archive_rows {
            texts
        } else {
            vocabulary = Vocabulary::default();
            store.memory_texts_after(key, 0).await?
        };
        for (id, text) in &texts.archive {
            index_words(text, &mut vocabulary.words);
            vocabulary.archive_through = vocabulary.archive_through.max(*id);
        }
        for note in &texts.notes {
            index_words(note, &mut vocabulary.words);
        }
        vocabulary.archive_rows = texts.archive_rows;
        vocabulary.version = version;
        Ok(vocabulary)
    }
}
