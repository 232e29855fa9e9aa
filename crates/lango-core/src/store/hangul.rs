//! Korean typed through an input method: until a syllable is finished the search box holds
//! it half-made — "거" on the way to "검", or "검ㅅ" on the way to "검색" — and a plain prefix
//! then finds nothing the finished word will find. [`composing_range`] gives the range of
//! indexed words the word being typed may still become, which the search expands it into
//! (`store::search`) and marks in snippets (`store::query_terms`).
//!
//! Owns only text.

/// The first Hangul syllable, 가, and how the syllables are laid out: 19 initial consonants ×
/// 21 vowels × 28 finals (the first "final" is none).
const FIRST_SYLLABLE: u32 = 0xAC00;
const LAST_SYLLABLE: u32 = 0xD7A3;
const FINALS: u32 = 28;
const PER_INITIAL: u32 = 21 * FINALS;

/// The initial consonants in syllable order, as compatibility jamo (what an input method
/// shows for a consonant typed alone).
const INITIALS: [char; 19] = [
    'ㄱ', 'ㄲ', 'ㄴ', 'ㄷ', 'ㄸ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅃ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅉ', 'ㅊ', 'ㅋ',
    'ㅌ', 'ㅍ', 'ㅎ',
];

/// The words `prefix` (folded) may become once its last syllable is finished, as the
/// half-open range `lo..hi` of words: for a syllable without a final consonant ("거") the
/// syllables it takes a final in (거 … 겋), for a consonant typed alone ("ㅅ") every
/// syllable it begins (사 … 싷), after whatever precedes it. None for any other word.
pub(crate) fn composing_range(prefix: &str) -> Option<(String, String)> {
    let last = prefix.chars().last()?;
    let base = &prefix[..prefix.len() - last.len_utf8()];
    let code = last as u32;
    let (first, end) = if (FIRST_SYLLABLE..=LAST_SYLLABLE).contains(&code) {
        if !(code - FIRST_SYLLABLE).is_multiple_of(FINALS) {
            return None; // it has its final: finished as far as a prefix can tell
        }
        (code, code + FINALS)
    } else {
        let initial = INITIALS.iter().position(|&c| c == last)? as u32;
        let first = FIRST_SYLLABLE + initial * PER_INITIAL;
        (first, first + PER_INITIAL)
    };
    let lo = format!("{base}{}", char::from_u32(first)?);
    let hi = format!("{base}{}", char::from_u32(end)?);
    Some((lo, hi))
}

/// Whether `word` (folded) is in the range [`composing_range`] gave.
pub(crate) fn in_range(word: &str, (lo, hi): &(String, String)) -> bool {
    word >= lo.as_str() && word < hi.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_made_syllable_covers_the_words_it_may_become() {
        let range = composing_range("거").unwrap();
        assert!(in_range("검색은", &range) && in_range("거리", &range) && in_range("겋", &range));
        assert!(!in_range("게임", &range) && !in_range("가다", &range));
        let range = composing_range("검ㅅ").unwrap();
        assert!(in_range("검색", &range) && in_range("검시", &range));
        assert!(!in_range("검토", &range) && !in_range("검", &range));
        let range = composing_range("한국어 검새").unwrap();
        assert!(in_range("한국어 검색", &range));
        // A syllable with its final, or any other script: a plain prefix.
        assert_eq!(composing_range("검"), None);
        assert_eq!(composing_range("proj"), None);
        assert_eq!(composing_range(""), None);
    }
}
