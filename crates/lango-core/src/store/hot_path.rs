//! The chat's hot path: the few statements every turn or every model call runs, on dedicated
//! rusqlite connections, inline on the caller's thread. One connection writes (message
//! appends and updates), one reads (what context assembly reads before each model call: the
//! memory state and the knowledge search). A third runs the same reads for background work
//! (retrieval's refresh), always on a blocking thread (`HotConnection::run_blocking`), so
//! the send path never waits behind it for the connection or an executor thread.
//!
//! Why not sqlx here: every sqlx SQLite query is a round trip to the connection's worker
//! thread plus a pool checkout with a liveness ping, and every row of a result is one more
//! wake-up. On this class of machine each thread hop costs ~100 µs, several times the ~140 µs
//! an insert takes (which capped durable appends near 1,650/s) and a third of a knowledge
//! search. The statements here run where the caller is, with no hop.
//!
//! Owns only the connections and how statements run on them; the SQL of each statement stays
//! with the module that owns its tables (`messages.rs`, `knowledge.rs`). It must not run long
//! transactions: an inline statement blocks the calling executor thread while it runs.
//!
//! In-process ordering of writes with the sqlx writer comes from the store's write gate (see
//! `Store::writer`), taken by every write on either connection. A statement that cannot run
//! at once — another process holds the database lock (SQLITE_BUSY, busy timeout 0 inline), or
//! another task is using the connection — is run on a blocking thread instead, which waits
//! like the sqlx connections do.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

/// The background connection's page cache (KiB): its reads are occasional, and the
/// operating system caches the file anyway; SQLite's default 2 MiB per connection showed up
/// in the soak's memory growth.
pub(super) const BACKGROUND_CACHE_KIB: u32 = 256;

/// What a hot connection may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    ReadWrite,
    ReadOnly,
}

/// A statement runner over one connection. Cheap to clone.
#[derive(Clone)]
pub(super) struct HotConnection {
    conn: Arc<Mutex<Option<Connection>>>,
    busy_timeout: Duration,
}

impl std::fmt::Debug for HotConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotConnection").finish_non_exhaustive()
    }
}

/// Why a hot statement did not run.
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

impl HotConnection {
    /// Opens a connection to an existing, migrated database with the same per-connection
    /// settings as the sqlx pools (WAL is a property of the file and already set).
    pub(super) fn open(
        path: &Path,
        access: Access,
        busy_timeout: Duration,
    ) -> rusqlite::Result<Self> {
        let flags = match access {
            Access::ReadWrite => OpenFlags::SQLITE_OPEN_READ_WRITE,
            Access::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
        };
        let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        if access == Access::ReadWrite {
            conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        }
        // Inline attempts never wait: waiting is the blocking retry's job.
        conn.busy_timeout(Duration::ZERO)?;
        Ok(HotConnection {
            conn: Arc::new(Mutex::new(Some(conn))),
            busy_timeout,
        })
    }

    /// Opens a read-only connection by SQLite URI (`read_only.rs`: immutable or `mode=ro`).
    pub(super) fn open_read_only(uri: &str, busy_timeout: Duration) -> rusqlite::Result<Self> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(uri, flags)?;
        conn.busy_timeout(Duration::ZERO)?;
        Ok(HotConnection {
            conn: Arc::new(Mutex::new(Some(conn))),
            busy_timeout,
        })
    }

    /// Runs `statement`, which must be a single autocommit statement (or a read): when it
    /// fails with SQLITE_BUSY nothing was written, so it is safe to run again.
    pub(super) async fn run<T, F>(&self, statement: F) -> Result<T, HotError>
    where
        F: Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        if let Some(done) = self.try_inline(&statement) {
            return done;
        }
        // Wait for the lock, or for the connection, off the executor.
        self.run_blocking(statement).await
    }

    /// Runs `statement` on a blocking thread, never inline: for statements that may run long
    /// (background work), which must not hold an executor thread.
    pub(super) async fn run_blocking<T, F>(&self, statement: F) -> Result<T, HotError>
    where
        F: Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let hot = self.clone();
        tokio::task::spawn_blocking(move || {
            hot.with_conn(|conn| {
                conn.busy_timeout(hot.busy_timeout)?;
                let result = statement(conn);
                conn.busy_timeout(Duration::ZERO)?;
                result
            })
        })
        .await
        .unwrap_or_else(|join| Err(HotError::Aborted(join.to_string())))
    }

    /// Caps the connection's page cache at `kib` KiB (SQLite's default is 2 MiB): for the
    /// background connection, whose occasional reads need no cache of their own.
    pub(super) fn limit_cache(self, kib: u32) -> Result<Self, HotError> {
        self.with_conn(|conn| conn.execute_batch(&format!("PRAGMA cache_size = -{kib};")))?;
        Ok(self)
    }

    /// Closes the connection; later statements fail with [`HotError::Closed`].
    pub(super) fn close(&self) {
        let conn = self
            .conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(conn) = conn {
            if let Err((_, e)) = conn.close() {
                tracing::warn!(error = %e, "closing a hot-path database connection failed");
            }
        }
    }

    /// Runs `f` now if the connection is free; never waits. None: another task is using the
    /// connection, or another process holds the database lock (SQLITE_BUSY, nothing done).
    fn try_inline<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Option<Result<T, HotError>> {
        let guard = match self.conn.try_lock() {
            Ok(guard) => guard,
            // A panic inside a statement closure leaves the connection usable (SQLite rolls
            // back an unfinished autocommit statement on reset), so poison is not fatal.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let Some(conn) = guard.as_ref() else {
            return Some(Err(HotError::Closed));
        };
        match f(conn) {
            Err(e) if is_busy(&e) => None,
            done => Some(done.map_err(HotError::from)),
        }
    }

    fn with_conn<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, HotError> {
        let guard = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let conn = guard.as_ref().ok_or(HotError::Closed)?;
        Ok(f(conn)?)
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
}
