//! Getting a user's data back when the database is damaged: checking a file, the backups
//! Lango keeps (before each schema upgrade and once a day), putting a backup in place, and
//! salvaging what can still be read from a damaged file into a new one.
//!
//! Works on files, never through an open [`Store`](super::Store): a damaged database cannot
//! be opened, and these are exactly the moments it matters. Nothing here deletes or
//! overwrites a database the user had: a file that is replaced is first copied aside
//! (`lango.db.damaged-<time>`), a salvage writes a new file, and only daily backups beyond
//! the configured number are ever removed.

mod backups;
mod daily;
mod diagnosis;
mod error;
mod health;
mod salvage;
mod swap;

pub(crate) use backups::backup_files;
pub use backups::{backups_footprint, list_backups, Backup, BackupKind, BackupsFootprint};
pub use daily::{
    backup_delay, daily_backup, spawn_daily_backup, BackgroundBackup, BackupProblem,
    BackupProblemSlot, DailyOutcome, QUICK_BACKUP_BYTES,
};
pub use diagnosis::{diagnose, resolve_backup, Diagnosis};
pub use error::RecoveryError;
pub use health::{check_file, Depth, Health};
pub use salvage::{salvage, SalvageReport, TableSalvage};
pub use swap::{restore, Restored};
