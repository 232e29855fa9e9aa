//! What the user's data takes on disk, for Settings → About: the database (with its
//! write-ahead log), how many conversations it holds, and the backups folder. Read on
//! demand; nothing is checked or opened beyond a count.

use std::ffi::OsString;
use std::path::Path;

use super::dto::StorageUsage;
use super::{App, AppError};
use crate::store::recovery::backups_footprint;

/// A file's size; 0 when it is not there (no write-ahead log after a clean close).
fn file_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

impl App {
    /// The database's size, its conversations and the backups' count and size.
    pub async fn storage_usage(&self) -> Result<StorageUsage, AppError> {
        let paths = self.paths();
        let database = paths.database_file();
        let mut wal = OsString::from(database.as_os_str());
        wal.push("-wal");
        let conversations = self.inner.store.count_sessions().await?;
        let (backups, backups_bytes) = backups_footprint(&paths.backups_dir());
        Ok(StorageUsage {
            database_bytes: file_bytes(&database) + file_bytes(Path::new(&wal)),
            conversations,
            backups,
            backups_bytes,
        })
    }
}
