//! The backups folder: which files are there, when each was taken, and whether it is usable.
//!
//! Names written by Lango: `lango-<UTC time>-before-v<N>.db` before a schema upgrade
//! (`store::open`), `lango-<date>-daily.db` once a day (`daily`). Any other `.db` file a
//! user put there is listed too, dated by its modification time.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

use super::health::{check_file, Depth, Health};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BackupKind {
    /// Taken just before upgrading the schema to `version`. Never deleted automatically.
    BeforeUpgrade { version: i64 },
    /// The rolling daily copy; the oldest beyond `backups.keep` are removed.
    Daily,
    /// A `.db` file Lango did not name.
    Other,
}

/// One backup file and what a quick check says of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Backup {
    pub path: PathBuf,
    pub file_name: String,
    pub kind: BackupKind,
    /// When it was taken (from its name, else the file's modification time).
    pub taken_at: Option<DateTime<Utc>>,
    pub size: u64,
    pub health: Health,
}

/// Every backup in `dir`, newest first; an absent folder has none.
pub fn list_backups(dir: &Path) -> Vec<Backup> {
    let mut backups: Vec<Backup> = db_files(dir).iter().map(|path| describe(path)).collect();
    backups.sort_by(|a, b| {
        b.taken_at
            .cmp(&a.taken_at)
            .then(b.file_name.cmp(&a.file_name))
    });
    backups
}

/// The backup files in `dir` with when each was taken, without checking them (cheap: for
/// naming the newest one in an error).
pub(crate) fn backup_files(dir: &Path) -> Vec<(PathBuf, Option<DateTime<Utc>>)> {
    db_files(dir)
        .into_iter()
        .map(|path| {
            let taken = taken_at(&path, &file_name(&path));
            (path, taken)
        })
        .collect()
}

/// What the backups folder holds, without checking the files (cheap: for showing what the
/// backups take on disk).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackupsFootprint {
    pub count: u32,
    pub bytes: u64,
    /// When the newest was written (its modification time: a daily copy's name carries
    /// only its day).
    pub newest: Option<DateTime<Utc>>,
}

/// The backup files in `dir`: how many, their bytes in all and the newest's time.
pub fn backups_footprint(dir: &Path) -> BackupsFootprint {
    db_files(dir)
        .iter()
        .fold(BackupsFootprint::default(), |sum, path| BackupsFootprint {
            count: sum.count + 1,
            bytes: sum.bytes + std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            newest: sum
                .newest
                .max(written_at(path).or_else(|| parse_name(&file_name(path)).1)),
        })
}

fn db_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "db"))
        .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn taken_at(path: &Path, name: &str) -> Option<DateTime<Utc>> {
    parse_name(name).1.or_else(|| written_at(path))
}

fn written_at(path: &Path) -> Option<DateTime<Utc>> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(DateTime::<Utc>::from)
}

fn describe(path: &Path) -> Backup {
    let file_name = file_name(path);
    Backup {
        path: path.to_path_buf(),
        kind: parse_name(&file_name).0,
        taken_at: taken_at(path, &file_name),
        size: std::fs::metadata(path).map_or(0, |m| m.len()),
        health: check_file(path, Depth::Quick),
        file_name,
    }
}

/// The kind and time a Lango backup name carries.
pub(super) fn parse_name(name: &str) -> (BackupKind, Option<DateTime<Utc>>) {
    let Some(stem) = name
        .strip_prefix("lango-")
        .and_then(|s| s.strip_suffix(".db"))
    else {
        return (BackupKind::Other, None);
    };
    if let Some(date) = stem.strip_suffix("-daily") {
        if let Ok(day) = NaiveDate::parse_from_str(date, "%Y-%m-%d") {
            let midnight = day.and_hms_opt(0, 0, 0).map(|t| Utc.from_utc_datetime(&t));
            return (BackupKind::Daily, midnight);
        }
    }
    if let Some((stamp, version)) = stem.rsplit_once("-before-v") {
        if let Ok(version) = version.parse::<i64>() {
            let time = NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.3fZ")
                .ok()
                .map(|t| Utc.from_utc_datetime(&t));
            return (BackupKind::BeforeUpgrade { version }, time);
        }
    }
    (BackupKind::Other, None)
}

/// The name of the daily backup of `day`.
pub(super) fn daily_name(day: NaiveDate) -> String {
    format!("lango-{}-daily.db", day.format("%Y-%m-%d"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_names_give_their_kind_and_time() {
        let (kind, time) = parse_name("lango-20260102T030405.678Z-before-v5.db");
        assert_eq!(kind, BackupKind::BeforeUpgrade { version: 5 });
        assert_eq!(
            time.map(|t| t.to_rfc3339()),
            Some("2026-01-02T03:04:05.678+00:00".to_string())
        );
        let day = NaiveDate::from_ymd_opt(2026, 3, 9).expect("a date");
        assert_eq!(parse_name(&daily_name(day)).0, BackupKind::Daily);
        assert_eq!(parse_name("mine.db"), (BackupKind::Other, None));
    }
}
