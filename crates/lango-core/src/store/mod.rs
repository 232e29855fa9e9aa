//! The SQLite store: sessions, messages, the compaction archive, observations, reflections
//! and full-text search, in one database file.
//!
//! Owns the schema (migrations/), every SQL statement and the transactions that keep the data
//! consistent. It must not call providers or decide *when* to compact or observe: the agent
//! and memory engines do that and call in here.
//!
//! Writes are serialised in the process by one write gate: message appends and updates run
//! on a dedicated connection inline (`hot_path`, the chat's hot path), every other write on
//! a single-connection sqlx pool; both take the gate, so `seq` is monotonic without retry
//! loops and no transaction ever meets another's write lock in this process. Every
//! multi-statement write begins with `BEGIN IMMEDIATE` (`write_tx`), so against other
//! processes it waits for the lock through the busy timeout. Reads use a separate pool —
//! except the two context assembly runs before every model call, which run inline on a
//! dedicated read connection (`hot_path`) — and, thanks to WAL, never wait for a writer.

mod attachments;
mod compaction;
mod error;
mod find;
mod hangul;
mod hot_path;
mod imports;
mod index_form;
mod knowledge;
mod knowledge_delta;
mod legacy_results;
mod marks;
mod memory;
mod memory_failures;
mod memory_records;
mod messages;
mod migration_lock;
mod models;
mod note_index;
mod open;
mod pacing;
mod plain_text;
mod query_terms;
mod read_only;
pub mod recovery;
mod reindex_walk;
mod replies;
mod rewind;
mod search;
mod search_candidates;
mod search_index;
mod search_query;
mod search_rank;
mod sessions;
mod side_file;
mod snippet;
mod state;
mod tokens;
mod tool_results;
mod unspaced;
mod vectors;
mod writable;
mod write_tx;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sqlx::SqlitePool;
use tokio::sync::{Mutex, MutexGuard};

use crate::tokens::TokenCounter;

pub use attachments::{AttachmentRef, StoredAttachment};
pub use compaction::{SummaryRow, SUMMARY_PREFIX};
pub use error::{StoreError, StoreResult};
pub use find::{FindMatches, FIND_MAX};
pub use imports::{ImportOutcome, ImportRow, ImportWrite};
pub use knowledge::{KnowledgeDoc, MemoryState, PendingEmbedding};
pub use knowledge_delta::{KnowledgeStats, MemoryDelta};
pub use memory_failures::MemoryFailure;
pub use models::{
    HistoryTail, MessageKind, MessageStatus, NewMessage, Observation, Recorded, Reflection,
    ReplyInfo, SearchHit, SearchHitKind, SearchResults, Session, StoredMessage, ToolCall,
    ToolCallMeta, ToolCallStatus, ToolImage,
};
pub use open::MIGRATOR;
pub use sessions::SessionCursor;
pub(crate) use side_file::side_file;
pub use tool_results::{HEAD_BYTES, INLINE_RESULT_BYTES};
pub use vectors::{Triple, VectorRow};
pub use writable::folder_is_writable;

pub(crate) use snippet::{plain_snippet, SNIPPET_TOKENS};
pub(crate) use tokens::{fold, index_words, retrieval_words, term_frequencies, word_counts};
pub(crate) use unspaced::has_set_apart;

/// Where one of retrieval's reads runs (`hot_path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOn {
    /// Before a model call: inline on the hot read connection.
    SendPath,
    /// Background work (retrieval's refresh after a memory cycle, dozens of keywords at
    /// once): the background connection, on a blocking thread, so the send path's reads
    /// never wait behind it.
    Background,
}

