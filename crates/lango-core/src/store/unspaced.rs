//! Scripts written without spaces between words in the search indexes: Chinese, Japanese,
//! Thai, Lao, Khmer and Burmese. FTS5's `unicode61` tokenizer takes a whole unspaced run
//! ("我喜欢编程和学习", "ฉันชอบภาษาไทย") as one word, found only from its start. So a text is
//! indexed with each of their characters spaced apart ([`spaced`]; a combining mark stays on
//! its character: "สวัสดี" is ส วั ส ดี), and a typed run is looked for as those characters
//! in a row (an FTS5 phrase of them): "编程" is found inside "我喜欢编程和学习", "ภาษาไทย"
//! inside "ฉันชอบภาษาไทยมาก". Korean is written with spaces and is indexed as it is.
//!
//! Owns only text; `store::index_form`, `store::tokens` and `store::search_query` use it.

use std::borrow::Cow;

use super::marks::is_mark;

/// Whether `c` is a Chinese character or Japanese kana: a word of its own in the index, and
/// never the start of a longer one (so never a prefix while typed).
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

/// Whether `c` is a letter or digit of Thai, Lao, Khmer or Burmese (their marks aside): a
/// word of its own in the index with the marks on it. The last one typed may be a prefix: a
/// consonant typed before its vowel mark.
fn is_southeast_asian(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'     // Thai, Lao
        | '\u{1000}'..='\u{109F}'   // Myanmar
        | '\u{1780}'..='\u{17FF}'   // Khmer
        | '\u{19E0}'..='\u{19FF}'   // Khmer symbols
        | '\u{A9E0}'..='\u{A9FF}'   // Myanmar extended B
        | '\u{AA60}'..='\u{AA7F}'   // Myanmar extended A
    ) && c.is_alphanumeric()
        && !is_mark(c)
}

/// Whether `c` is indexed as a word of its own (with the marks that follow it).
pub(crate) fn is_set_apart(c: char) -> bool {
    !c.is_ascii() && (is_cjk(c) || is_southeast_asian(c))
}

/// Whether `text` holds a character [`spaced`] would set apart.
pub(crate) fn has_set_apart(text: &str) -> bool {
    // ASCII, the common case, is ruled out a word at a time.
    !text.is_ascii() && text.chars().any(is_set_apart)
}

/// `text` as the index holds it: a space between each character [`is_set_apart`] (with the
/// marks that follow it) and whatever touches it, so each is a word of its own; any other
/// text unchanged.
pub(crate) fn spaced(text: &str) -> Cow<'_, str> {
    if !has_set_apart(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut after_apart = false;
    let mut after_space = true;
    for c in text.chars() {
        if is_mark(c) {
            out.push(c);
            after_space = false;
            continue;
        }
        let apart = is_set_apart(c);
        if (apart || after_apart) && !after_space && !c.is_whitespace() {
            out.push(' ');
        }
        out.push(c);
        after_apart = apart;
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

    #[test]
    fn thai_lao_khmer_and_burmese_letters_are_set_apart_with_their_marks() {
        assert_eq!(spaced("สวัสดีครับ"), "ส วั ส ดี ค รั บ");
        assert_eq!(spaced("ภาษาไทย!"), "ภ า ษ า ไ ท ย !");
        assert_eq!(spaced("ພາສາລາວ"), "ພ າ ສ າ ລ າ ວ");
        assert_eq!(spaced("ខ្មែរ"), "ខ្ មែ រ");
        assert_eq!(spaced("မြန်မာ"), "မြ န် မာ");
        // Hindi is written with spaces: kept as it is.
        assert!(matches!(spaced("हिन्दी में"), Cow::Borrowed(_)));
    }
}
