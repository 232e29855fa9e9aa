//! Importing conversations from another app's data export: ChatGPT's and Claude's
//! `conversations.json` (JSON only; a zip archive is refused with "unzip it first").
//!
//! Owns the formats (`chatgpt`, `claude`), recognising and streaming a file (`detect`),
//! writing into the store with the summary (`write`; the SQL and the re-import rules are the
//! store's, `store::imports`), and building the memory of imported conversations afterwards
//! (`memory`: a cost estimate first, then the observer and reflector, cancellable).
//!
//! Nothing here touches the network. A file is read and converted whole before anything is
//! written, so a broken file imports nothing; each conversation is then written in
//! transactions of a few hundred messages (`store::imports`). Imported messages are plain
//! stored messages with their original times and order: searchable, shown in the sidebar
//! under the original title, observed by the memory like any other. A re-import adds no duplicates (see `store::imports`).

mod chatgpt;
mod claude;
mod detect;
mod error;
pub mod memory;
mod model;
mod write;

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use detect::{read_export, source_of, Export};
pub use error::ImportError;
pub use model::{Conversation, Message, SkipReason, Source};
pub use write::write_export;

use crate::store::Store;

/// Where progress goes (called from the reading thread and the writing task).
pub type ProgressFn = dyn Fn(ImportProgress) + Send + Sync;

/// How far an import is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ImportProgress {
    /// Reading and converting the file.
    Reading { bytes_read: u64, total_bytes: u64 },
    /// Writing conversations: `done` of `total`.
    Writing { done: usize, total: usize },
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub source: Source,
    /// Conversations in the file.
    pub conversations: usize,
    /// New conversations.
    pub created: usize,
    /// Conversations imported before that had new messages (appended).
    pub updated: usize,
    /// Conversations imported before with nothing new.
    pub unchanged: usize,
    pub messages_imported: usize,
    /// Conversations left out, by reason.
    pub skipped_conversations: Vec<SkipCount>,
    /// Messages left out, by reason.
    pub skipped_messages: Vec<SkipCount>,
    /// Images, files and other parts kept as a plain-text note such as `[image: file-abc]`.
    pub notes: usize,
    /// Keys of the sessions created, appended to or already imported unchanged (for building
    /// their memory: a re-import of the same file offers it too).
    pub sessions: Vec<String>,
    /// Stopped before the end: the conversations written so far stay.
    pub cancelled: bool,
}

impl Default for ImportSummary {
    fn default() -> Self {
        Self {
            source: Source::ChatGpt,
            conversations: 0,
            created: 0,
            updated: 0,
            unchanged: 0,
            messages_imported: 0,
            skipped_conversations: Vec::new(),
            skipped_messages: Vec::new(),
            notes: 0,
            sessions: Vec::new(),
            cancelled: false,
        }
    }
}

/// How many things were left out for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkipCount {
    pub reason: SkipReason,
    /// The reason in words.
    pub description: String,
    pub count: usize,
    /// A few of the conversations' titles (conversations only).
    pub titles: Vec<String>,
}

impl SkipCount {
    fn new(reason: SkipReason) -> Self {
        Self {
            reason,
            description: reason.describe().to_owned(),
            count: 0,
            titles: Vec::new(),
        }
    }
}

/// Imports the export at `path`: reads and converts it on a blocking thread (progress as it
/// goes), then writes it. A file that cannot be read whole is an error and nothing is
/// written.
pub async fn import_file(
    store: &Store,
    path: &Path,
    progress: Arc<ProgressFn>,
    cancel: CancellationToken,
) -> Result<ImportSummary, ImportError> {
    let read = {
        let (path, progress, cancel) = (path.to_owned(), progress.clone(), cancel.clone());
        tokio::task::spawn_blocking(move || read_export(&path, progress.as_ref(), &cancel))
    };
    let export = match read.await {
        Ok(result) => result?,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => return Err(ImportError::Cancelled),
    };
    tracing::info!(
        source = export.source.as_str(),
        conversations = export.conversations.len(),
        "import: file read"
    );
    let summary = write_export(store, export, progress.as_ref(), &cancel).await?;
    tracing::info!(
        created = summary.created,
        updated = summary.updated,
        unchanged = summary.unchanged,
        messages = summary.messages_imported,
        "import: done"
    );
    Ok(summary)
}
