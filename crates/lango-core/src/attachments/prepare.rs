//! One file made ready to attach: [`prepare`] checks, detects, reads and costs it.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::error::AttachmentError;
use super::image::{prepare_image, PreparedImage};
use super::kind::{detect, text_mime, AttachmentKind};
use super::limits::check_file;
use super::pdf::extract_pdf_text;
use super::text::decode_text;
use super::tokens::{image_tokens, text_tokens};
use crate::tokens::TokenCounter;

/// An attachment ready to store and send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedAttachment {
    /// SHA-256 of the original bytes, lower-case hex: the same file attached twice is stored
    /// once.
    pub hash: String,
    /// The file's name as shown (no folders, no control characters).
    pub name: String,
    pub kind: AttachmentKind,
    /// The original file's mime type (`image/jpeg`, `application/pdf`, `text/markdown`, …);
    /// a prepared image's own is `image.mime`.
    pub mime: String,
    /// The original file's size in bytes.
    pub size: u64,
    /// A text file's or a PDF's text (cut at `limits::MAX_TEXT_BYTES`).
    pub text: Option<String>,
    /// True when `text` was cut.
    pub text_truncated: bool,
    /// A PDF's page count.
    pub pages: Option<usize>,
    /// An image as it is sent: downscaled and re-encoded.
    pub image: Option<PreparedImage>,
    /// Estimated tokens it adds to a request (`tokens`).
    pub token_count: usize,
}

/// SHA-256 of `bytes` as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The name shown for a file: its last path component, control characters dropped, at most
/// 255 bytes; "attachment" when nothing is left.
fn clean_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let mut clean: String = base.chars().filter(|c| !c.is_control()).collect();
    let trimmed = clean.trim();
    if trimmed.is_empty() {
        return "attachment".into();
    }
    clean = trimmed.to_owned();
    if clean.len() > 255 {
        let mut end = 255;
        while !clean.is_char_boundary(end) {
            end -= 1;
        }
        clean.truncate(end);
    }
    clean
}

/// Prepares the file `name` with contents `bytes`: its size checked against its kind's cap,
/// an image decoded and downscaled, a PDF's or text file's text read, its token cost
/// estimated with `counter`. CPU-bound (seconds for a large image or PDF): run it on a
/// blocking thread.
pub fn prepare(
    name: &str,
    bytes: &[u8],
    counter: &dyn TokenCounter,
) -> Result<PreparedAttachment, AttachmentError> {
    let name = clean_name(name);
    let kind = detect(&name, bytes)?;
    let size = bytes.len() as u64;
    check_file(&name, kind, size)?;
    let hash = sha256_hex(bytes);
    let mut prepared = PreparedAttachment {
        hash,
        name,
        kind,
        mime: String::new(),
        size,
        text: None,
        text_truncated: false,
        pages: None,
        image: None,
        token_count: 0,
    };
    match kind {
        AttachmentKind::Image(format) => {
            let image = prepare_image(&prepared.name, bytes, format)?;
            prepared.mime = format.mime().into();
            prepared.token_count = image_tokens(image.width, image.height);
            prepared.image = Some(image);
        }
        AttachmentKind::Pdf => {
            let pdf = extract_pdf_text(&prepared.name, bytes)?;
            prepared.mime = "application/pdf".into();
            prepared.token_count = text_tokens(counter, &pdf.text);
            prepared.text = Some(pdf.text);
            prepared.text_truncated = pdf.truncated;
            prepared.pages = Some(pdf.pages);
        }
        AttachmentKind::Text => {
            let (text, truncated) = decode_text(&prepared.name, bytes)?;
            prepared.mime = text_mime(&prepared.name).into();
            prepared.token_count = text_tokens(counter, &text);
            prepared.text = Some(text);
            prepared.text_truncated = truncated;
        }
    }
    Ok(prepared)
}