/// A handle to the database. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Held by every write, on either connection (see the module doc).
    write_gate: Mutex<()>,
    /// Message appends and updates (`hot_path`).
    hot_writer: hot_path::HotConnection,
    /// The reads before each model call (`hot_path`).
    hot_reader: hot_path::HotConnection,
    /// The same statements run in the background (retrieval's refresh after a memory cycle):
    /// always on a blocking thread, so a long one neither blocks an executor thread nor
    /// keeps the send path's reads waiting for `hot_reader`.
    background_reader: hot_path::HotConnection,
    writer: SqlitePool,
    reader: SqlitePool,
    path: PathBuf,
    backups_dir: PathBuf,
    counter: Arc<dyn TokenCounter>,
    /// Opened read-only (`read_only.rs`): nothing to checkpoint at close.
    read_only: bool,
    /// The background search indexing (`search_index`).
    indexer: search_index::Indexer,
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
        self.inner.indexer.stop();
        let _gate = self.inner.write_gate.lock().await;
        self.inner.hot_writer.close();
        self.inner.hot_reader.close();
        self.inner.background_reader.close();
        self.inner.reader.close().await;
        if self.inner.read_only {
            self.inner.writer.close().await;
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.inner.writer)
            .await
        {
            tracing::warn!(error = %e, "WAL checkpoint at close failed; the WAL file keeps the data");
        }
        self.inner.writer.close().await;
    }

    /// The sqlx write connection, with the write gate held until the returned guard drops.
    async fn writer(&self) -> Writer<'_> {
        Writer {
            _gate: self.inner.write_gate.lock().await,
            pool: &self.inner.writer,
        }
    }

    /// Runs one short autocommit statement on the hot write connection, gate held.
    async fn hot_write<T, F>(&self, statement: F) -> StoreResult<T>
    where
        F: Fn(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let _gate = self.inner.write_gate.lock().await;
        let done = self
            .inner
            .hot_writer
            .run(statement)
            .await
            .map_err(|e| error::classify_hot(e, &self.inner.path, &self.inner.backups_dir));
        // Appends and edits queue messages for the search index (migration 0005).
        self.inner.indexer.wake();
        done
    }

    /// Runs one read on the hot read connection (no gate: reads never wait for writers).
    async fn hot_read<T, F>(&self, statement: F) -> StoreResult<T>
    where
        F: Fn(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        self.inner
            .hot_reader
            .run(statement)
            .await
            .map_err(|e| error::classify_hot(e, &self.inner.path, &self.inner.backups_dir))
    }

    /// Runs one read on the connection `on` names.
    async fn read_on<T, F>(&self, on: ReadOn, statement: F) -> StoreResult<T>
    where
        F: Fn(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        match on {
            ReadOn::SendPath => self.hot_read(statement).await,
            ReadOn::Background => self.background_read(statement).await,
        }
    }

    /// Runs one read on the background read connection, on a blocking thread (see
    /// `Inner::background_reader`).
    async fn background_read<T, F>(&self, statement: F) -> StoreResult<T>
    where
        F: Fn(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        self.inner
            .background_reader
            .run_blocking(statement)
            .await
            .map_err(|e| error::classify_hot(e, &self.inner.path, &self.inner.backups_dir))
    }

    fn reader(&self) -> &SqlitePool {
        &self.inner.reader
    }

    /// Turns a sqlx error into a [`StoreError`] that knows this database's path.
    fn err(&self, e: sqlx::Error) -> StoreError {
        error::classify(e, &self.inner.path, &self.inner.backups_dir)
    }

    /// A new store in a temporary folder (kept while the returned guard lives), for the
    /// store's own tests.
    #[cfg(test)]
    pub(crate) async fn open_temporary() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("lango.db"))
            .await
            .expect("opens");
        (dir, store)
    }

    /// The steps of `EXPLAIN QUERY PLAN <statement>`, its parameters bound to 1: for tests
    /// that pin how a statement reads its tables.
    #[cfg(test)]
    pub(crate) async fn query_plan(&self, statement: &str) -> Vec<String> {
        let plan: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "EXPLAIN QUERY PLAN {statement}"
        )))
        .bind(1_i64)
        .bind(1_i64)
        .fetch_all(self.reader())
        .await
        .expect("a query plan");
        plan.into_iter().map(|step| step.3).collect()
    }
}

/// The write pool, borrowed with the write gate held.
struct Writer<'a> {
    _gate: MutexGuard<'a, ()>,
    pool: &'a SqlitePool,
}

impl std::ops::Deref for Writer<'_> {
    type Target = SqlitePool;
    fn deref(&self) -> &SqlitePool {
        self.pool
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
