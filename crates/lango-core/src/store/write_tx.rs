//! The one way a multi-statement write begins: [`Store::begin_write`].
//!
//! Every write transaction takes the process's write gate and starts with `BEGIN IMMEDIATE`,
//! which takes SQLite's write lock up front and waits for it through the busy timeout. A
//! deferred `BEGIN` only reads first and asks for the write lock at its first write; if
//! another process wrote in between, SQLite cannot wait (the snapshot is already stale) and
//! fails at once with SQLITE_BUSY (5) or SQLITE_BUSY_SNAPSHOT (517), busy timeout or not.
//! A transaction that holds the lock from its first statement never meets either.

use std::ops::{Deref, DerefMut};

use sqlx::sqlite::SqliteConnection;
use sqlx::{Sqlite, Transaction};
use tokio::sync::MutexGuard;

use super::error::StoreResult;
use super::Store;

/// A write transaction holding SQLite's write lock and the store's write gate. Dropped
/// without [`WriteTx::commit`], it rolls back. Derefs to the connection, so `&mut *tx` is an
/// executor.
pub(super) struct WriteTx<'a> {
    // Field order matters: the transaction ends (or queues its rollback) before the gate
    // opens for the next writer of this process.
    tx: Transaction<'static, Sqlite>,
    _gate: MutexGuard<'a, ()>,
    /// Woken after a commit: an import, a compaction or an edit may have queued messages
    /// for the search index, which the background task then indexes in small batches.
    indexer: &'a super::search_index::Indexer,
}

impl Store {
    /// Begins a write transaction with `BEGIN IMMEDIATE` on the write connection, the write
    /// gate held until it ends. Every write transaction of the store starts here.
    pub(super) async fn begin_write(&self) -> StoreResult<WriteTx<'_>> {
        let gate = self.inner.write_gate.lock().await;
        let tx = self
            .inner
            .writer
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(|e| self.err(e))?;
        Ok(WriteTx {
            tx,
            _gate: gate,
            indexer: &self.inner.indexer,
        })
    }
}

impl WriteTx<'_> {
    pub(super) async fn commit(self) -> Result<(), sqlx::Error> {
        let indexer = self.indexer;
        self.tx.commit().await?;
        indexer.wake();
        Ok(())
    }

    /// Commits without waking the search indexing: for the indexing's own batches (it goes
    /// on by itself while messages are queued).
    pub(super) async fn commit_quietly(self) -> Result<(), sqlx::Error> {
        self.tx.commit().await
    }
}

impl Deref for WriteTx<'_> {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.tx
    }
}

impl DerefMut for WriteTx<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.tx
    }
}
