//! [`AttachmentError`]: why a file cannot be attached, in plain words naming the file.

use super::describe::human_size;

/// Why a file cannot be attached. Every message names the file and says what to do where
/// there is something to do; the UI shows it as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachmentError {
    /// Not an image, PDF or text file Lango can send (`what` says what it looks like).
    #[error("\"{name}\" cannot be attached: it is {what}. Lango takes PNG, JPEG, WebP and GIF images, PDFs and text or code files.")]
    Unsupported { name: String, what: String },

    #[error("\"{name}\" is empty.")]
    Empty { name: String },

    #[error("\"{name}\" is {}; the limit for {kind} is {}.", human_size(*size), human_size(*limit))]
    TooLarge {
        name: String,
        kind: &'static str,
        size: u64,
        limit: u64,
    },

    /// The files of one message together are over the per-message cap.
    #[error("These attachments come to {} together; one message can carry at most {}. Send some of them in another message.", human_size(*total), human_size(*limit))]
    MessageTooLarge { total: u64, limit: u64 },

    #[error("One message can carry at most {limit} attachments; this one has {count}.")]
    TooMany { count: usize, limit: usize },

    /// Bigger in pixels than Lango decodes (refused before any pixel is decoded).
    #[error("\"{name}\" is {width}×{height} pixels, too large to open (the limit is {} megapixels, less for 16-bit images). Scale it down and attach it again.", max_pixels / 1_000_000)]
    ImageTooLarge {
        name: String,
        width: u32,
        height: u32,
        max_pixels: u64,
    },

    /// The image's bytes could not be decoded (cut short, damaged, or a variant the decoder
    /// does not know).
    #[error("\"{name}\" could not be read as an image: {reason}.")]
    BadImage { name: String, reason: String },

    #[error("\"{name}\" could not be read as a PDF: {reason}.")]
    BadPdf { name: String, reason: String },

    #[error("\"{name}\" is a password-protected PDF; Lango cannot read it. Save a copy without the password and attach that.")]
    Encrypted { name: String },

    /// A PDF without a text layer (a scan, or pages that are pictures of text).
    #[error("\"{name}\" has no text Lango can read (it may be a scan). Attach the pages as images, or a PDF with a text layer.")]
    NoText { name: String },

    #[error("\"{name}\" could not be prepared: {reason}.")]
    Internal { name: String, reason: String },

    /// A file on disk that could not be read (`missing`: it is not there).
    #[error("\"{name}\" could not be read: {reason}.")]
    Unreadable {
        name: String,
        reason: String,
        missing: bool,
    },
}

impl AttachmentError {
    /// A stable code for the UI and the CLI's exit messages.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unsupported { .. } => "unsupported",
            Self::Empty { .. } => "empty",
            Self::TooLarge { .. } => "too_large",
            Self::MessageTooLarge { .. } => "message_too_large",
            Self::TooMany { .. } => "too_many",
            Self::ImageTooLarge { .. } => "image_too_large",
            Self::BadImage { .. } => "bad_image",
            Self::BadPdf { .. } => "bad_pdf",
            Self::Encrypted { .. } => "encrypted",
            Self::NoText { .. } => "no_text",
            Self::Internal { .. } => "internal",
            Self::Unreadable { .. } => "unreadable",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_too_large_file_says_its_size_and_the_limit_in_plain_units() {
        let e = AttachmentError::TooLarge {
            name: "movie.gif".into(),
            kind: "images",
            size: 31 * 1024 * 1024,
            limit: 20 * 1024 * 1024,
        };
        assert_eq!(
            e.to_string(),
            "\"movie.gif\" is 31 MB; the limit for images is 20 MB."
        );
        assert_eq!(e.code(), "too_large");
    }
}
