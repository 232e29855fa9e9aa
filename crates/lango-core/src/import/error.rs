//! Why an import failed, in words a user can act on. A file that cannot be read whole is
//! refused before anything is written: every message ends "Nothing was imported." where
//! that is true.

use std::path::PathBuf;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(
        "{} is a zip archive. Unzip it and import the conversations.json inside it. Nothing was imported.",
        path.display()
    )]
    Zip { path: PathBuf },

    #[error(
        "{} is not valid JSON (line {line}, column {column}: {reason}). Nothing was imported.",
        path.display()
    )]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
        reason: String,
    },

    #[error(
        "{} ends in the middle of a conversation: the file is incomplete (was it cut short while downloading or copying?). Nothing was imported.",
        path.display()
    )]
    Truncated { path: PathBuf },

    #[error(
        "{} is not a ChatGPT or Claude export: {why}. Choose the conversations.json file of the export. Nothing was imported.",
        path.display()
    )]
    NotAnExport { path: PathBuf, why: String },

    #[error(
        "conversation {number} ({title:?}) in {} could not be read: {reason}. Nothing was imported.",
        path.display()
    )]
    BadConversation {
        path: PathBuf,
        /// 1-based, as a person counts.
        number: usize,
        title: String,
        reason: String,
    },

    #[error("{} holds no conversations.", path.display())]
    Empty { path: PathBuf },

    #[error("the import was cancelled before anything was written")]
    Cancelled,

    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ImportError {
    /// A stable code for the desktop UI.
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::Io { .. } => "import_unreadable",
            ImportError::Zip { .. } => "import_zip",
            ImportError::NotJson { .. } | ImportError::Truncated { .. } => "import_not_json",
            ImportError::NotAnExport { .. } => "import_unknown_format",
            ImportError::BadConversation { .. } => "import_bad_conversation",
            ImportError::Empty { .. } => "import_empty",
            ImportError::Cancelled => "cancelled",
            ImportError::Store(_) => "store",
        }
    }
}
