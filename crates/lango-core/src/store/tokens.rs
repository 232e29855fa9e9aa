//! A text's words as FTS5's `unicode61 remove_diacritics 2` tokenizer sees them, with the
//! index's own rules (`store::marks`, `store::unspaced`), folded as it folds them: the
//! tokens that ranking, snippets, memory retrieval's statistics and the typed word's
//! expansions count and compare.
//!
//! Owns only text; it must not touch the database.

use unicode_normalization::UnicodeNormalization;

use super::marks::{
    folds_away, has_kept_marks, is_latin_accent, is_mark, is_word_char, keep_marks,
};
use super::unspaced::{has_set_apart, is_set_apart};

/// One token of `text`: its byte range and whether it is one of the query words.
pub(super) struct Token {
    pub(super) start: usize,
    pub(super) end: usize,
    /// Index of the query word it equals, if any.
    pub(super) word: Option<usize>,
}

/// Lowercase without diacritics, as FTS5's `unicode61 remove_diacritics 2` compares words:
/// a Latin letter loses its accents (É → e), Arabic and Hebrew their vowel points (which the
/// index drops, `store::marks`), every other script is only lowercased. The
/// words here go back into FTS5 queries (the word being typed, expanded: `store::search`),
/// so they must be what the index holds: decomposed, Hangul would turn into its jamo and
/// Japanese で into て — words the index never holds.
pub(crate) fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| !folds_away(*c))
        .map(|c| latin_base(c).unwrap_or(c))
        .collect()
}

/// The ASCII letter a Latin letter with accents is made of (é → e, ệ → e); None for any
/// other character (FTS5's table of diacritics maps to ASCII letters only).
fn latin_base(c: char) -> Option<char> {
    if c.is_ascii() {
        return None;
    }
    let mut parts = std::iter::once(c).nfd();
    let base = parts.next()?;
    (base.is_ascii_alphabetic() && parts.all(is_latin_accent)).then_some(base)
}

/// Which of `words` (folded, see [`fold`]) `token` is.
pub(super) fn word_index(token: &str, words: &[String]) -> Option<usize> {
    if token.is_ascii() {
        // The common case, without allocating.
        words
            .iter()
            .position(|w| w.len() == token.len() && w.eq_ignore_ascii_case(token))
    } else {
        let folded = fold(token);
        words.iter().position(|w| *w == folded)
    }
}

/// Splits like FTS5's `unicode61` tokenizer (runs of letters and digits, with the marks on
/// them as the indexes keep them) and compares with `words` (folded) ignoring case and
/// diacritics; a run of Chinese or Thai matches a word it holds (memory retrieval's pairs,
/// [`retrieval_words`]). For plain snippet windows.
pub(super) fn tokens(text: &str, words: &[String]) -> Vec<Token> {
    tokens_matching(text, &|t| {
        word_index(t, words).or_else(|| {
            // A word of memory retrieval inside a run (`retrieval_words`): the run holds it.
            if !has_set_apart(t) {
                return None;
            }
            let folded = fold(t);
            words
                .iter()
                .position(|w| has_set_apart(w) && folded.contains(w.as_str()))
        })
    })
}

/// [`tokens`] with any matcher: which query word (by index) a token is.
pub(super) fn tokens_matching(text: &str, matcher: &dyn Fn(&str) -> Option<usize>) -> Vec<Token> {
    split_tokens(text, matcher, false)
}

/// The tokens of `text` as the messages' search index holds them: each Chinese, Japanese or
/// Thai character a token of its own (`store::unspaced`). For the user's search; memory
/// retrieval counts pairs of such characters instead ([`retrieval_words`]).
pub(super) fn search_tokens(text: &str, matcher: &dyn Fn(&str) -> Option<usize>) -> Vec<Token> {
    split_tokens(text, matcher, true)
}

/// Runs of letters and digits with the marks on them (`store::marks`), each character
/// [`is_set_apart`] (with its marks) apart when `set_apart`.
fn split_tokens(
    text: &str,
    matcher: &dyn Fn(&str) -> Option<usize>,
    set_apart: bool,
) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = None;
    // The open token is one such character: anything but a mark ends it.
    let mut single = false;
    let push = |s: usize, e: usize, out: &mut Vec<Token>| {
        out.push(Token {
            start: s,
            end: e,
            word: matcher(&text[s..e]),
        });
    };
    for (i, c) in text.char_indices() {
        let apart = set_apart && is_set_apart(c);
        if apart || (single && !is_mark(c)) {
            if let Some(s) = start.take() {
                push(s, i, &mut out);
            }
            single = false;
        }
        if apart {
            start = Some(i);
            single = true;
        } else if is_word_char(c, start.is_some()) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            push(s, i, &mut out);
        }
    }
    if let Some(s) = start {
        push(s, text.len(), &mut out);
    }
    out
}

