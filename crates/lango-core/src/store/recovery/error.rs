//! What can go wrong while checking, restoring or salvaging, said so the user can act.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error("no backup named {name:?} in {}; `lango doctor` lists them", dir.display())]
    NoSuchBackup { name: String, dir: PathBuf },

    #[error("the backup {} cannot be used: {why}", path.display())]
    BackupUnusable { path: PathBuf, why: String },

    #[error("nothing could be read from {} ({detail}); try a backup instead", path.display())]
    NothingReadable { path: PathBuf, detail: String },

    #[error("there is no database at {} to salvage", path.display())]
    NoDatabase { path: PathBuf },

    #[error("cannot access {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("SQLite failed on {}: {detail}", path.display())]
    Sqlite { path: PathBuf, detail: String },

    #[error("the new database could not be prepared: {0}")]
    Store(#[from] crate::store::StoreError),
}

impl RecoveryError {
    pub(super) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(super) fn sqlite(path: &std::path::Path) -> impl Fn(rusqlite::Error) -> Self + '_ {
        move |e| Self::Sqlite {
            path: path.to_path_buf(),
            detail: e.to_string(),
        }
    }
}
