//! The store's error type: what went wrong, in terms a user or caller can act on.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{what} not found")]
    NotFound { what: String },

    #[error("a session with key {key:?} already exists")]
    Duplicate { key: String },

    #[error("the database refused the change: {0}")]
    Constraint(String),

    #[error("index {index} is out of range: the session has {len} messages in its history")]
    OutOfRange { index: usize, len: usize },

    #[error(
        "the database at {} is corrupt or not a Lango database ({detail}); it was left untouched. {} `lango doctor` checks it, restores a backup or salvages what can still be read",
        path.display(),
        match backup { Some(b) => format!("The newest backup is {}.", b.display()), None => "No backup exists yet.".to_string() }
    )]
    Corrupt {
        path: PathBuf,
        backup: Option<PathBuf>,
        detail: String,
    },

    #[error(
        "the database at {} was written by a newer version of Lango (schema version {version}); update Lango to open it",
        path.display()
    )]
    TooNew { path: PathBuf, version: i64 },

    #[error(
        "Lango cannot write to {}: {why}. Check the permissions of the folder and the file (and that the disk is not mounted read-only), or keep Lango's data in another folder (LANGO_HOME, or --data-dir for the CLI)",
        path.display()
    )]
    ReadOnly { path: PathBuf, why: String },

    #[error("cannot access {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("stored data is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),

    #[error(
        "the disk holding {} is full: nothing more could be written ({detail}). Free some space; what was stored before is intact",
        path.display()
    )]
    Full { path: PathBuf, detail: String },

    #[error(
        "Lango could not write to {} (a disk I/O error: {detail}). If the disk is full, free some space; what was stored before is intact",
        path.display()
    )]
    DiskIo { path: PathBuf, detail: String },

    #[error("database error: {0}")]
    Database(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// SQLite's primary result codes: the file itself is damaged (corrupt, not a database), or a
/// constraint refused the change.
const SQLITE_CORRUPT: i64 = 11;
const SQLITE_NOTADB: i64 = 26;
const SQLITE_CONSTRAINT: i64 = 19;
const SQLITE_READONLY: i64 = 8;
const SQLITE_FULL: i64 = 13;
const SQLITE_IOERR: i64 = 10;

/// The error a SQLite result code (extended or primary) means for the user, whichever
/// connection reported it; None when the code has no meaning of its own here.
fn by_sqlite_code(
    code: i64,
    message: &str,
    path: &std::path::Path,
    backups_dir: &std::path::Path,
) -> Option<StoreError> {
    // Extended codes carry the primary code in the low byte.
    match code & 0xff {
        SQLITE_CORRUPT | SQLITE_NOTADB => Some(StoreError::Corrupt {
            path: path.to_path_buf(),
            backup: newest_backup(backups_dir),
            detail: message.to_string(),
        }),
        SQLITE_CONSTRAINT => Some(StoreError::Constraint(message.to_string())),
        SQLITE_IOERR => Some(StoreError::DiskIo {
            path: path.to_path_buf(),
            detail: message.to_string(),
        }),
        SQLITE_FULL => Some(StoreError::Full {
            path: path.to_path_buf(),
            detail: message.to_string(),
        }),
        SQLITE_READONLY => Some(StoreError::ReadOnly {
            path: path.to_path_buf(),
            why: super::writable::read_only_reason(path)
                .unwrap_or_else(|| format!("the database refused the write ({message})")),
        }),
        _ => None,
    }
}

/// Maps a sqlx error, knowing which database file it came from, so corruption is reported
/// with the path and the newest backup instead of as a generic failure.
pub(crate) fn classify(
    err: sqlx::Error,
    path: &std::path::Path,
    backups_dir: &std::path::Path,
) -> StoreError {
    if let sqlx::Error::Database(db) = &err {
        let code = db.code().and_then(|c| c.parse::<i64>().ok());
        if let Some(e) = code.and_then(|c| by_sqlite_code(c, db.message(), path, backups_dir)) {
            return e;
        }
    }
    if let sqlx::Error::Io(io) = err {
        return StoreError::Io {
            path: path.to_path_buf(),
            source: io,
        };
    }
    StoreError::Database(err.to_string())
}

/// Maps an error of a hot-path connection the same way as [`classify`].
pub(super) fn classify_hot(
    err: super::hot_path::HotError,
    path: &std::path::Path,
    backups_dir: &std::path::Path,
) -> StoreError {
    use super::hot_path::HotError;
    match err {
        HotError::Closed => StoreError::Database("the store is closed".to_string()),
        HotError::Aborted(why) => {
            StoreError::Database(format!("the database call was aborted: {why}"))
        }
        HotError::Sqlite(rusqlite::Error::SqliteFailure(code, message)) => {
            let message = message.unwrap_or_else(|| code.to_string());
            by_sqlite_code(i64::from(code.extended_code), &message, path, backups_dir)
                .unwrap_or(StoreError::Database(message))
        }
        HotError::Sqlite(other) => StoreError::Database(other.to_string()),
    }
}

/// The most recent file in the backups folder, if any, by the time in its name (daily and
/// upgrade backups are named differently), else by its modification time.
pub(crate) fn newest_backup(backups_dir: &std::path::Path) -> Option<PathBuf> {
    super::recovery::backup_files(backups_dir)
        .into_iter()
        .max_by_key(|(path, taken)| (*taken, path.clone()))
        .map(|(path, _)| path)
}
