//! A text or code file's text: UTF-8 without its byte-order mark, cut to
//! [`MAX_TEXT_BYTES`](super::limits::MAX_TEXT_BYTES) at a character boundary.

use super::error::AttachmentError;
use super::limits::MAX_TEXT_BYTES;

/// The file's text and whether it was cut. Refuses what is not UTF-8 or holds a NUL byte
/// (what [`detect`](super::detect) calls binary).
pub fn decode_text(name: &str, bytes: &[u8]) -> Result<(String, bool), AttachmentError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let unsupported = |what: &str| AttachmentError::Unsupported {
        name: name.into(),
        what: what.into(),
    };
    if body.contains(&0) {
        return Err(unsupported("binary data, not text"));
    }
    let text = std::str::from_utf8(body).map_err(|_| unsupported("not UTF-8 text"))?;
    Ok(cap_text(text.to_owned()))
}

/// `text` cut to at most `MAX_TEXT_BYTES` at a character boundary; true when cut.
pub fn cap_text(mut text: String) -> (String, bool) {
    if text.len() <= MAX_TEXT_BYTES {
        return (text, false);
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bom_is_dropped_and_the_text_kept_whole() {
        let (text, cut) = decode_text("a.txt", "\u{feff}héllo\r\nworld".as_bytes()).unwrap();
        assert_eq!(text, "héllo\r\nworld");
        assert!(!cut);
    }

    #[test]
    fn a_huge_text_is_cut_at_the_cap_without_splitting_a_character() {
        let long = "é".repeat(MAX_TEXT_BYTES); // 2 bytes each: twice the cap
        let (text, cut) = cap_text(format!("x{long}"));
        assert!(cut);
        assert!(text.len() <= MAX_TEXT_BYTES && text.len() >= MAX_TEXT_BYTES - 1);
        assert!(text.ends_with('é'));
    }

    #[test]
    fn invalid_utf8_is_refused_naming_the_file() {
        let err = decode_text("old.txt", b"caf\xE9").unwrap_err();
        assert!(err.to_string().contains("\"old.txt\""), "{err}");
    }
}
