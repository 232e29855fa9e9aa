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

/// Tokens per snippet (what the SQL searches pass to `snippet()`).
pub(crate) const SNIPPET_TOKENS: usize = 12;

/// One token of `text`: its byte range and whether it is one of the query words.
struct Token {
    start: usize,
    end: usize,
    /// Index of the query word it equals, if any.
    word: Option<usize>,
}

/// Lowercase without diacritics, as FTS5's `unicode61 remove_diacritics 2` compares words.
pub(crate) fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
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

/// Splits like FTS5's `unicode61` tokenizer (runs of letters and digits) and compares with
/// `words` (folded) ignoring case and diacritics.
fn tokens(text: &str, words: &[String]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = None;
    let push = |s: usize, e: usize, out: &mut Vec<Token>| {
        out.push(Token {
            start: s,
            end: e,
            word: word_index(&text[s..e], words),
        });
    };
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push(s, i, &mut out);
                start = None;
            }
            _ => {}
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

/// The window with the most distinct words; `marks` wraps the matches in `[` `]`.
fn cut(text: &str, words: &[String], n: usize, marks: bool) -> String {
    let tokens = tokens(text, words);
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
        if k > 0 {
            out.push_str(&text[tokens[start + k - 1].end..t.start]);
        }
        if marks && t.word.is_some() {
            out.push('[');
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
        assert_eq!(fold("Éclair"), "eclair");
        assert_eq!(
            plain_snippet("I like [my] Café.", &w, 12),
            "I like [my] Café.",
            "no markers added, the text's own kept"
        );
        assert_eq!(snippet("I like Café.", &w, 12), "I like [Café].");
    }

    #[test]
    fn no_match_and_no_token_are_harmless() {
        assert_eq!(snippet("...", &words(&["x"]), 12), "...");
        assert_eq!(snippet("", &words(&["x"]), 12), "");
        let s = snippet("a b c d e f", &words(&["zzz"]), 3);
        assert_eq!(s, "a b c…");
    }
}
