//! Search snippets made the way FTS5's `snippet()` makes them: the window of a few tokens
//! (`store::tokens`) that holds the most distinct query words, `…` where text was cut.
//!
//! Why in Rust: knowledge retrieval runs before every model call and ranks in Rust
//! (`memory::knowledge_index` counts the query words of each item with `store::tokens`), and
//! FTS5's `snippet()` would run for every matching row before the ranking keeps the best few.
//!
//! Owns only text; it must not touch the database.

use super::query_terms::{whole_phrases_only, QueryTerms};
use super::tokens::{search_tokens, tokens, Token};

/// Tokens per snippet (what the SQL searches pass to `snippet()`).
pub(crate) const SNIPPET_TOKENS: usize = 12;

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

/// The best window of `n` tokens of `text` with the matches of `terms` in `[` `]`. `text`
/// must hold no brackets of its own (`plain_text` turns them into parentheses), so every
/// `[` `]` is a marker.
pub(crate) fn marked_snippet(text: &str, terms: &QueryTerms, n: usize) -> String {
    let mut tokens = search_tokens(text, &|t| terms.term_of(t));
    whole_phrases_only(text, &mut tokens, terms);
    cut_tokens(text, tokens, n, true)
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
    use super::super::query_terms::term_counts;
    use super::super::tokens::{fold, term_frequencies, word_counts};
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
            prefix_range: None,
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
            ..QueryTerms::default()
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
