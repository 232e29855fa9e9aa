//! A text as the search indexes hold it: Chinese, Japanese, Thai, Lao, Khmer and Burmese
//! characters spaced apart (`store::unspaced`) and the marks inside words as their
//! stand-ins (`store::marks`). Messages and notes are indexed in this form, and a search's
//! words are looked for in it.
//!
//! Owns only text; `store::search_index`, `store::note_index`, `store::reindex_walk` and
//! `store::search_query` use it.

use std::borrow::Cow;

use super::marks::{has_kept_marks, keep_marks};
use super::unspaced::{has_set_apart, spaced};

/// Whether the index holds `text` other than as written.
pub(crate) fn needs_index_form(text: &str) -> bool {
    // ASCII, the common case, is ruled out a word at a time.
    !text.is_ascii() && (has_set_apart(text) || has_kept_marks(text))
}

/// `text` as the indexes hold it: borrowed exactly when that is `text` as written
/// ([`needs_index_form`] false), so a caller can decide and form in one pass.
pub(crate) fn index_form(text: &str) -> Cow<'_, str> {
    match spaced(text) {
        Cow::Borrowed(text) => keep_marks(text),
        // Spaced Chinese seldom has marks: kept without a second copy.
        Cow::Owned(spaced) if !has_kept_marks(&spaced) => Cow::Owned(spaced),
        Cow::Owned(spaced) => Cow::Owned(keep_marks(&spaced).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_is_spaced_hindi_keeps_its_marks_and_english_is_as_written() {
        assert_eq!(index_form("编程Rust"), "编 程 Rust");
        assert!(needs_index_form("हिन्दी"));
        assert_eq!(index_form("हिन्दी").chars().count(), "हिन्दी".chars().count());
        assert!(!needs_index_form("naïve café, 한국어"));
        assert!(matches!(index_form("plain words"), Cow::Borrowed(_)));
    }
}
