//! Lango's engine. Owns everything a chat needs that is not a window: the SQLite store,
//! token counting, configuration, secrets, the model providers, the agent runtime, the
//! observational memory, the update check (`update`), and `app`, the typed service the desktop shell exposes as commands.
//!
//! It must not depend on tauri, GTK or any GUI crate: the desktop shell and the CLI are thin
//! callers of this crate, and its tests build without a display.

pub mod agent;
pub mod allocator;
pub mod app;
pub mod attachments;
pub mod config;
pub mod conversation;
pub mod engine;
pub mod export;
pub mod import;
pub mod instance;
pub mod memory;
pub mod paths;
pub mod provider;
pub mod secrets;
pub mod store;
pub mod text;
pub mod tokens;
pub mod tools;
pub mod update;
