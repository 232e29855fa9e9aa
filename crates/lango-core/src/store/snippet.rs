//! A text's words as FTS5's `unicode61 remove_diacritics 2` tokenizer sees them, and search
//! snippets made from them the way FTS5's `snippet()` makes them: the window of a few tokens
//! that holds the most distinct query words, `…` where text was cut.
//!
//! Why in Rust: knowledge retrieval runs before every model call and ranks in Rust
//! (`memory::knowledge_index` counts the query words of each item here), and FTS5's
//! `snippet()` would run for every matching row before the ranking keeps the best few.
//!
//! Owns only text; it must not touch the database.

use unicode_normalization::UnicodeNormalization;

use super::marks::{has_kept_marks, is_mark, is_vowel_point, is_word_char, keep_marks};
use super::unspaced::is_set_apart;

/// Tokens per snippet (what the SQL searches pass to `snippet()`).
pub(crate) const SNIPPET_TOKENS: usize = 12;

/// One token of `text`: its byte range and whether it is one of the query words.
struct Token {
    start: usize,
    end: usize,
    /// Index of the query word it equals, if any.
    word: Option<usize>,
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
        .filter(|c| !is_diacritic(*c) && !is_vowel_point(*c))
        .map(|c| latin_base(c).unwrap_or(c))
        .collect()
}

