//! The `backups` section: the rolling daily copy of the database.
//!
//! Owns `daily` (take one a day, default on) and `keep` (how many daily copies to keep,
//! default 7). Backups taken before a schema upgrade are not governed here: they are never
//! removed automatically. Taking and pruning copies is `store::recovery`'s job.

use serde_json::Value;

use super::fields::{Fields, Report};

/// Daily backups kept by default: a week of days to go back to.
pub const DEFAULT_BACKUPS_KEPT: u32 = 7;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupSettings {
    pub daily: bool,
    pub keep: u32,
}

impl Default for BackupSettings {
    fn default() -> Self {
        Self {
            daily: true,
            keep: DEFAULT_BACKUPS_KEPT,
        }
    }
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> BackupSettings {
    let mut backups = BackupSettings::default();
    let Some(f) = Fields::open(value, "backups", &["daily", "keep"], report) else {
        return backups;
    };
    if let Some(daily) = f.boolean("daily", report) {
        backups.daily = daily;
    }
    if let Some(n) = f.integer("keep", report) {
        match u32::try_from(n) {
            Ok(n) if (1..=366).contains(&n) => backups.keep = n,
            _ => {
                let path = f.path("keep");
                report.problem(
                    &path,
                    format!("{path} must be a whole number from 1 to 366, got {n}"),
                );
            }
        }
    }
    backups
}
