//! The hot write path: appending and updating message rows on a dedicated rusqlite connection,
//! run inline on the caller's thread.
//!
//! Why not sqlx here: every sqlx SQLite query is a round trip to the connection's worker
//! thread plus a pool checkout with a liveness ping. On this class of machine each thread hop
//! costs ~100 µs, several times the ~140 µs the insert itself takes, which capped durable
//! appends near 1,650/s. The statement here runs where the caller is, with no hop.
//!
//! Owns only that connection and how it runs statements; the SQL of each write stays with the
//! module that owns the table (`messages.rs`). It must not run long transactions: it blocks
//! the calling executor thread for the duration of one short statement.
//!
//! In-process ordering with the sqlx writer comes from the store's write gate (see
//! `Store::writer`), taken by every write on either connection. Another *process* holding the
//! database lock (the CLI while the desktop app writes) makes the inline attempt fail at once
//! with SQLITE_BUSY; the statement is then retried on a blocking thread that waits for the
//! lock like the sqlx connections do.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

/// A statement runner over one connection. Cheap to clone.
#[derive(Clone)]
pub(super) struct HotWriter {
    conn: Arc<Mutex<Option<Connection>>>,
    busy_timeout: Duration,
}

impl std::fmt::Debug for HotWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotWriter").finish_non_exhaustive()
    }
}

/// Why a hot write did not happen.
#[derive(Debug)]
pub(super) enum HotError {
    /// The store was closed.
    Closed,
    Sqlite(rusqlite::Error),
    /// The blocking retry did not finish (its task panicked or the runtime shut down).
    Aborted(String),
}

impl From<rusqlite::Error> for HotError {
    fn from(e: rusqlite::Error) -> Self {
        HotError::Sqlite(e)
    }
}

impl HotWriter {
    /// Opens the connection to an existing, migrated database with the same per-connection
    /// settings as the sqlx pools (WAL is a property of the file and already set).
    pub(super) fn open(path: &Path, busy_timeout: Duration) -> rusqlite::Result<Self> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        // Inline attempts never wait: waiting is the blocking retry's job.
        conn.busy_timeout(Duration::ZERO)?;
        Ok(HotWriter {
            conn: Arc::new(Mutex::new(Some(conn))),
            busy_timeout,
        })
    }

    /// Runs `statement`, which must be a single autocommit statement: when it fails with
    /// SQLITE_BUSY nothing was written, so it is safe to run again.
    pub(super) async fn run<T, F>(&self, statement: F) -> Result<T, HotError>
    where
        F: Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        match self.with_conn(&statement) {
            Err(HotError::Sqlite(e)) if is_busy(&e) => {}
            done => return done,
        }
        // Another process holds the lock: wait for it off the executor.
        let writer = self.clone();
        tokio::task::spawn_blocking(move || {
            writer.with_conn(|conn| {
                conn.busy_timeout(writer.busy_timeout)?;
                let result = statement(conn);
                conn.busy_timeout(Duration::ZERO)?;
                result
            })
        })
        .await
        .unwrap_or_else(|join| Err(HotError::Aborted(join.to_string())))
    }

    /// Closes the connection; later writes fail with [`HotError::Closed`].
    pub(super) fn close(&self) {
        let conn = self
            .conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(conn) = conn {
            if let Err((_, e)) = conn.close() {
                tracing::warn!(error = %e, "closing the message write connection failed");
            }
        }
    }

    fn with_conn<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, HotError> {
        // A panic inside a statement closure leaves the connection usable (SQLite rolls back
        // an unfinished autocommit statement on reset), so a poisoned lock is not fatal.
        let guard = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let conn = guard.as_ref().ok_or(HotError::Closed)?;
        Ok(f(conn)?)
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
}
