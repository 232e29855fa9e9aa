//! Typed commands the UI calls through `invoke`, grouped by domain. Each is a one-line
//! call into `lango_core::app::App`; arguments and results are the serde types of
//! `lango_core::app::dto` (camelCase on the wire), errors are `AppError {code, message}`.

pub mod attachments;
pub mod chat;
pub mod conversation;
pub mod import;
pub mod memory;
pub mod recovery;
pub mod sessions;
pub mod settings;
pub mod status;
pub mod tools;
pub mod updates;
