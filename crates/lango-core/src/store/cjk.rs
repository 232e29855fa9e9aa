//! Chinese and Japanese in the messages' search index. Both are written without spaces, and
//! FTS5's `unicode61` tokenizer takes a whole unspaced run ("我喜欢编程和学习") as one word,
//! found only from its start. So a message's text is indexed with each of their characters
//! spaced apart ([`spaced`]), and a typed run is looked for as those characters in a row
//! (an FTS5 phrase of them): "编程" is found inside "我喜欢编程和学习". Korean is written
//! with spaces and is indexed as it is.
//!
//! Owns only text; `store::search_index` and `store::search_query` use it.

use std::borrow::Cow;

use super::marks::is_mark;

/// Whether `c` is a Chinese character or Japanese kana: indexed as a word of its own.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'     // 々 〆 〇
        | '\u{3040}'..='\u{30FF}'   // hiragana, katakana (ー included)
        | '\u{31F0}'..='\u{31FF}'   // katakana for Ainu
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'   // halfwidth katakana
        | '\u{20000}'..='\u{3FFFF}' // CJK extensions B and after
    )
}

/// Whether `text` holds a character [`spaced`] would set apart.
pub(crate) fn has_cjk(text: &str) -> bool {
    // ASCII, the common case, is ruled out a word at a time.
    !text.is_ascii() && text.chars().any(is_cjk)
}

/// `text` as the index holds it: a space between each Chinese or Japanese character and
/// whatever touches it, so each is a word of its own (a combining mark stays on the
/// character it follows); any other text unchanged.
pub(crate) fn spaced(text: &str) -> Cow<'_, str> {
    if !has_cjk(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut after_cjk = false;
    let mut after_space = true;
    for c in text.chars() {
        if is_mark(c) {
            out.push(c);
            after_space = false;
            continue;
        }
        let cjk = is_cjk(c);
        if (cjk || after_cjk) && !after_space && !c.is_whitespace() {
            out.push(' ');
        }
        out.push(c);
        after_cjk = cjk;
        after_space = c.is_whitespace();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_and_japanese_characters_are_set_apart_and_other_text_is_kept() {
        assert_eq!(
            spaced("我喜欢编程和学习Rust"),
            "我 喜 欢 编 程 和 学 习 Rust"
        );
        assert_eq!(
            spaced("東京でラーメンを、食べました。"),
            "東 京 で ラ ー メ ン を 、 食 べ ま し た 。"
        );
        assert_eq!(spaced("an 𠀋 in it"), "an 𠀋 in it");
        assert!(matches!(spaced("한국어 검색은 café"), Cow::Borrowed(_)));
    }
}
