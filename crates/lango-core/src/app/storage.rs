//! What the user's data takes on disk, for Settings → About: the database (with its
//! write-ahead log), how many conversations it holds, the backups folder — and why today's
//! backup was not taken, when it was not. Read on demand; nothing is checked or opened
//! beyond a count.

use std::path::Path;

use super::dto::StorageUsage;
use super::{App, AppError};
use crate::store::recovery::{backups_footprint, BackupProblem};
use crate::store::side_file;

/// What the user reads about a backup that was not taken; the technical text as detail.
fn backup_problem_error(problem: &BackupProblem) -> AppError {
    match problem {
        BackupProblem::Damaged(why) => AppError::new(
            "backup_skipped_damaged",
            "Today's backup was not taken: the database fails SQLite's check, so the older copies are kept as they are. `lango doctor` checks the file and salvages what can still be read.",
        )
        .with_detail(why.clone()),
        BackupProblem::Failed(why) => AppError::new(
            "backup_failed",
            "Today's backup could not be made. The older copies are kept; Lango tries again at its next start.",
        )
        .with_detail(why.clone()),
    }
}

/// A file's size; 0 when it is not there (no write-ahead log after a clean close).
fn file_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

impl App {
    /// The database's size, its conversations, the backups' count, size and newest, and why
    /// today's backup was not taken (once its run tried).
    pub async fn storage_usage(&self) -> Result<StorageUsage, AppError> {
        let paths = self.paths();
        let database = paths.database_file();
        let conversations = self.inner.store.count_sessions().await?;
        let backups = backups_footprint(&paths.backups_dir());
        let backup_problem = match self.inner.backup_problem.lock() {
            Ok(slot) => slot.as_ref().map(backup_problem_error),
            Err(_) => None,
        };
        Ok(StorageUsage {
            database_bytes: file_bytes(&database) + file_bytes(&side_file(&database, "-wal")),
            conversations,
            backups: backups.count,
            backups_bytes: backups.bytes,
            newest_backup_at: backups.newest.map(|t| t.timestamp_millis()),
            backup_problem,
        })
    }
}
