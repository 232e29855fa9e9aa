//! A PDF's text layer, through `pdf-extract` (on `lopdf`), page by page until
//! [`MAX_TEXT_BYTES`] is reached.
//!
//! `pdf-extract` panics on many kinds of malformed or unusual input (unknown encodings,
//! missing fonts widths, `unwrap`s on the document's structure), so every call into it runs
//! under `catch_unwind`: a page that panics is skipped, a document that cannot be opened is
//! [`AttachmentError::BadPdf`]. Pure CPU work (seconds for a long document): callers run it
//! on a blocking thread.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pdf_extract::{output_doc_page, Document, PlainTextOutput};

use super::error::AttachmentError;
use super::limits::MAX_TEXT_BYTES;
use super::text::cap_text;

/// What a PDF's text layer gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfText {
    pub text: String,
    /// Pages in the document (read or not).
    pub pages: usize,
    /// True when the text was cut at [`MAX_TEXT_BYTES`] (later pages not read).
    pub truncated: bool,
}

/// The text of the PDF `bytes`. A document that needs a password is
/// [`AttachmentError::Encrypted`]; one whose pages give no text (a scan) is
/// [`AttachmentError::NoText`].
pub fn extract_pdf_text(name: &str, bytes: &[u8]) -> Result<PdfText, AttachmentError> {
    let bad = |reason: String| AttachmentError::BadPdf {
        name: name.into(),
        reason,
    };
    // lopdf opens a document encrypted with the empty user password (copy or print
    // restrictions only) by itself; one that needs a real password stays encrypted.
    let doc = catch_unwind(|| Document::load_mem(bytes))
        .map_err(|_| bad("it is damaged".into()))?
        .map_err(|e| bad(format!("it is damaged or cut short ({e})")))?;
    if doc.is_encrypted() {
        return Err(AttachmentError::Encrypted { name: name.into() });
    }
    let pages = doc.get_pages();
    let mut text = String::new();
    let mut truncated = false;
    for &number in pages.keys() {
        if text.len() > MAX_TEXT_BYTES {
            truncated = true;
            break;
        }
        match page_text(&doc, number) {
            Ok(page) => {
                if !text.is_empty() && !page.trim().is_empty() && !text.ends_with("\n\n") {
                    text.push_str("\n\n");
                }
                text.push_str(&page);
            }
            Err(reason) => tracing::warn!(
                name,
                page = number,
                reason,
                "a PDF page's text could not be read; skipped"
            ),
        }
    }
    if text.trim().is_empty() {
        return Err(AttachmentError::NoText { name: name.into() });
    }
    let (text, cut) = cap_text(text);
    Ok(PdfText {
        text,
        pages: pages.len(),
        truncated: truncated || cut,
    })
}

/// One page's text; a panic inside pdf-extract is this page's error.
fn page_text(doc: &Document, number: u32) -> Result<String, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut page = String::new();
        let mut output = PlainTextOutput::new(&mut page);
        output_doc_page(doc, &mut output, number).map_err(|e| e.to_string())?;
        Ok(page)
    }))
    .unwrap_or_else(|_| Err("the PDF reader failed on it".into()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A one-page PDF written by hand (Helvetica, no compression) whose page shows `lines`,
    /// one under the other; no line at all gives a page without text. The cross-reference
    /// table's offsets are computed, so the file is valid.
    pub fn tiny_pdf(lines: &[&str]) -> Vec<u8> {
        let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
        for line in lines {
            content.push_str(&format!("({line}) Tj T*\n"));
        }
        content.push_str("ET");
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".to_string(),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
            format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        ];
        let mut pdf = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).bytes());
        }
        let xref = pdf.len();
        pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
        for offset in offsets {
            pdf.extend(format!("{offset:010} 00000 n \n").bytes());
        }
        pdf.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .bytes(),
        );
        pdf
    }

    #[test]
    fn the_text_of_a_simple_pdf_is_read() {
        let pdf = tiny_pdf(&["Quarterly report", "Revenue grew."]);
        let got = extract_pdf_text("report.pdf", &pdf).unwrap();
        assert_eq!(got.pages, 1);
        assert!(!got.truncated);
        assert!(got.text.contains("Quarterly report"), "{:?}", got.text);
        assert!(got.text.contains("Revenue grew."), "{:?}", got.text);
    }

    #[test]
    fn a_pdf_without_a_text_layer_is_no_text() {
        let err = extract_pdf_text("scan.pdf", &tiny_pdf(&[])).unwrap_err();
        assert_eq!(
            err,
            AttachmentError::NoText {
                name: "scan.pdf".into()
            }
        );
        assert!(err.to_string().contains("may be a scan"), "{err}");
    }

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/attachments");

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
    }

    #[test]
    fn a_password_protected_pdf_is_encrypted_not_garbage() {
        let err = extract_pdf_text("locked.pdf", &fixture("locked-aes256.pdf")).unwrap_err();
        assert_eq!(
            err,
            AttachmentError::Encrypted {
                name: "locked.pdf".into()
            }
        );
        assert!(err.to_string().contains("password-protected"), "{err}");
    }

    #[test]
    fn a_pdf_with_only_copy_restrictions_opens_without_a_password() {
        for file in ["restricted-aes128.pdf", "restricted-aes256.pdf"] {
            let got = extract_pdf_text(file, &fixture(file)).unwrap();
            assert!(
                got.text.contains("Quarterly report"),
                "{file}: {:?}",
                got.text
            );
        }
    }

    #[test]
    fn garbage_and_cut_pdfs_are_clear_errors_never_a_panic() {
        let garbage: Vec<u8> = b"%PDF-1.7\n"
            .iter()
            .copied()
            .chain((0..4000u32).map(|i| (i * 31 % 256) as u8))
            .collect();
        let err = extract_pdf_text("junk.pdf", &garbage).unwrap_err();
        assert_eq!(err.code(), "bad_pdf", "{err:?}");
        assert!(
            err.to_string()
                .starts_with("\"junk.pdf\" could not be read as a PDF"),
            "{err}"
        );
        let whole = tiny_pdf(&["Hello"]);
        let cut = &whole[..whole.len() / 3];
        assert!(extract_pdf_text("cut.pdf", cut).is_err());
    }
}
