//! One process at a time creates or upgrades the database file.
//!
//! Without it, processes started together on a new data folder (the app and two CLIs) each
//! found no schema and applied the migrations at once, and about half failed with "schema
//! upgrade failed"; on an older database each made its own pre-upgrade backup. SQLite's own
//! lock cannot cover this: the pre-upgrade `VACUUM INTO` cannot run inside a transaction. So
//! the whole "read the version → back up → migrate" step runs under an exclusive OS file lock
//! on `<database>.migrate.lock` (as `crate::instance` locks `lango.lock`), and the version is
//! read only once the lock is held: the second process finds the work done.
//!
//! The lock file stays on disk (removing it would race with a process about to lock it); the
//! OS releases the lock when its holder exits, however it exits.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::error::{StoreError, StoreResult};

/// Held while the database is set up; dropping it lets the next process in.
#[derive(Debug)]
pub(super) struct MigrationLock {
    _file: Option<File>,
}

/// `lango.db` → `lango.db.migrate.lock`, in the same folder.
pub(super) fn lock_path(database: &Path) -> PathBuf {
    let mut name = database
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "lango.db".into());
    name.push(".migrate.lock");
    database.with_file_name(name)
}

/// Waits for the lock (off the async executor). A folder where the lock file cannot be
/// created (read-only) is set up without it: nobody can create or upgrade a database there.
pub(super) async fn acquire(database: &Path) -> StoreResult<MigrationLock> {
    let path = lock_path(database);
    tokio::task::spawn_blocking(move || lock(&path))
        .await
        .map_err(|e| StoreError::Database(format!("waiting for the set-up lock failed: {e}")))?
}

fn lock(path: &Path) -> StoreResult<MigrationLock> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(file) => file,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            tracing::debug!(path = %path.display(), error = %e, "no set-up lock in a read-only folder");
            return Ok(MigrationLock { _file: None });
        }
        Err(e) => return Err(io(e)),
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            tracing::info!(path = %path.display(), "waiting for another Lango process to finish setting up the database");
            file.lock().map_err(io)?;
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    Ok(MigrationLock { _file: Some(file) })
}
