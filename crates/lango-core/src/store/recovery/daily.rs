//! The rolling daily backup: one `VACUUM INTO` copy a day, taken in the background at
//! start-up — a large database's a while after, on a thread of lower priority — the newest
//! `backups.keep` kept.
//!
//! The copy is written under a temporary name and renamed when complete, so a process
//! stopped half-way never leaves something that looks like a backup. A database that fails
//! SQLite's quick check is not copied: a damaged copy would push a good one out.
//! Upgrade backups (`-before-v<N>`) are never removed here.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::NaiveDate;

use super::backups::{daily_name, parse_name, BackupKind};
use super::error::RecoveryError;
use super::health::open_read_only;
use crate::config::BackupSettings;
use crate::paths::AppPaths;

/// What one daily-backup attempt did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DailyOutcome {
    Taken(PathBuf),
    /// Today's copy exists already.
    AlreadyToday,
    /// No database yet (a new install).
    NoDatabase,
    /// Not copied: the database fails SQLite's check.
    Damaged(String),
}

/// Partial copies older than this were left by a process that was stopped.
const STALE_PARTIAL: Duration = Duration::from_secs(3600);

/// A database up to this size is checked and copied in about a second on a small laptop
/// (SQLite's quick check plus `VACUUM INTO` go at roughly 50–100 MB/s).
pub const QUICK_BACKUP_BYTES: u64 = 64 * 1024 * 1024;

/// How long a process that stays open (the desktop app) waits before backing up a larger
/// database: its check and copy (~3 s of a core and the disk for 400 MB) started with the
/// window made cold starts at 1M messages ~0.25 s slower on two cores, once a day.
const LARGE_BACKUP_DELAY: Duration = Duration::from_secs(30);

/// When a process that stays open starts today's backup of `db`: at once while it is small
/// (or not there yet), [`LARGE_BACKUP_DELAY`] after opening once it is larger.
pub fn backup_delay(db: &Path) -> Duration {
    match std::fs::metadata(db) {
        Ok(m) if m.len() > QUICK_BACKUP_BYTES => LARGE_BACKUP_DELAY,
        _ => Duration::ZERO,
    }
}

/// The calling thread yields the CPU (and, through it, the disk's scheduler) to the app's own
/// work. Linux only: its nice value is per thread; elsewhere it is the whole process's.
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: nice(2) only changes the calling thread's scheduling priority.
    unsafe {
        libc::nice(10);
    }
}

/// Takes `day`'s backup of `db` into `dir` unless it exists, then keeps the newest `keep`
/// daily backups.
pub fn daily_backup(
    db: &Path,
    dir: &Path,
    day: NaiveDate,
    keep: u32,
) -> Result<DailyOutcome, RecoveryError> {
    if !db.exists() {
        return Ok(DailyOutcome::NoDatabase);
    }
    let target = dir.join(daily_name(day));
    let outcome = if target.exists() {
        DailyOutcome::AlreadyToday
    } else {
        std::fs::create_dir_all(dir).map_err(RecoveryError::io(dir))?;
        copy(db, &target)?
    };
    if matches!(outcome, DailyOutcome::Taken(_) | DailyOutcome::AlreadyToday) {
        prune(dir, keep)?;
    }
    Ok(outcome)
}

fn copy(db: &Path, target: &Path) -> Result<DailyOutcome, RecoveryError> {
    let conn = open_read_only(db).map_err(RecoveryError::sqlite(db))?;
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .unwrap_or_else(|e| e.to_string());
    if verdict != "ok" {
        return Ok(DailyOutcome::Damaged(verdict));
    }
    let mut partial = target.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let _ = std::fs::remove_file(&partial);
    conn.execute("VACUUM INTO ?1", [partial.to_string_lossy().as_ref()])
        .map_err(RecoveryError::sqlite(db))?;
    drop(conn);
    if target.exists() {
        // Another Lango took today's copy meanwhile; theirs is as good as ours.
        let _ = std::fs::remove_file(&partial);
        return Ok(DailyOutcome::AlreadyToday);
    }
    std::fs::rename(&partial, target).map_err(RecoveryError::io(target))?;
    Ok(DailyOutcome::Taken(target.to_path_buf()))
}