/// A combining accent (U+0300–U+036F): dropped from a word, as FTS5 drops it.
fn is_diacritic(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// The ASCII letter a Latin letter with accents is made of (é → e, ệ → e); None for any
/// other character (FTS5's table of diacritics maps to ASCII letters only).
fn latin_base(c: char) -> Option<char> {
    if c.is_ascii() {
        return None;
    }
    let mut parts = std::iter::once(c).nfd();
    let base = parts.next()?;
    (base.is_ascii_alphabetic() && parts.all(is_diacritic)).then_some(base)
}

/// Which of `words` (folded, see [`fold`]) `token` is.
fn word_index(token: &str, words: &[String]) -> Option<usize> {
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
/// them as the indexes keep them) and compares with
/// `words` (folded) ignoring case and diacritics.
fn tokens(text: &str, words: &[String]) -> Vec<Token> {
    tokens_matching(text, &|t| word_index(t, words))
}

/// [`tokens`] with any matcher: which query word (by index) a token is.
fn tokens_matching(text: &str, matcher: &dyn Fn(&str) -> Option<usize>) -> Vec<Token> {
    split_tokens(text, matcher, false)
}

/// The tokens of `text` as the messages' search index holds them: each Chinese, Japanese or Thai
/// character a token of its own (`store::unspaced`). For the user's search; memory retrieval
/// keeps whole runs (its keywords are runs).
fn search_tokens(text: &str, matcher: &dyn Fn(&str) -> Option<usize>) -> Vec<Token> {
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

/// How good the window `tokens[start..start + n]` is: distinct words first, then hits.
fn score(tokens: &[Token], start: usize, n: usize) -> (usize, usize) {
    let mut seen: Vec<usize> = Vec::new();
    let mut hits = 0;
    for t in tokens.iter().skip(start).take(n) {
        if let Some(w) = t.word {
            hits += 1;
            if !seen.contains(&w) {
                seen.push(w);
            }
        }
    }
    (seen.len(), hits)
}

/// How often each of `words` (folded) occurs in `text` as a whole token.
pub(crate) fn term_frequencies(text: &str, words: &[String]) -> Vec<u32> {
    let mut counts = vec![0u32; words.len()];
    for t in tokens(text, words) {
        if let Some(w) = t.word {
            counts[w] += 1;
        }
    }
    counts
}

/// How often each word of `text` (folded) that `wanted` accepts occurs: one pass over the
/// text, looked up in whatever vocabulary the caller holds. Only wanted words are counted, so
/// a long text with thousands of distinct words costs one pass, not a list per word.
pub(crate) fn word_counts(
    text: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> std::collections::HashMap<String, u32> {
    let mut counts = std::collections::HashMap::new();
    for t in tokens_matching(text, &|_| None) {
        let word = fold(&text[t.start..t.end]);
        if wanted(&word) {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    counts
}

/// The best window of `n` tokens of `text` for `words`, `…` at a cut. A text of at most `n`
/// tokens is returned whole.
pub(crate) fn plain_snippet(text: &str, words: &[String], n: usize) -> String {
    cut(text, words, n, false)
}

/// [`plain_snippet`] with the matches in `[` `]`: how the tests see which words matched.
#[cfg(test)]
fn snippet(text: &str, words: &[String], n: usize) -> String {
    cut(text, words, n, true)
}

/// The words of `text` as the search index holds them (folded), into `words`.
pub(crate) fn index_words(text: &str, words: &mut std::collections::HashSet<String>) {
    for t in tokens_matching(text, &|_| None) {
        words.insert(fold(&text[t.start..t.end]));
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
    fn term_of(&self, token: &str) -> Option<usize> {
        word_index(token, &self.words).or_else(|| {
            let prefix = self.prefix.as_deref()?;
            let matches = if token.is_ascii() {
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

/// The best window of `n` tokens of `text` with the matches of `terms` in `[` `]`. `text`
/// must hold no brackets of its own (`plain_text` turns them into parentheses), so every
/// `[` `]` is a marker.
pub(crate) fn marked_snippet(text: &str, terms: &QueryTerms, n: usize) -> String {
    let mut tokens = search_tokens(text, &|t| terms.term_of(t));
    whole_phrases_only(text, &mut tokens, terms);
    cut_tokens(text, tokens, n, true)
}

/// Unmarks the tokens that match a term of a typed word of several tokens only outside a
/// run of all of them: searching "ภาษา" (ภ า ษ า) must not mark every า of a Thai text.
fn whole_phrases_only(text: &str, tokens: &mut [Token], terms: &QueryTerms) {
    let (long, single): (Vec<_>, Vec<_>) = terms.phrases.iter().partition(|p| p.len() > 1);
    if long.is_empty() {
        return;
    }
    let token = |t: &Token| &text[t.start..t.end];
    let mut keep = vec![false; tokens.len()];
    for i in 0..tokens.len() {
        if tokens[i].word.is_none() {
            continue;
        }
        let in_long = |term: usize| long.iter().any(|p| p.contains(&term));
        if tokens[i].word.is_some_and(|term| !in_long(term))
            || single
                .iter()
                .any(|p| terms.is_term(token(&tokens[i]), p.start))
        {
            keep[i] = true;
        }
        for phrase in &long {
            let run = &tokens[i..tokens.len().min(i + phrase.len())];
            if run.len() == phrase.len()
                && run
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

/// The window with the most distinct words; `marks` wraps the matches in `[` `]`.
fn cut(text: &str, words: &[String], n: usize, marks: bool) -> String {
    cut_tokens(text, tokens(text, words), n, marks)
}

/// [`cut`] over tokens already matched.
fn cut_tokens(text: &str, tokens: Vec<Token>, n: usize, marks: bool) -> String {
    let n = n.max(1);
    let start = if tokens.len() <= n {
        0
    } else {
        let last_start = tokens.len() - n;
        let mut best = (0, (0, 0));
        for (i, t) in tokens.iter().enumerate() {
            if t.word.is_none() {
                continue;
            }
            // A window starting at this hit, then shifted so its hits sit in the middle.
            let first = i.min(last_start);
            let in_window: Vec<usize> = (first..first + n)
                .filter(|&j| tokens[j].word.is_some())
                .collect();
            let (lo, hi) = match (in_window.first(), in_window.last()) {
                (Some(&lo), Some(&hi)) => (lo, hi),
                _ => (first, first),
            };
            let slack = n - (hi - lo + 1).min(n);
            let centred = lo.saturating_sub(slack / 2).min(last_start);
            let s = score(&tokens, centred, n);
            if s > best.1 {
                best = (centred, s);
            }
        }
        best.0
    };
    let end = (start + n).min(tokens.len());

    let mut out = String::with_capacity(text.len().min(n * 12));
    let Some(first) = tokens.get(start) else {
        return text.to_owned(); // no token at all
    };
    if start == 0 {
        out.push_str(&text[..first.start]);
    } else {
        out.push('…');
    }
    for (k, t) in tokens[start..end].iter().enumerate() {
        let before = (k > 0).then(|| &tokens[start + k - 1]);
        if let Some(before) = before {
            out.push_str(&text[before.end..t.start]);
        }
        if marks && t.word.is_some() {
            // Matches touching each other (a Chinese or Thai word's characters) are one mark.
            if before.is_some_and(|b| b.word.is_some() && b.end == t.start) {
                out.pop();
            } else {
                out.push('[');
            }
            out.push_str(&text[t.start..t.end]);
            out.push(']');
        } else {
            out.push_str(&text[t.start..t.end]);
        }
    }
    if end == tokens.len() {
        out.push_str(&text[tokens[end - 1].end..]);
    } else {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_short_text_is_returned_whole_with_matches_marked() {
        assert_eq!(
            snippet("My cat is called Zorro.", &words(&["zorro"]), 12),
            "My cat is called [Zorro]."
        );
    }

    #[test]
    fn a_long_text_is_cut_around_the_most_distinct_words() {
        let text = "one two three four five six seven eight nine ten eleven twelve \
                    thirteen the tiles arrive on Tuesday with the plumber fourteen fifteen \
                    sixteen seventeen eighteen nineteen twenty";
        let s = snippet(text, &words(&["tiles", "plumber", "one"]), 8);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("[tiles]") && s.contains("[plumber]"), "{s}");
        assert!(!s.contains("[one]"), "{s}");
    }

    #[test]
    fn the_start_and_end_of_the_text_are_kept_when_the_window_reaches_them() {
        let text = "Tiles first, then a long tail of words that ends on Tuesday.";
        let s = snippet(text, &words(&["tiles"]), 4);
        assert_eq!(s, "[Tiles] first, then a…");
        let s = snippet(text, &words(&["tuesday"]), 3);
        assert_eq!(s, "…ends on [Tuesday].");
    }

    #[test]
    fn words_match_ignoring_case_and_accents_and_only_whole() {
        let w = words(&["cafe", "tea"]);
        let text = "Café au lait, CAFE noir; cafeteria. Tea-tea!";
        assert_eq!(term_frequencies(text, &w), vec![2, 2]);
        let counts = word_counts(text, &|word| w.iter().any(|x| x == word));
        assert_eq!(
            (counts.get("cafe"), counts.get("tea"), counts.len()),
            (Some(&2), Some(&2), 2),
            "only the wanted words, folded, and only whole tokens"
        );
        assert_eq!(fold("Éclair"), "eclair");
        assert_eq!(fold("Tiếng Việt"), "tieng viet");
        assert_eq!(
            plain_snippet("I like [my] Café.", &w, 12),
            "I like [my] Café.",
            "no markers added, the text's own kept"
        );
        assert_eq!(snippet("I like Café.", &w, 12), "I like [Café].");
    }

    #[test]
    fn words_of_other_scripts_fold_to_what_the_index_holds() {
        // FTS5 keeps Hangul syllables, kana with their voiced marks, Greek and Cyrillic
        // letters as they are (lowercased).
        for (word, folded) in [
            ("검색은", "검색은"),
            ("食べました", "食べました"),
            ("ガラス", "ガラス"),
            ("Άθήνα", "άθήνα"),
            ("Йога", "йога"),
        ] {
            assert_eq!(fold(word), folded, "{word}");
        }
        let w = words(&["검색은"]);
        assert_eq!(
            snippet("한국어 검색은 잘 됩니까", &w, 12),
            "한국어 [검색은] 잘 됩니까"
        );
    }

    #[test]
    fn chinese_characters_matched_in_a_row_are_one_mark() {
        let terms = QueryTerms {
            words: words(&["编", "程"]),
            ..QueryTerms::default()
        };
        assert_eq!(
            marked_snippet("我喜欢编程，编写程序", &terms, 12),
            "我喜欢[编程]，[编]写[程]序"
        );
        assert_eq!(term_counts("我喜欢编程", &terms), (vec![1, 1], 5));
    }

    #[test]
    fn a_typed_run_of_characters_is_marked_only_where_they_stand_in_a_row() {
        // "编程" typed: its characters apart are no match.
        let terms = QueryTerms {
            words: words(&["编", "程"]),
            phrases: std::iter::once(0..2).collect(),
            ..QueryTerms::default()
        };
        assert_eq!(
            marked_snippet("我喜欢编程，编写程序", &terms, 12),
            "我喜欢[编程]，编写程序"
        );
        // "ภาษ" being typed (ภ า then ษ as a prefix): not every า of the text.
        let thai = QueryTerms {
            words: words(&["ภ", "า"]),
            prefix: Some("ษ".to_owned()),
            phrases: std::iter::once(0..3).collect(),
        };
        assert_eq!(
            marked_snippet("ฉันชอบภาษาไทยมาก", &thai, 30),
            "ฉันชอบ[ภาษ]าไทยมาก"
        );
    }

    #[test]
    fn the_word_being_typed_is_marked_as_a_prefix() {
        let terms = |ws: &[&str], prefix: &str| QueryTerms {
            words: words(ws),
            prefix: Some(prefix.to_owned()),
            phrases: Vec::new(),
        };
        let borr = terms(&["the"], "borr");
        assert_eq!(
            marked_snippet("Borrowing from the borrow checker", &borr, 12),
            "[Borrowing] from [the] [borrow] checker"
        );
        assert_eq!(
            term_counts("Borrowing from the borrow checker", &borr),
            (vec![1, 2], 5)
        );
        assert_eq!(
            marked_snippet("Ünïcode words", &terms(&[], "uni"), 12),
            "[Ünïcode] words"
        );
    }

    #[test]
    fn no_match_and_no_token_are_harmless() {
        assert_eq!(snippet("...", &words(&["x"]), 12), "...");
        assert_eq!(snippet("", &words(&["x"]), 12), "");
        let s = snippet("a b c d e f", &words(&["zzz"]), 3);
        assert_eq!(s, "a b c…");
    }
}
