//! The one error type every command returns: the engine's [`AppError`], serialised as
//! `{ "code": "<stable_snake_case>", "message": "<human readable>" }`. The UI branches on
//! `code` and shows `message`; neither carries secrets.

pub use lango_core::app::AppError;