/// How often each of `words` (folded) occurs in `text` as one of its [`retrieval_words`].
pub(crate) fn term_frequencies(text: &str, words: &[String]) -> Vec<u32> {
    let mut counts = vec![0u32; words.len()];
    for word in retrieval_words(text) {
        if let Some(w) = word_index(word, words) {
            counts[w] += 1;
        }
    }
    counts
}

/// How often each of the [`retrieval_words`] of `text` (folded) that `wanted` accepts
/// occurs: one pass over the text, looked up in whatever vocabulary the caller holds. Only
/// wanted words are counted, so a long text with thousands of distinct words costs one
/// pass, not a list per word.
pub(crate) fn word_counts(
    text: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> std::collections::HashMap<String, u32> {
    let mut counts = std::collections::HashMap::new();
    for word in retrieval_words(text) {
        let word = fold(word);
        if wanted(&word) {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    counts
}

/// The [`retrieval_words`] of `text` (folded), into `words`: the memory's vocabulary.
pub(crate) fn index_words(text: &str, words: &mut std::collections::HashSet<String>) {
    for word in retrieval_words(text) {
        words.insert(fold(word));
    }
}

/// The words of `text` as the messages' search index holds them (folded, each Chinese,
/// Japanese or Thai character apart: "学习Rust" holds "rust"; marks as their stand-ins,
/// `store::marks`), into `words`: what the word being typed expands into (migration 0009).
pub(crate) fn search_index_words(text: &str, words: &mut std::collections::HashSet<String>) {
    for t in search_tokens(text, &|_| None) {
        let word = fold(&text[t.start..t.end]);
        if has_kept_marks(&word) {
            words.insert(keep_marks(&word).into_owned());
        } else {
            words.insert(word);
        }
    }
}

/// The words of `text` as the messages' search index splits it (each Chinese, Japanese or Thai
/// character apart), folded but as written: what ranking and snippets compare.
pub(crate) fn search_words(text: &str) -> Vec<String> {
    search_tokens(text, &|_| None)
        .iter()
        .map(|t| fold(&text[t.start..t.end]))
        .collect()
}

/// The run's characters `units` (byte ranges in `word`) into `out` as neighbouring pairs.
fn flush<'a>(word: &'a str, units: &mut Vec<(usize, usize)>, out: &mut Vec<&'a str>) {
    match units.as_slice() {
        [] => {}
        [(s, e)] => out.push(&word[*s..*e]),
        pairs => out.extend(pairs.windows(2).map(|p| &word[p[0].0..p[1].1])),
    }
    units.clear();
}

/// The words memory retrieval counts and looks for in `text`: its words as the index splits
/// them, but a run of Chinese, Japanese or Thai as each two neighbouring characters of it
/// (with their marks; one character alone when the run has one), so a word inside a run is
/// found: "拉面" in "我喜欢吃拉面" (我喜 喜欢 欢吃 吃拉 拉面), as the search index finds it.
/// Slices of `text`, overlapping in runs, not folded.
pub(crate) fn retrieval_words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for t in tokens_matching(text, &|_| None) {
        let word = &text[t.start..t.end];
        if !has_set_apart(word) {
            out.push(word);
            continue;
        }
        // The run's characters (each with its marks), and the other words touching them.
        let mut units: Vec<(usize, usize)> = Vec::new();
        let mut other: Option<usize> = None;
        for (i, c) in word.char_indices() {
            let end = i + c.len_utf8();
            if is_set_apart(c) {
                if let Some(s) = other.take() {
                    out.push(&word[s..i]);
                }
                units.push((i, end));
            } else if let (true, None, Some(last)) = (is_mark(c), other, units.last_mut()) {
                last.1 = end;
            } else {
                flush(word, &mut units, &mut out);
                other.get_or_insert(i);
            }
        }
        flush(word, &mut units, &mut out);
        if let Some(s) = other {
            out.push(&word[s..]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        tokens_matching(text, &|_| None)
            .iter()
            .map(|t| &text[t.start..t.end])
            .collect()
    }

    #[test]
    fn a_word_keeps_its_vowel_marks_and_a_virama() {
        assert_eq!(words("मुझे हिन्दी में, please"), ["मुझे", "हिन्दी", "में", "please"]);
        assert_eq!(words("தமிழ் மொழி"), ["தமிழ்", "மொழி"]);
        // A mark after a space or a symbol is no word.
        assert_eq!(words("a \u{94d} b"), ["a", "b"]);
    }

    #[test]
    fn retrieval_takes_a_run_of_chinese_or_thai_as_its_neighbouring_pairs() {
        assert_eq!(
            retrieval_words("我喜欢吃拉面"),
            ["我喜", "喜欢", "欢吃", "吃拉", "拉面"]
        );
        assert_eq!(
            retrieval_words("学习Rust 和 cargo"),
            ["学习", "Rust", "和", "cargo"]
        );
        assert_eq!(retrieval_words("สวัสดี"), ["สวั", "วัส", "สดี"]);
        assert_eq!(
            retrieval_words("हिन्दी and plain words"),
            ["हिन्दी", "and", "plain", "words"]
        );
    }
}
