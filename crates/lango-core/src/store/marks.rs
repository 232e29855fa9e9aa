//! Combining marks inside words in the search indexes. Hindi, Bengali, Tamil, Thai and most
//! scripts of South and Southeast Asia write vowels as marks on a consonant ("हिन्दी": ह ि न ्
//! द ी), and FTS5's `unicode61` tokenizer counts letters, digits and private-use characters
//! as parts of a word, not marks (only the Latin accents U+0300–U+036F, which it folds
//! away): every such word was indexed as its consonants alone, so "पानी" (water) found
//! "पीना" (to drink) and "दिन" (day) found "दान". So the indexes hold each mark that
//! continues a word as a private-use character of its own ([`Indexed`]): the word stays
//! whole and different vowels stay different words. Arabic and Hebrew vowel points
//! (tashkeel, niqqud), which are written only sometimes, are dropped instead, as the Latin
//! accents are: "كَتَبَ" is found by "كتب". A search's words go through the same mapping
//! ([`keep_marks`]); snippets and ranking read the text as written, split it with the same
//! rule (`store::tokens`) and fold the vowel points away (`store::tokens::fold`).
//!
//! Owns only text; `store::index_form` applies it.

use std::borrow::Cow;

use unicode_normalization::char::is_combining_mark;

/// Whether `c` is a combining mark (general category M): part of the word it follows.
pub(crate) fn is_mark(c: char) -> bool {
    // The first marks are the Latin accents at U+0300; none among Chinese and Korean.
    c >= '\u{300}'
        && !matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}')
        && is_combining_mark(c)
}

/// Whether `c` starts or continues a word: a letter or digit, or a mark inside a word.
pub(crate) fn is_word_char(c: char, in_word: bool) -> bool {
    if is_mark(c) {
        in_word
    } else {
        c.is_alphanumeric()
    }
}

/// Whether `c` is a Latin combining accent (U+0300–U+036F), which FTS5 folds away itself.
pub(crate) fn is_latin_accent(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// Whether a word loses `c` as the index holds it: a Latin accent or a vowel point.
pub(crate) fn folds_away(c: char) -> bool {
    is_latin_accent(c) || is_vowel_point(c)
}

/// Whether `c` is an Arabic or Hebrew vowel point or cantillation mark: dropped from a word.
pub(crate) fn is_vowel_point(c: char) -> bool {
    matches!(c,
        '\u{0591}'..='\u{05C7}'     // Hebrew
        | '\u{0610}'..='\u{061A}'   // Arabic
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}'
        | '\u{06D6}'..='\u{06ED}'
        | '\u{08D3}'..='\u{08FF}'   // Arabic extended A
    ) && is_mark(c)
}

/// How the index holds a mark inside a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Indexed {
    /// As it is: the Latin accents, which `unicode61` keeps in a word and folds away itself,
    /// and the variation selectors (they choose a glyph: emoji, CJK variants).
    AsItIs,
    /// Not at all ([`is_vowel_point`]).
    Dropped,
    /// As a private-use character (which `unicode61` counts as part of a word) of its own:
    /// planes 0 and 1 hold every other mark, mapped into the supplementary private-use
    /// planes 15 and 16.
    StandIn(char),
}

fn indexed_as(mark: char) -> Indexed {
    let code = mark as u32;
    if is_latin_accent(mark) {
        return Indexed::AsItIs;
    }
    let stand_in = match code {
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => None,
        _ if is_vowel_point(mark) => return Indexed::Dropped,
        0..=0xFFFF => char::from_u32(0xF_0000 + code),
        0x1_0000..=0x1_FFFD => char::from_u32(0x10_0000 + (code - 0x1_0000)),
        _ => None,
    };
    stand_in.map_or(Indexed::AsItIs, Indexed::StandIn)
}

/// Whether the index holds a mark inside a word of `text` other than as it is.
pub(crate) fn has_kept_marks(text: &str) -> bool {
    let changed = |c: char| is_mark(c) && indexed_as(c) != Indexed::AsItIs;
    // Most texts have no such mark at all: ruled out without classifying every letter.
    if text.is_ascii() || !text.chars().any(changed) {
        return false;
    }
    let mut in_word = false;
    for c in text.chars() {
        if in_word && changed(c) {
            return true;
        }
        in_word = is_word_char(c, in_word);
    }
    false
}

/// `text` with every mark inside a word as the index holds it ([`Indexed`]); any other
/// text unchanged.
pub(crate) fn keep_marks(text: &str) -> Cow<'_, str> {
    if !has_kept_marks(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut in_word = false;
    for c in text.chars() {
        match (in_word && is_mark(c)).then(|| indexed_as(c)) {
            Some(Indexed::StandIn(stand_in)) => out.push(stand_in),
            Some(Indexed::Dropped) => {}
            _ => out.push(c),
        }
        in_word = is_word_char(c, in_word);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_inside_words_become_their_stand_ins_and_other_text_is_kept() {
        let kept = keep_marks("पानी पीना");
        assert_eq!(kept.chars().count(), "पानी पीना".chars().count());
        assert!(!kept.chars().any(is_mark));
        assert_ne!(keep_marks("पानी"), keep_marks("पीना"));
        assert!(matches!(
            keep_marks("café naïve résumé 한국어 编程"),
            Cow::Borrowed(_)
        ));
        // Decomposed Latin accents stay: unicode61 folds them itself.
        assert!(matches!(keep_marks("cafe\u{301}"), Cow::Borrowed(_)));
        // An emoji's variation selector is no mark of a word.
        assert!(matches!(
            keep_marks("I \u{2764}\u{fe0f} it"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn arabic_and_hebrew_vowel_points_are_dropped_from_their_words() {
        assert_eq!(keep_marks("كَتَبَ الدَّرْسَ"), "كتب الدرس");
        assert_eq!(keep_marks("שָׁלוֹם"), "שלום");
        assert!(matches!(keep_marks("كتب שלום"), Cow::Borrowed(_)));
    }
}
