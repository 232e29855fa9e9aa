//! Thought signatures between their two forms: raw bytes on a `Part`, standard base64 in the
//! store's tool-call JSON and on the wire (REFERENCE §2.1). One codec for every adapter.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;

/// Standard base64 with padding.
pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Standard base64, padding optional; `None` when the text is not base64.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(text)
        .or_else(|_| STANDARD_NO_PAD.decode(text.trim_end_matches('=')))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_round_trip_with_or_without_padding() {
        let bytes = [0x01, 0x02, 0xFF, 0xFE, 0x00, 0xAB];
        assert_eq!(encode(&bytes), "AQL//gCr");
        assert_eq!(decode("AQL//gCr").as_deref(), Some(&bytes[..]));
        assert_eq!(encode(b"fo"), "Zm8=");
        assert_eq!(decode("Zm8").as_deref(), Some(&b"fo"[..]));
        assert_eq!(decode("sig-data"), None);
    }
}
