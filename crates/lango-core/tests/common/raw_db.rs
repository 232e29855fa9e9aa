//! A second connection to a test's database file that bypasses the store — what another
//! process, a hand edit or an older version would do — and SQLite's own integrity check of
//! the file. For the test binaries that write or inspect the file behind the store's back:
//! `#[path = "../common/raw_db.rs"] mod raw_db;` in each.

#![allow(dead_code)] // each test binary uses a different part

use std::path::Path;
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::SqlitePool;

/// One connection to the file at `path` (created when missing).
pub async fn raw_pool(path: &Path) -> SqlitePool {
    let opts = SqliteConnectOptions::from_str("sqlite:")
        .expect("an in-memory URL parses")
        .filename(path)
        .create_if_missing(true);
    SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .expect("open the database file")
}

/// `PRAGMA integrity_check` of the file: "ok", or what SQLite found.
pub async fn integrity_check(pool: &SqlitePool) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(pool)
        .await
}
