//! What a user typed into the search box, as the FTS5 queries and the terms that
//! `store::search` matches with: every word quoted (never a syntax error), all of them
//! required, the last one a prefix while it is being typed so results appear at once.

use super::hangul::composing_range;
use super::index_form::{index_form, needs_index_form};
use super::marks::is_mark;
use super::query_terms::QueryTerms;
use super::tokens::{search_words, tokens_matching};
use super::unspaced::{is_cjk, is_set_apart};

/// Whether the input ends inside a word (trailing spaces aside: the search box trims them),
/// which is then the word being typed: "c++", "C#" or "what?" end with a finished word,
/// and "c++" as a prefix would match every word starting with "c" (the index keeps letters,
/// digits and the marks on them only, `store::marks`).
pub(super) fn ends_in_a_word(input: &str) -> bool {
    let input = input.trim_end();
    tokens_matching(input, &|_| None)
        .last()
        .is_some_and(|t| t.end == input.len())
}

/// Whether `word` is one word as the index splits words (no Chinese, Japanese or Thai, each
/// character a word): the word being typed is then expanded into the words it begins.
pub(super) fn is_one_word(word: &str) -> bool {
    !word.chars().any(is_set_apart)
        && matches!(tokens_matching(word, &|_| None).as_slice(), [t] if t.start == 0 && t.end == word.len())
}

/// Turns what a user typed into an FTS5 query that cannot be a syntax error: every word is
/// a quoted phrase (quotes doubled), all must match, and the last is a prefix while it is
/// being typed ([`ends_in_a_word`]). Returns None when nothing searchable is left.
pub(super) fn to_fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input.split_whitespace().map(quoted).collect();
    let (last, rest) = words.split_last()?;
    let mut query = rest.join(" ");
    if !query.is_empty() {
        query.push(' ');
    }
    query.push_str(last);
    if typing_a_word(input) {
        query.push('*');
    }
    Some(query)
}

/// Whether the input ends in a word being typed, the one a prefix: [`ends_in_a_word`], and
/// not a Chinese or Japanese character (each is a whole word in the index).
fn typing_a_word(input: &str) -> bool {
    ends_in_a_word(input) && !input.trim_end().trim_end_matches(is_mark).ends_with(is_cjk)
}

/// A typed word as an FTS5 phrase: quoted (quotes doubled, so never syntax), in the form the
/// index holds it (`store::index_form`): Chinese, Japanese or Thai characters spaced, so a
/// run of them is found inside a longer one, and the marks inside words kept.
fn quoted(word: &str) -> String {
    format!("\"{}\"", index_form(word).replace('"', "\"\""))
}

/// [`to_fts_query`] with the last word replaced by any of `words` (whole words): the word
/// being typed, expanded (migration 0009 says why).
pub(super) fn to_fts_query_expanded(input: &str, words: &[String]) -> Option<String> {
    let mut typed: Vec<&str> = input.split_whitespace().collect();
    typed.pop()?;
    let alternatives = to_fts_any_query(words)?;
    // FTS5 implies AND only between phrases: before a group it must be written.
    let mut parts: Vec<String> = typed.iter().map(|w| quoted(w)).collect();
    parts.push(format!("({alternatives})"));
    Some(parts.join(" AND "))
}

/// An FTS5 query matching ANY of the words (each quoted, so none is syntax). A word the
/// indexes hold in another form (Chinese or Thai spaced, marks kept: `store::index_form`)
/// is looked for in that form and as written, as rows indexed before the upgrade's walk
/// reached them still hold it (`store::reindex_walk`). None when no word is left.
pub(crate) fn to_fts_any_query(words: &[String]) -> Option<String> {
    let mut phrases: Vec<String> = Vec::new();
    for word in words.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        phrases.push(format!("\"{}\"", word.replace('"', "\"\"")));
        if needs_index_form(word) {
            phrases.push(quoted(word));
        }
    }
    (!phrases.is_empty()).then(|| phrases.join(" OR "))
}