/// [`prepare`] on tokio's blocking pool, for async callers (the desktop commands, the CLI):
/// the runtime's threads stay free while an image is decoded or a PDF read.
pub async fn prepare_off_thread(
    name: String,
    bytes: Vec<u8>,
    counter: Arc<dyn TokenCounter>,
) -> Result<PreparedAttachment, AttachmentError> {
    let shown = name.clone();
    tokio::task::spawn_blocking(move || prepare(&name, &bytes, counter.as_ref()))
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(name = %shown, error = %e, "preparing an attachment did not finish");
            Err(AttachmentError::Internal {
                name: shown,
                reason: "the preparation stopped unexpectedly".into(),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::ImageFormat;
    use crate::tokens::TiktokenCounter;

    #[test]
    fn a_text_file_is_hashed_named_and_costed() {
        let p = prepare("/home/ana/notes.md", b"# Plan\nShip it.", &TiktokenCounter).unwrap();
        assert_eq!(p.name, "notes.md");
        assert_eq!(p.kind, AttachmentKind::Text);
        assert_eq!(p.mime, "text/markdown");
        assert_eq!(p.size, 15);
        assert_eq!(p.text.as_deref(), Some("# Plan\nShip it."));
        assert_eq!(p.token_count, TiktokenCounter.count("# Plan\nShip it."));
        assert!(p.token_count > 0);
        // sha256("# Plan\nShip it.") — the same bytes always give the same key.
        assert_eq!(p.hash, sha256_hex(b"# Plan\nShip it."));
        assert_eq!(p.hash.len(), 64);
        assert!(p.image.is_none());
    }

    #[tokio::test]
    async fn preparing_off_thread_gives_the_same_result_and_the_same_errors() {
        let counter: Arc<dyn TokenCounter> = Arc::new(TiktokenCounter);
        let p = prepare_off_thread("a.txt".into(), b"hello".to_vec(), counter.clone())
            .await
            .unwrap();
        assert_eq!(p, prepare("a.txt", b"hello", &TiktokenCounter).unwrap());
        let err = prepare_off_thread("b.bin".into(), vec![0, 1, 2], counter)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "unsupported");
    }

    #[test]
    fn sha256_is_the_standard_one() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn an_image_is_prepared_with_its_cost_from_the_sent_size() {
        let img = ::image::DynamicImage::ImageRgb8(::image::RgbImage::from_pixel(
            2000,
            1000,
            ::image::Rgb([10, 200, 30]),
        ));
        let mut png = Vec::new();
        img.write_with_encoder(::image::codecs::png::PngEncoder::new(&mut png))
            .unwrap();
        let p = prepare("chart.png", &png, &TiktokenCounter).unwrap();
        assert_eq!(p.kind, AttachmentKind::Image(ImageFormat::Png));
        assert_eq!(p.mime, "image/png");
        let image = p.image.as_ref().unwrap();
        assert_eq!((image.width, image.height), (1568, 784));
        assert_eq!(p.token_count, image_tokens(1568, 784));
        assert!(p.text.is_none());
    }

    #[test]
    fn a_pdf_gives_its_text_and_page_count() {
        let pdf = crate::attachments::pdf::tests::tiny_pdf(&["Hello from a PDF"]);
        let p = prepare("hello.pdf", &pdf, &TiktokenCounter).unwrap();
        assert_eq!(p.kind, AttachmentKind::Pdf);
        assert_eq!(p.mime, "application/pdf");
        assert_eq!(p.pages, Some(1));
        assert!(p
            .text
            .as_deref()
            .unwrap_or_default()
            .contains("Hello from a PDF"));
    }

    #[test]
    fn names_lose_folders_and_control_characters() {
        assert_eq!(clean_name("C:\\Users\\ana\\a\u{1b}[31mb.txt"), "a[31mb.txt");
        assert_eq!(clean_name("  \n "), "attachment");
        assert!(clean_name(&"é".repeat(200)).len() <= 255);
    }
}
