//! The whole picture `lango doctor` and the app's recovery screen show: the database's
//! state and every backup, and which backup to pick.

use std::path::{Path, PathBuf};

use super::backups::{list_backups, Backup};
use super::error::RecoveryError;
use super::health::{check_file, Depth, Health};
use crate::paths::AppPaths;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub database: PathBuf,
    pub size: u64,
    pub health: Health,
    pub backups_dir: PathBuf,
    /// Newest first.
    pub backups: Vec<Backup>,
}

impl Diagnosis {
    /// The backup to restore: the newest one that passes its check.
    pub fn best_backup(&self) -> Option<&Backup> {
        self.backups.iter().find(|b| b.health.is_usable())
    }
}

/// Checks the database of `paths` thoroughly and lists its backups (a blocking call).
pub fn diagnose(paths: &AppPaths) -> Diagnosis {
    let database = paths.database_file();
    Diagnosis {
        size: std::fs::metadata(&database).map_or(0, |m| m.len()),
        health: check_file(&database, Depth::Full),
        backups_dir: paths.backups_dir(),
        backups: list_backups(&paths.backups_dir()),
        database,
    }
}

/// A backup named as `lango doctor` lists it (a file name in the backups folder) or by path.
pub fn resolve_backup(backups_dir: &Path, name: &str) -> Result<PathBuf, RecoveryError> {
    let listed = backups_dir.join(name);
    // Only a bare file name is looked up in the folder; anything else is a path.
    if Path::new(name).file_name().is_some_and(|f| f == name) && listed.is_file() {
        return Ok(listed);
    }
    let given = PathBuf::from(name);
    if given.is_file() {
        return Ok(given);
    }
    Err(RecoveryError::NoSuchBackup {
        name: name.to_string(),
        dir: backups_dir.to_path_buf(),
    })
}