/// Restricts an FTS5 query to the `text` column: the indexes also hold the session id
/// (migration 0006), which a number in the query must never match.
pub(crate) fn text_only(fts: &str) -> String {
    format!("text : ({fts})")
}

/// What a user typed, as the terms ranking and snippets match: every word's tokens (as the
/// index tokenizes them), the last token a prefix while it is being typed, and which tokens
/// each typed word holds (a word of several must match in a row).
pub(super) fn query_terms(input: &str) -> QueryTerms {
    let mut words = Vec::new();
    let mut phrases = Vec::new();
    for typed in input.split_whitespace() {
        // Each Chinese, Japanese or Thai character is a word of its own, as in the index.
        let start = words.len();
        words.extend(search_words(typed));
        if words.len() > start {
            phrases.push(start..words.len());
        }
    }
    let prefix = if typing_a_word(input) {
        words.pop()
    } else {
        None
    };
    let prefix_range = prefix.as_deref().and_then(composing_range);
    QueryTerms {
        words,
        prefix,
        phrases,
        prefix_range,
    }
}

#[cfg(test)]
mod tests {
    use super::{query_terms, to_fts_any_query, to_fts_query, to_fts_query_expanded};

    #[test]
    fn the_word_being_typed_becomes_any_of_its_indexed_words() {
        let words = ["project".to_owned(), "projects".to_owned()];
        assert_eq!(
            to_fts_query_expanded("the \"big\" proj", &words).as_deref(),
            Some("\"the\" AND \"\"\"big\"\"\" AND (\"project\" OR \"projects\")")
        );
        assert_eq!(to_fts_query_expanded("proj", &[]), None);
    }

    #[test]
    fn user_input_becomes_a_safe_prefix_query() {
        assert_eq!(
            to_fts_query("rust borrow").as_deref(),
            Some("\"rust\" \"borrow\"*")
        );
        assert_eq!(
            to_fts_query("say \"hi\" AND (").as_deref(),
            Some("\"say\" \"\"\"hi\"\"\" \"AND\" \"(\"")
        );
        assert_eq!(to_fts_query("   "), None);
    }

    #[test]
    fn chinese_and_japanese_are_looked_for_as_their_characters_in_a_row() {
        assert_eq!(to_fts_query("编程").as_deref(), Some("\"编 程\""));
        assert_eq!(to_fts_query("学习Ru").as_deref(), Some("\"学 习 Ru\"*"));
        assert_eq!(
            to_fts_query("rust 编程").as_deref(),
            Some("\"rust\" \"编 程\"")
        );
        let terms = query_terms("学习Ru");
        assert_eq!(
            (terms.words, terms.prefix),
            (
                vec!["学".to_owned(), "习".to_owned()],
                Some("ru".to_owned())
            )
        );
        // Memory retrieval: the notes' indexes hold the run as written, the messages' spaced.
        assert_eq!(
            to_fts_any_query(&["编程".to_owned(), "rust".to_owned()]).as_deref(),
            Some("\"编程\" OR \"编 程\" OR \"rust\"")
        );
    }

    #[test]
    fn a_word_ending_in_a_symbol_is_finished_not_a_prefix() {
        assert_eq!(to_fts_query("c++").as_deref(), Some("\"c++\""));
        assert_eq!(
            to_fts_query("learn C#").as_deref(),
            Some("\"learn\" \"C#\"")
        );
        assert_eq!(to_fts_query("why?").as_deref(), Some("\"why?\""));
        assert_eq!(to_fts_query("node.js").as_deref(), Some("\"node.js\"*"));
        let finished = query_terms("c++");
        assert_eq!(
            (finished.words, finished.prefix),
            (vec!["c".to_owned()], None)
        );
        let typing = query_terms("c++ templ");
        assert_eq!(
            (typing.words, typing.prefix),
            (vec!["c".to_owned()], Some("templ".to_owned()))
        );
    }
}
