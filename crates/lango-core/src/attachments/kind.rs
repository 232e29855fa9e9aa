//! What a file is, from its first bytes (magic numbers) and then its name: an image Lango
//! can send, a PDF, UTF-8 text, or something it refuses with a word on what it looks like.

use serde::{Deserialize, Serialize};

use super::error::AttachmentError;

/// The image formats every provider Lango talks to accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
    Webp,
    Gif,
}

impl ImageFormat {
    pub fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
            Self::Gif => "image/gif",
        }
    }

    /// The short name shown to people ("JPEG").
    pub fn label(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Webp => "WebP",
            Self::Gif => "GIF",
        }
    }

    /// The format of a mime type (`image/jpeg` → Jpeg).
    pub fn from_mime(mime: &str) -> Option<Self> {
        [Self::Png, Self::Jpeg, Self::Webp, Self::Gif]
            .into_iter()
            .find(|f| f.mime().eq_ignore_ascii_case(mime))
    }
}

/// What an attachment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentKind {
    Image(ImageFormat),
    Pdf,
    /// UTF-8 text or code (no NUL bytes).
    Text,
}

impl AttachmentKind {
    /// The kind's name in the store (`image`, `pdf`, `text`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Image(_) => "image",
            Self::Pdf => "pdf",
            Self::Text => "text",
        }
    }
}

/// The format whose magic number `bytes` starts with, if it is one of the four.
fn image_format(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageFormat::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageFormat::Jpeg)
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(ImageFormat::Webp)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(ImageFormat::Gif)
    } else {
        None
    }
}

/// PDF files start with `%PDF-`, though readers accept it anywhere in the first KiB (some
/// generators put a byte-order mark or junk first), and so does this.
fn is_pdf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    head.windows(5).any(|w| w == b"%PDF-")
}

/// What a known binary format that Lango cannot send looks like, for the error message.
fn known_binary(bytes: &[u8]) -> Option<&'static str> {
    let ftyp = |brands: &[&[u8]]| {
        bytes.len() >= 12 && &bytes[4..8] == b"ftyp" && brands.iter().any(|b| &bytes[8..12] == *b)
    };
    if ftyp(&[b"heic", b"heix", b"mif1", b"msf1", b"hevc"]) {
        Some("a HEIC image (convert it to JPEG or PNG first)")
    } else if ftyp(&[b"avif", b"avis"]) {
        Some("an AVIF image (convert it to JPEG or PNG first)")
    } else if bytes.starts_with(b"BM") && bytes.len() > 14 {
        Some("a BMP image (convert it to PNG first)")
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        Some("a TIFF image (convert it to PNG or JPEG first)")
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some("a ZIP archive or an Office document (export it as PDF or text first)")
    } else if bytes.starts_with(b"\x7fELF") || bytes.starts_with(b"MZ") {
        Some("a program")
    } else {
        None
    }
}

/// The extension of `name`, lower case, without the dot.
pub(super) fn extension(name: &str) -> String {
    std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Detects what the file is. The bytes decide; the name only explains a refusal (a `.png`
/// that is not a PNG) and picks a text file's mime type ([`text_mime`]).
pub fn detect(name: &str, bytes: &[u8]) -> Result<AttachmentKind, AttachmentError> {
    if bytes.is_empty() {
        return Err(AttachmentError::Empty { name: name.into() });
    }
    if let Some(format) = image_format(bytes) {
        return Ok(AttachmentKind::Image(format));
    }
    if is_pdf(bytes) {
        return Ok(AttachmentKind::Pdf);
    }
    let unsupported = |what: String| AttachmentError::Unsupported {
        name: name.into(),
        what,
    };
    if let Some(what) = known_binary(bytes) {
        return Err(unsupported(what.into()));
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if !body.contains(&0) && std::str::from_utf8(body).is_ok() {
        return Ok(AttachmentKind::Text);
    }
    let ext = extension(name);
    let what = match ext.as_str() {
        "png" | "jpg" | "jpeg" | "webp" | "gif" => {
            format!("named .{ext} but its contents are not that kind of image")
        }
        "pdf" => "named .pdf but its contents are not a PDF".into(),
        _ if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") => {
            "UTF-16 text (save it as UTF-8 first)".into()
        }
        _ => "binary data, not text".into(),
    };
    Err(unsupported(what))
}

/// A text file's mime type from its extension: the common ones by name, `text/plain` for
/// the rest (source code included — providers read it as text either way).
pub fn text_mime(name: &str) -> &'static str {
    match extension(name).as_str() {
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "xml" | "svg" => "text/xml",
        "json" => "application/json",
        "js" | "mjs" | "cjs" => "text/javascript",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_bytes_whatever_their_name() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(
            detect("photo.jpg", png),
            Ok(AttachmentKind::Image(ImageFormat::Png))
        );
        assert_eq!(
            detect("x", &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]),
            Ok(AttachmentKind::Image(ImageFormat::Jpeg))
        );
        assert_eq!(
            detect("x", b"RIFF\x10\0\0\0WEBPVP8 "),
            Ok(AttachmentKind::Image(ImageFormat::Webp))
        );
        assert_eq!(
            detect("x", b"GIF89a\x01\0\x01\0"),
            Ok(AttachmentKind::Image(ImageFormat::Gif))
        );
        assert_eq!(detect("report", b"%PDF-1.7\n"), Ok(AttachmentKind::Pdf));
    }

    #[test]
    fn utf8_text_and_code_are_text_with_or_without_a_bom() {
        assert_eq!(
            detect("main.rs", b"fn main() {}\n"),
            Ok(AttachmentKind::Text)
        );
        assert_eq!(
            detect("notes.md", "\u{feff}# Überschrift".as_bytes()),
            Ok(AttachmentKind::Text)
        );
        assert_eq!(text_mime("notes.MD"), "text/markdown");
        assert_eq!(text_mime("main.rs"), "text/plain");
    }

    #[test]
    fn binary_files_are_refused_saying_what_they_look_like() {
        let err = detect("archive.docx", b"PK\x03\x04\x14\0\x06\0").unwrap_err();
        assert!(err.to_string().contains("\"archive.docx\""), "{err}");
        assert!(err.to_string().contains("Office document"), "{err}");
        let err = detect("data.bin", b"abc\0def").unwrap_err();
        assert!(err.to_string().contains("binary data"), "{err}");
        let err = detect("fake.png", &[0x00, 0xFF, 0xFE, 0x80]).unwrap_err();
        assert!(err.to_string().contains("named .png"), "{err}");
        let err = detect("latin1.txt", b"caf\xE9").unwrap_err();
        assert_eq!(err.code(), "unsupported");
        assert!(matches!(
            detect("e.txt", b""),
            Err(AttachmentError::Empty { .. })
        ));
    }
}
