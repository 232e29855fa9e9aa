//! Recovery for the desktop app when its database cannot be opened: the diagnosis, restoring
//! a backup, salvaging the damaged file. None of it needs an open [`App`](super::App) —
//! that is the point: these run when `App::open` failed.
//!
//! Thin async wrappers over `store::recovery` (which owns the rules), run off the async
//! threads because they read whole files.

use crate::paths::AppPaths;
use crate::store::recovery::{self, Diagnosis, RecoveryError, Restored, SalvageReport};

use super::AppError;

/// What a salvage made, and — when asked to apply it — how it was put in place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Salvaged {
    pub report: SalvageReport,
    pub applied: Option<Restored>,
}

impl From<RecoveryError> for AppError {
    fn from(e: RecoveryError) -> Self {
        let code = match &e {
            RecoveryError::NoSuchBackup { .. } => "not_found",
            RecoveryError::BackupUnusable { .. } => "backup_unusable",
            RecoveryError::NothingReadable { .. } => "nothing_readable",
            _ => "recovery",
        };
        Self::new(code, e.to_string())
    }
}

/// The database's state and its backups.
pub async fn diagnose(paths: &AppPaths) -> Result<Diagnosis, AppError> {
    let paths = paths.clone();
    blocking(move || Ok(recovery::diagnose(&paths))).await
}

/// Puts the backup `name` (a file name from the diagnosis, or a path) in place of the
/// database; the current file is kept aside.
pub async fn restore_backup(paths: &AppPaths, name: &str) -> Result<Restored, AppError> {
    let (paths, name) = (paths.clone(), name.to_string());
    blocking(move || {
        let backup = recovery::resolve_backup(&paths.backups_dir(), &name)?;
        Ok(recovery::restore(&paths.database_file(), &backup)?)
    })
    .await
}

/// Salvages the damaged database into a new file next to it; with `apply`, puts that file
/// in place the way a restore does.
pub async fn salvage(paths: &AppPaths, apply: bool) -> Result<Salvaged, AppError> {
    let report = recovery::salvage(&paths.database_file(), &paths.data_dir).await?;
    let applied = if apply {
        let (db, from) = (paths.database_file(), report.salvaged.clone());
        Some(blocking(move || Ok(recovery::restore(&db, &from)?)).await?)
    } else {
        None
    };
    Ok(Salvaged { report, applied })
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(AppError::new("recovery", format!("recovery stopped: {e}"))))
}
