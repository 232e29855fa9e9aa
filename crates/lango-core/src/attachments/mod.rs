//! Files a user attaches to a message: images (PNG, JPEG, WebP, GIF), PDFs and text or code
//! files, turned into what the store keeps and the providers are sent.
//!
//! Owns `kind` (what a file is, from its bytes and name), `limits` (the size caps and why),
//! `image` (bounded decode, downscale to the providers' limits), `encode` (PNG or JPEG, no
//! metadata), `pdf` (its text layer), `text` (UTF-8 text, its cap), `tokens` (an
//! attachment's estimated token cost), `prepare` (all of it for one file: hash, kind, text
//! or image, cost) and `describe` (the compact one-line description memory and exports use
//! — never base64). Errors are one [`AttachmentError`] in plain words naming the file.
//!
//! It must not touch the store, the providers or the file system: callers pass bytes in and
//! keep what comes out. Decoding an image or a PDF is CPU work of up to seconds on a large
//! file, so callers run [`prepare`] on a blocking thread ([`prepare_off_thread`] does),
//! never on the async runtime or the UI thread.

mod describe;
mod encode;
mod error;
mod file;
mod image;
mod kind;
pub mod limits;
mod pdf;
mod prepare;
mod text;
mod tokens;

pub use describe::{describe, human_size};
pub use error::AttachmentError;
pub use file::read_file;
pub use image::{prepare_image, PreparedImage};
pub use kind::{detect, AttachmentKind, ImageFormat};
pub use pdf::{extract_pdf_text, PdfText};
pub use prepare::{prepare, prepare_off_thread, sha256_hex, PreparedAttachment};
pub use text::{cap_text, decode_text};
pub use tokens::{image_tokens, text_tokens};
