//! What a user typed into the search box, as the FTS5 queries and the terms that
//! `store::search` matches with: every word quoted (never a syntax error), all of them
//! required, the last one a prefix so results appear while typing.

use super::snippet::{fold, QueryTerms};

/// Turns what a user typed into an FTS5 query that cannot be a syntax error: every word is
/// a quoted phrase (quotes doubled), all must match, and the last is a prefix so results
/// appear while typing. Returns None when nothing searchable is left.
pub(super) fn to_fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input
        .split_whitespace()
        .map(|w| w.replace('"', "\"\""))
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    let (last, rest) = words.split_last()?;
    let mut query = rest.join(" ");
    if !query.is_empty() {
        query.push(' ');
    }
    query.push_str(last);
    query.push('*');
    Some(query)
}

/// [`to_fts_query`] with the last word replaced by any of `words` (whole words): the word
/// being typed, expanded (migration 0009 says why).
pub(super) fn to_fts_query_expanded(input: &str, words: &[String]) -> Option<String> {
    let mut typed: Vec<&str> = input.split_whitespace().collect();
    typed.pop()?;
    let alternatives = to_fts_any_query(words)?;
    // FTS5 implies AND only between phrases: before a group it must be written.
    let mut parts: Vec<String> = typed
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    parts.push(format!("({alternatives})"));
    Some(parts.join(" AND "))
}

/// An FTS5 query matching ANY of the words (each quoted, so none is syntax). None when no
/// word is left.
pub(crate) fn to_fts_any_query(words: &[String]) -> Option<String> {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| w.trim().replace('"', "\"\""))
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Restricts an FTS5 query to the `text` column: the indexes also hold the session id
/// (migration 0006), which a number in the query must never match.
pub(crate) fn text_only(fts: &str) -> String {
    format!("text : ({fts})")
}

/// What a user typed, as the terms ranking and snippets match: every word's tokens (as the
/// index tokenizes them), the last token a prefix.
pub(super) fn query_terms(input: &str) -> QueryTerms {
    let mut words: Vec<String> = input
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(fold)
        .collect();
    let prefix = words.pop();
    QueryTerms { words, prefix }
}

#[cfg(test)]
mod tests {
    use super::{to_fts_query, to_fts_query_expanded};

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
            Some("\"say\" \"\"\"hi\"\"\" \"AND\" \"(\"*")
        );
        assert_eq!(to_fts_query("   "), None);
    }
}