/// Removes daily backups beyond the newest `keep`, and stale partial copies.
fn prune(dir: &Path, keep: u32) -> Result<(), RecoveryError> {
    let mut daily: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(RecoveryError::io(dir))? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".partial") && is_older_than(&path, STALE_PARTIAL) {
            let _ = std::fs::remove_file(&path);
        } else if parse_name(&name).0 == BackupKind::Daily {
            daily.push(path);
        }
    }
    // Names sort by date.
    daily.sort();
    let excess = daily.len().saturating_sub(keep as usize);
    for old in daily.into_iter().take(excess) {
        std::fs::remove_file(&old).map_err(RecoveryError::io(&old))?;
        tracing::info!(backup = %old.display(), "old daily backup removed");
    }
    Ok(())
}

fn is_older_than(path: &Path, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|d| d > age)
}

/// Why today's backup was not taken, for the user to see (Settings → About).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackupProblem {
    /// The database fails SQLite's check: it was not copied (a damaged copy would push a good
    /// one out), and the older copies are kept.
    Damaged(String),
    /// The copy could not be made (a full disk, a folder Lango cannot write…).
    Failed(String),
}

/// Where a background backup leaves its [`BackupProblem`], if it had one.
pub type BackupProblemSlot = std::sync::Arc<std::sync::Mutex<Option<BackupProblem>>>;

/// A daily backup running in the background.
#[derive(Debug)]
pub struct BackgroundBackup {
    finished: std::sync::mpsc::Receiver<()>,
    problem: BackupProblemSlot,
}

impl BackgroundBackup {
    /// Where it leaves why today's copy was not taken (empty while it runs and after it
    /// succeeded); shared, so a long-lived process can keep it without the handle.
    pub fn problem(&self) -> BackupProblemSlot {
        std::sync::Arc::clone(&self.problem)
    }

    /// Waits at most `limit` for it to finish: a short-lived command calls this before it
    /// exits, so the copy is not cut off (a cut-off copy is only a partial file, never a
    /// backup). True when it finished.
    pub fn wait(&self, limit: Duration) -> bool {
        !matches!(
            self.finished.recv_timeout(limit),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        )
    }
}

/// Takes today's backup on a background thread of lower priority when the settings ask for
/// it, after `delay` ([`backup_delay`] for a process that stays open; none for a command,
/// which waits for it at exit): start-up and the first message never wait for it. Problems
/// are logged and left in [`BackgroundBackup::problem`], never raised as failures.
pub fn spawn_daily_backup(
    paths: &AppPaths,
    settings: &BackupSettings,
    delay: Duration,
) -> Option<BackgroundBackup> {
    if !settings.daily {
        return None;
    }
    let (db, dir, keep) = (paths.database_file(), paths.backups_dir(), settings.keep);
    let (done, finished) = std::sync::mpsc::channel();
    let problem = BackupProblemSlot::default();
    let report = std::sync::Arc::clone(&problem);
    let spawned = std::thread::Builder::new()
        .name("lango-daily-backup".into())
        .spawn(move || {
            // Dropped on every return: the waiter learns it finished.
            let _done = done;
            std::thread::sleep(delay);
            lower_this_threads_priority();
            // A read-only data folder (read-only commands still work there) has no room for one.
            if db.parent().is_some_and(|d| !crate::store::folder_is_writable(d)) {
                tracing::debug!("daily backup skipped: the data folder is read-only");
                return;
            }
            let today = chrono::Local::now().date_naive();
            let found = match daily_backup(&db, &dir, today, keep) {
                Ok(DailyOutcome::Taken(path)) => {
                    tracing::info!(backup = %path.display(), "daily backup taken");
                    None
                }
                Ok(DailyOutcome::Damaged(why)) => {
                    tracing::warn!(
                        database = %db.display(),
                        "daily backup skipped: the database fails SQLite's check ({why}); run `lango doctor`"
                    );
                    Some(BackupProblem::Damaged(why))
                }
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!("daily backup failed: {e}");
                    Some(BackupProblem::Failed(e.to_string()))
                }
            };
            if let Ok(mut slot) = report.lock() {
                *slot = found;
            }
        });
    match spawned {
        Ok(_) => Some(BackgroundBackup { finished, problem }),
        Err(e) => {
            tracing::warn!("daily backup not started: {e}");
            None
        }
    }
}
