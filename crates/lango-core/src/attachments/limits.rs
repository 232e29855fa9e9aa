//! How big an attachment may be, and why each number is what it is.

use super::error::AttachmentError;
use super::kind::AttachmentKind;

const MIB: u64 = 1024 * 1024;

/// Largest image file accepted. Phone photos are 2–12 MB and screenshots less; 20 MiB is
/// OpenAI's per-image request cap, and anything larger is almost always a scan or an
/// export that should be scaled down first. The image is downscaled before it is sent, so
/// this bounds only what is read and decoded.
pub const MAX_IMAGE_BYTES: u64 = 20 * MIB;

/// Largest text or code file accepted. 20 MiB of text is ~5M tokens, far past any model's
/// context; only the first [`MAX_TEXT_BYTES`] are kept, so this bounds only the read.
pub const MAX_TEXT_FILE_BYTES: u64 = 20 * MIB;

/// Largest PDF accepted: PDFs carry fonts and page images, so a text-heavy report can be
/// tens of MB. 50 MiB covers long manuals; past it parsing takes seconds of CPU and the
/// parsed document hundreds of MB of memory.
pub const MAX_PDF_BYTES: u64 = 50 * MIB;

/// The largest file of any kind: what a caller reads at most (plus one byte, to tell "too
/// large" from "exactly at the cap") before the bytes say what the file is.
pub const MAX_FILE_BYTES: u64 = MAX_PDF_BYTES;

/// All attachments of one message together (original sizes). Anthropic refuses a request
/// over 32 MB and images travel base64 (+33%); prepared images are far smaller than their
/// originals, but the cap keeps one message from pulling ~100 MB of files into memory at
/// once.
pub const MAX_MESSAGE_BYTES: u64 = 64 * MIB;

/// How many files one message can carry (Anthropic takes up to 100 images a request,
/// OpenAI and Gemini more; 20 keeps a message readable and its request bounded).
pub const MAX_ATTACHMENTS_PER_MESSAGE: usize = 20;

/// Most pixels an image may have to be decoded at all, checked from its header before any
/// pixel is decoded. 150 Mpx takes a 12000×12000 scan (144 Mpx); a phone photo is 12–50.
pub const MAX_IMAGE_PIXELS: u64 = 150_000_000;

/// The decoder's allocation cap (`image::Limits::max_alloc`): 4 bytes a pixel (RGBA8) at
/// [`MAX_IMAGE_PIXELS`], plus room for the decoder's own buffers. A 16-bit image that
/// needs more is refused instead of decoded: the process never allocates past this for one
/// image.
pub const MAX_DECODE_ALLOC: u64 = MAX_IMAGE_PIXELS * 4 + 64 * MIB;

/// The long side a sent image is scaled down to fit: Anthropic's recommended maximum (it
/// resizes anything larger itself, adding latency); within OpenAI's 2048 px box and
/// Gemini's 3072, so one prepared image suits every provider.
pub const MAX_IMAGE_SIDE: u32 = 1568;

/// A prepared PNG larger than this is re-encoded as JPEG (when it has no transparency):
/// Anthropic refuses an image over 5 MB, and base64 adds a third (3.75 MB → 5 MB).
pub const MAX_ENCODED_IMAGE_BYTES: usize = 3_750_000;

/// Most text kept from one text file or PDF: ~1M tokens, Gemini's largest context. The rest
/// is dropped and the attachment marked as cut, so one file can never hold megabytes of
/// text in every later request.
pub const MAX_TEXT_BYTES: usize = 4 * 1024 * 1024;

/// The largest file accepted for `kind`, with the plural noun the error message uses.
pub fn max_file_bytes(kind: AttachmentKind) -> (u64, &'static str) {
    match kind {
        AttachmentKind::Image(_) => (MAX_IMAGE_BYTES, "images"),
        AttachmentKind::Pdf => (MAX_PDF_BYTES, "PDFs"),
        AttachmentKind::Text => (MAX_TEXT_FILE_BYTES, "text files"),
    }
}

/// Checks one file's size for its kind.
pub fn check_file(name: &str, kind: AttachmentKind, size: u64) -> Result<(), AttachmentError> {
    if size == 0 {
        return Err(AttachmentError::Empty { name: name.into() });
    }
    let (limit, noun) = max_file_bytes(kind);
    if size > limit {
        return Err(AttachmentError::TooLarge {
            name: name.into(),
            kind: noun,
            size,
            limit,
        });
    }
    Ok(())
}

/// Checks the files of one message together (their original sizes), before any of them is
/// prepared.
pub fn check_message(sizes: &[u64]) -> Result<(), AttachmentError> {
    if sizes.len() > MAX_ATTACHMENTS_PER_MESSAGE {
        return Err(AttachmentError::TooMany {
            count: sizes.len(),
            limit: MAX_ATTACHMENTS_PER_MESSAGE,
        });
    }
    let total = sizes.iter().copied().fold(0u64, u64::saturating_add);
    if total > MAX_MESSAGE_BYTES {
        return Err(AttachmentError::MessageTooLarge {
            total,
            limit: MAX_MESSAGE_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::ImageFormat;

    #[test]
    fn a_pdf_may_be_larger_than_an_image_but_not_past_its_own_cap() {
        let image = AttachmentKind::Image(ImageFormat::Png);
        assert!(check_file("scan.pdf", AttachmentKind::Pdf, 40 * MIB).is_ok());
        assert!(matches!(
            check_file("photo.png", image, 40 * MIB),
            Err(AttachmentError::TooLarge { kind: "images", .. })
        ));
        assert!(matches!(
            check_file("big.pdf", AttachmentKind::Pdf, MAX_PDF_BYTES + 1),
            Err(AttachmentError::TooLarge { .. })
        ));
        assert!(matches!(
            check_file("empty.txt", AttachmentKind::Text, 0),
            Err(AttachmentError::Empty { .. })
        ));
    }

    #[test]
    fn a_message_over_the_total_or_the_count_is_refused_with_both_numbers() {
        assert!(check_message(&[30 * MIB, 30 * MIB]).is_ok());
        let err = check_message(&[30 * MIB, 30 * MIB, 30 * MIB]).unwrap_err();
        assert_eq!(
            err,
            AttachmentError::MessageTooLarge {
                total: 90 * MIB,
                limit: MAX_MESSAGE_BYTES
            }
        );
        assert!(err.to_string().contains("90 MB"), "{err}");
        assert!(matches!(
            check_message(&[1; MAX_ATTACHMENTS_PER_MESSAGE + 1]),
            Err(AttachmentError::TooMany { .. })
        ));
    }
}
