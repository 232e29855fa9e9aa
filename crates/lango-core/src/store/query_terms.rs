//! What a user's search matches in a text, for ranking and snippets in Rust: the typed
//! words' tokens, the word being typed as a prefix, and which tokens must stand in a row.
//!
//! Owns only text; `store::search_query` makes the terms, `store::search_rank` and
//! `store::snippet` match them.

use super::hangul::in_range;
use super::tokens::{fold, search_tokens, word_index, Token};

/// What a user's search matches in a text, for ranking and snippets in Rust: whole `words`
/// (folded, see [`fold`]) and tokens starting with `prefix` (folded; the word being typed).
#[derive(Debug, Clone, Default)]
pub(crate) struct QueryTerms {
    pub words: Vec<String>,
    pub prefix: Option<String>,
    /// The terms of each typed word, as ranges over them (the prefix is term `words.len()`).
    /// A typed word of several tokens ("编程", "ภาษา", "e-mail") matches them only in a
    /// row, as the index's phrase does: a snippet marks only such runs.
    pub phrases: Vec<std::ops::Range<usize>>,
    /// When the prefix ends in a Korean syllable still being composed: the words it may
    /// become (`store::hangul`), matched instead of the prefix.
    pub prefix_range: Option<(String, String)>,
}

impl QueryTerms {
    /// How many terms: the words, and the prefix as one more.
    pub fn count(&self) -> usize {
        self.words.len() + usize::from(self.prefix.is_some())
    }

    /// Whether `token` is term `term` (the prefix is term `words.len()`).
    fn is_term(&self, token: &str, term: usize) -> bool {
        match self.words.get(term) {
            Some(word) => word_index(token, std::slice::from_ref(word)).is_some(),
            None => term == self.words.len() && self.term_of(token) == Some(term),
        }
    }

    /// Which term `token` is (the prefix is term `words.len()`).
    pub(super) fn term_of(&self, token: &str) -> Option<usize> {
        word_index(token, &self.words).or_else(|| {
            let prefix = self.prefix.as_deref()?;
            let matches = if let Some(range) = &self.prefix_range {
                in_range(&fold(token), range)
            } else if token.is_ascii() {
                token.len() >= prefix.len() && token[..prefix.len()].eq_ignore_ascii_case(prefix)
            } else {
                fold(token).starts_with(prefix)
            };
            matches.then_some(self.words.len())
        })
    }
}

/// How often each term of `terms` occurs in `text`, and how many tokens `text` has.
pub(crate) fn term_counts(text: &str, terms: &QueryTerms) -> (Vec<u32>, usize) {
    let mut counts = vec![0u32; terms.count()];
    let tokens = search_tokens(text, &|t| terms.term_of(t));
    for t in &tokens {
        if let Some(w) = t.word {
            counts[w] += 1;
        }
    }
    (counts, tokens.len())
}

/// Unmarks the tokens that match a term of a typed word of several tokens only outside a
/// run of all of them: searching "ภาษา" (ภ า ษ า) must not mark every า of a Thai text.
pub(super) fn whole_phrases_only(text: &str, tokens: &mut [Token], terms: &QueryTerms) {
    let (long, single): (Vec<_>, Vec<_>) = terms.phrases.iter().partition(|p| p.len() > 1);
    if long.is_empty() {
        return;
    }
    let token = |t: &Token| &text[t.start..t.end];
    let in_long = |term: usize| long.iter().any(|p| p.contains(&term));
    let mut keep = vec![false; tokens.len()];
    for i in 0..tokens.len() {
        let Some(term) = tokens[i].word else {
            continue;
        };
        // A term of no longer word, or the whole of a one-token typed word.
        if !in_long(term)
            || single
                .iter()
                .any(|p| terms.is_term(token(&tokens[i]), p.start))
        {
            keep[i] = true;
        }
        // Each longer typed word whose tokens stand in a row from here.
        for phrase in &long {
            let Some(run) = tokens.get(i..i + phrase.len()) else {
                continue;
            };
            if run
                .iter()
                .zip((*phrase).clone())
                .all(|(t, term)| terms.is_term(token(t), term))
            {
                keep[i..i + phrase.len()].fill(true);
            }
        }
    }
    for (t, keep) in tokens.iter_mut().zip(keep) {
        if !keep {
            t.word = None;
        }
    }
}
