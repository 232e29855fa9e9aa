//! Is a database file usable? Opened read-only, checked by SQLite itself, its schema read.
//!
//! Never writes to the file: a damaged database must stay exactly as it was, so the user
//! (or a later salvage) still has everything it holds.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::store::MIGRATOR;

/// How thoroughly to check: `Full` reads every page and index (`PRAGMA integrity_check`),
/// `Quick` skips the index-content checks (`PRAGMA quick_check`), for listing many backups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    Quick,
    Full,
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Health {
    /// No file there (a new install: Lango creates it).
    Missing,
    /// Opens, passes the check, and this Lango's schema is fully applied.
    #[serde(rename_all = "camelCase")]
    Healthy { schema_version: i64 },
    /// Sound but from an older Lango: the next start upgrades it (backing it up first).
    #[serde(rename_all = "camelCase")]
    Outdated { schema_version: i64 },
    /// Sound but written by a newer Lango: only that version can open it.
    #[serde(rename_all = "camelCase")]
    TooNew { schema_version: i64 },
    /// Cannot be opened, fails SQLite's check, or is not a Lango database.
    Damaged { detail: String },
}

impl Health {
    /// Lango can open this file as it is (upgrading it if needed).
    pub fn is_usable(&self) -> bool {
        matches!(self, Self::Healthy { .. } | Self::Outdated { .. })
    }
}

/// Opens `path` for reading only, without creating it or its folder. In a folder Lango
/// cannot write, SQLite could not create the `-shm` file a WAL database needs even to be
/// read, so the file is read as immutable there (as `store::read_only` does).
pub(super) fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let writable = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .is_none_or(crate::store::folder_is_writable);
    let conn = if writable {
        Connection::open_with_flags(path, flags)?
    } else {
        Connection::open_with_flags(
            crate::store::read_only::uri(path, true),
            flags | OpenFlags::SQLITE_OPEN_URI,
        )?
    };
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(conn)
}

/// Checks the database at `path` (see [`Health`]).
pub fn check_file(path: &Path, depth: Depth) -> Health {
    if !path.exists() {
        return Health::Missing;
    }
    let damaged = |detail: String| Health::Damaged { detail };
    let conn = match open_read_only(path) {
        Ok(conn) => conn,
        Err(e) => return damaged(e.to_string()),
    };
    if let Err(detail) = integrity(&conn, depth) {
        return damaged(detail);
    }
    match schema_version(&conn) {
        Ok(Some(version)) if !MIGRATOR.version_exists(version) => Health::TooNew {
            schema_version: version,
        },
        Ok(Some(version)) if MIGRATOR.iter().all(|m| m.version <= version) => Health::Healthy {
            schema_version: version,
        },
        Ok(Some(version)) => Health::Outdated {
            schema_version: version,
        },
        // An empty file is a database Lango sets up on its next start.
        Ok(None) if table_count(&conn).unwrap_or(1) == 0 => Health::Outdated { schema_version: 0 },
        Ok(None) => damaged("it is a SQLite database but not one of Lango's".into()),
        Err(e) => damaged(e.to_string()),
    }
}

/// SQLite's own verdict: Ok when it answers "ok", else its first findings.
fn integrity(conn: &Connection, depth: Depth) -> Result<(), String> {
    let pragma = match depth {
        Depth::Quick => "PRAGMA quick_check(20)",
        Depth::Full => "PRAGMA integrity_check(20)",
    };
    let findings: Vec<String> = conn
        .prepare(pragma)
        .and_then(|mut stmt| {
            stmt.query_map([], |row| row.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .map_err(|e| e.to_string())?;
    match findings.as_slice() {
        [only] if only == "ok" => Ok(()),
        [] => Err("the integrity check gave no answer".into()),
        many => Err(many.iter().take(3).cloned().collect::<Vec<_>>().join("; ")),
    }
}

/// The newest applied migration; None when the file has no migration table.
fn schema_version(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
        [],
        |row| row.get(0),
    )?;
    if !has_table {
        return Ok(None);
    }
    conn.query_row(
        "SELECT max(version) FROM _sqlx_migrations WHERE success = 1",
        [],
        |row| row.get(0),
    )
}

fn table_count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
        [],
        |row| row.get(0),
    )
}
