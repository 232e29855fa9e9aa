//! The SQLite store: sessions, messages, the compaction archive, observations, reflections
//! and full-text search, in one database file.
//!
//! Owns the schema (migrations/), every SQL statement and the transactions that keep the data
//! consistent. It must not call providers or decide *when* to compact or observe: the agent
//! and memory engines do that and call in here.
//!
//! Writes go through a single-connection pool, so they are serialised in the process and
//! `seq` is monotonic without retry loops; reads use a separate pool and, thanks to WAL, never
//! wait for a writer.

mod compaction;
mod error;
mod knowledge;
mod memory;
mod memory_records;
mod messages;
mod models;
mod open;
mod rewind;
mod search;
mod sessions;
mod vectors;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sqlx::SqlitePool;

use crate::tokens::TokenCounter;

pub use compaction::SUMMARY_PREFIX;
pub use error::{StoreError, StoreResult};
pub use knowledge::{KnowledgeHit, MemoryState, PendingEmbedding};
pub use models::{
    HistoryTail, MessageKind, MessageStatus, NewMessage, Observation, Reflection, SearchHit,
    SearchHitKind, Session, StoredMessage, ToolCall,
};
pub use open::MIGRATOR;
pub use vectors::{Triple, VectorRow};

/// A handle to the database. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    writer: SqlitePool,
    reader: SqlitePool,
    path: PathBuf,
    backups_dir: PathBuf,
    counter: Arc<dyn TokenCounter>,
}

impl Store {
    /// The database file this store uses.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Where upgrade backups go.
    pub fn backups_dir(&self) -> &Path {
        &self.inner.backups_dir
    }

    /// The counter used for `token_count` of appended messages.
    pub fn counter(&self) -> &Arc<dyn TokenCounter> {
        &self.inner.counter
    }

    /// Closes both pools after folding the WAL into the database file, so the file on disk
    /// is complete by itself (copies, backups). Readers close first: the last connection to
    /// close checkpoints, and a read-only one cannot.
    pub async fn close(&self) {
        self.inner.reader.close().await;
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.inner.writer)
            .await
        {
            tracing::warn!(error = %e, "WAL checkpoint at close failed; the WAL file keeps the data");
        }
        self.inner.writer.close().await;
    }

    fn writer(&self) -> &SqlitePool {
        &self.inner.writer
    }

    fn reader(&self) -> &SqlitePool {
        &self.inner.reader
    }

    /// Turns a sqlx error into a [`StoreError`] that knows this database's path.
    fn err(&self, e: sqlx::Error) -> StoreError {
        error::classify(e, &self.inner.path, &self.inner.backups_dir)
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
