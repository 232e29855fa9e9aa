//! Putting another file (a backup, a salvaged copy) in place of the database, safely.
//!
//! Order matters: the replacement is checked, copied next to the database under a temporary
//! name and synced; the current file and its write-ahead log are copied aside under a name
//! that is never reused (`lango.db.damaged-<time>`, `…-wal`); the stale log and shared-memory
//! files are removed — SQLite would otherwise replay the old log onto the new file — and
//! the copy is renamed over the database in one step. Lango must not be running meanwhile.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use super::error::RecoveryError;
use super::health::{check_file, Depth, Health};
use crate::store::side_file;

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restored {
    /// Where the replaced database was kept (None when there was none).
    pub set_aside: Option<PathBuf>,
    pub restored_from: PathBuf,
    /// The database as it now checks.
    pub health: Health,
}

/// Replaces the database `db` by a copy of `replacement` (see the module doc).
pub fn restore(db: &Path, replacement: &Path) -> Result<Restored, RecoveryError> {
    let verdict = check_file(replacement, Depth::Full);
    if !verdict.is_usable() {
        return Err(RecoveryError::BackupUnusable {
            path: replacement.to_path_buf(),
            why: describe(&verdict),
        });
    }
    let incoming = side_file(db, &format!(".restoring-{}", std::process::id()));
    copy_synced(replacement, &incoming)?;

    let set_aside = if db.exists() {
        Some(set_aside(db)?)
    } else {
        None
    };
    for stale in [side_file(db, "-wal"), side_file(db, "-shm")] {
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(RecoveryError::io(&stale)(e)),
        }
    }
    std::fs::rename(&incoming, db).map_err(RecoveryError::io(db))?;
    sync_folder(db);
    let health = check_file(db, Depth::Full);
    tracing::info!(database = %db.display(), from = %replacement.display(), "database restored");
    Ok(Restored {
        set_aside,
        restored_from: replacement.to_path_buf(),
        health,
    })
}

/// Copies `db` (and its write-ahead log, which holds its latest changes) aside under a new
/// name; nothing existing is overwritten.
fn set_aside(db: &Path) -> Result<PathBuf, RecoveryError> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let aside = side_file(db, &format!(".damaged-{stamp}"));
    copy_new(db, &aside)?;
    let wal = side_file(db, "-wal");
    if wal.exists() {
        // SQLite finds `<file>-wal` next to `<file>`: the copy opens with its latest changes.
        copy_new(&wal, &side_file(&aside, "-wal"))?;
    }
    Ok(aside)
}

fn copy_new(from: &Path, to: &Path) -> Result<(), RecoveryError> {
    let mut source = File::open(from).map_err(RecoveryError::io(from))?;
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(RecoveryError::io(to))?;
    std::io::copy(&mut source, &mut target).map_err(RecoveryError::io(to))?;
    target.sync_all().map_err(RecoveryError::io(to))
}

fn copy_synced(from: &Path, to: &Path) -> Result<(), RecoveryError> {
    let _ = std::fs::remove_file(to);
    copy_new(from, to)
}

/// Makes the rename durable (best effort: not every platform can sync a folder).
fn sync_folder(path: &Path) {
    if let Some(dir) = path.parent() {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

pub(super) fn describe(health: &Health) -> String {
    match health {
        Health::Missing => "the file does not exist".into(),
        Health::TooNew { schema_version } => {
            format!("it was written by a newer Lango (schema version {schema_version})")
        }
        Health::Damaged { detail } => format!("it is damaged ({detail})"),
        Health::Healthy { .. } | Health::Outdated { .. } => "it is fine".into(),
    }
}
