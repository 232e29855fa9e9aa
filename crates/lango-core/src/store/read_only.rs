//! Reading a database whose folder cannot be written (a read-only mount, a folder of another
//! user, a backup copy): listing, showing and exporting conversations still work.
//!
//! SQLite needs to create `lango.db-shm` next to a WAL database even to read it, so a plain
//! read-only open fails there ("unable to open database file"). When the last Lango closed
//! the file cleanly (no `-wal` left), it is opened *immutable*: read straight from the file,
//! no locks, no side files. When a `-wal` with changes is left (Lango was killed), those
//! changes are only readable through it, so the file is opened read-only the normal way —
//! which works when the side files exist — or the error says why it cannot be read.
//!

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::SqlitePool;

use super::error::{classify, classify_hot, StoreError, StoreResult};
use super::hot_path::{HotConnection, HotError, BACKGROUND_CACHE_KIB};
use super::open::MIGRATOR;
use super::search_index;
use super::side_file;
use super::{Inner, Store};
use crate::paths::AppPaths;
use crate::tokens::{default_counter, TokenCounter};

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
const READ_CONNECTIONS: u32 = 4;

impl Store {
    /// Opens the database of these app paths to read and write when Lango can write there,
    /// else read-only (see the module doc). For commands that only read.
    pub async fn open_app_for_reading(paths: &AppPaths) -> StoreResult<Self> {
        match Self::open_app(paths).await {
            Err(StoreError::ReadOnly { .. }) => {
                Self::open_read_only(
                    &paths.database_file(),
                    &paths.backups_dir(),
                    default_counter(),
                )
                .await
            }
            opened => opened,
        }
    }

    /// Opens an existing database for reading only; writes fail with [`StoreError::ReadOnly`].
    pub async fn open_read_only(
        path: &Path,
        backups_dir: &Path,
        counter: Arc<dyn TokenCounter>,
    ) -> StoreResult<Self> {
        if !path.exists() {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                why: "it does not exist yet, and it cannot be created there".into(),
            });
        }
        let wal = side_file(path, "-wal");
        let immutable = std::fs::metadata(&wal).map_or(true, |m| m.len() == 0);
        let unreadable = |e: StoreError| match e {
            StoreError::Corrupt { .. } | StoreError::TooNew { .. } => e,
            _ if !immutable => StoreError::ReadOnly {
                path: path.to_path_buf(),
                why: format!(
                    "its latest changes are in {}, which can only be read from a writable folder",
                    wal.display()
                ),
            },
            _ => e,
        };
        let pool = |connections| async move {
            read_only_pool(path, connections, immutable)
                .await
                .map_err(|e| classify(e, path, backups_dir))
        };
        let reader = pool(READ_CONNECTIONS).await.map_err(unreadable)?;
        check_schema(&reader, path, backups_dir)
            .await
            .map_err(unreadable)?;
        // The "writer" is read-only too: a write reaches SQLite and fails as read-only.
        let writer = pool(1).await?;
        let hot = || {
            HotConnection::open_read_only(&uri(path, immutable), BUSY_TIMEOUT)
                .map_err(|e| classify_hot(HotError::Sqlite(e), path, backups_dir))
        };
        let background_reader = hot()?
            .limit_cache(BACKGROUND_CACHE_KIB)
            .map_err(|e| classify_hot(e, path, backups_dir))?;
        let (hot_writer, hot_reader) = (hot()?, hot()?);
        tracing::info!(path = %path.display(), immutable, "database opened read-only");
        Ok(Store {
            inner: Arc::new(Inner {
                write_gate: tokio::sync::Mutex::new(()),
                hot_writer,
                hot_reader,
                background_reader,
                writer,
                reader,
                path: path.to_path_buf(),
                backups_dir: backups_dir.to_path_buf(),
                counter,
                read_only: true,
                indexer: search_index::Indexer::default(),
            }),
        })
    }
}

async fn read_only_pool(
    path: &Path,
    connections: u32,
    immutable: bool,
) -> Result<SqlitePool, sqlx::Error> {
    // No journal-mode or synchronous pragmas: both would need to write.
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(path)
        .read_only(true)
        .immutable(immutable)
        .busy_timeout(BUSY_TIMEOUT);
    SqlitePoolOptions::new()
        .max_connections(connections)
        .min_connections(0)
        // See `open::pool`: no idle reaping, no lifetime (sqlx's maintenance task).
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options)
        .await
}

/// The schema must be one this Lango knows and fully applied: upgrading needs writing.
async fn check_schema(reader: &SqlitePool, path: &Path, backups_dir: &Path) -> StoreResult<()> {
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success = 1")
            .fetch_all(reader)
            .await
            .map_err(|e| classify(e, path, backups_dir))?;
    if let Some(&newest) = applied.iter().max() {
        if !MIGRATOR.version_exists(newest) {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                version: newest,
            });
        }
    }
    if MIGRATOR.iter().any(|m| !applied.contains(&m.version)) {
        return Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            why: "this version of Lango must upgrade its schema first, and its folder is read-only"
                .into(),
        });
    }
    Ok(())
}

/// The SQLite URI of `path`, read-only (and immutable when asked), for the hot connections.
pub(super) fn uri(path: &Path, immutable: bool) -> String {
    let text = path.to_string_lossy();
    // Only Windows separates with `\`; on Unix it is an ordinary file-name character.
    #[cfg(windows)]
    let text = text.replace('\\', "/");
    let mut uri = String::from("file:");
    if text.starts_with("//") {
        // An empty authority: `file:////server/share/…` is the UNC path `\\server\share\…`
        // (and `\\?\C:\…` stays verbatim); `file://server/…` would be refused.
        uri.push_str("//");
    } else if !text.starts_with('/') {
        uri.push('/'); // Windows: file:/C:/…
    }
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri.push_str("?mode=ro");
    if immutable {
        uri.push_str("&immutable=1");
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_becomes_an_escaped_sqlite_uri() {
        assert_eq!(
            uri(Path::new("/data/my lango?#/lango.db"), true),
            "file:/data/my%20lango%3F%23/lango.db?mode=ro&immutable=1"
        );
        assert_eq!(
            uri(Path::new("/d/lango.db"), false),
            "file:/d/lango.db?mode=ro"
        );
    }

    /// A `\` in a Unix folder name is a character, not a separator; a path starting with
    /// `//` must not become a URI host.
    #[cfg(unix)]
    #[test]
    fn unix_paths_keep_backslashes_and_never_gain_a_host() {
        assert_eq!(
            uri(Path::new("/data/a\\b/lango.db"), false),
            "file:/data/a%5Cb/lango.db?mode=ro"
        );
        assert_eq!(
            uri(Path::new("//srv/share/lango.db"), false),
            "file:////srv/share/lango.db?mode=ro"
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_database_in_a_folder_named_with_a_backslash_opens_read_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("a\\b");
        std::fs::create_dir(&folder).expect("folder");
        let path = folder.join("lango.db");
        let store = Store::open(&path).await.expect("opens");
        store.create_session("s", "trip").await.expect("created");
        store.close().await;
        let store = Store::open_read_only(&path, &folder.join("backups"), default_counter())
            .await
            .expect("opens read-only");
        assert_eq!(store.get_session("s").await.expect("read").title, "trip");
        store.close().await;
    }

    #[tokio::test]
    async fn a_cleanly_closed_database_reads_immutable_and_refuses_writes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("lango.db");
        let store = Store::open(&path).await.expect("opens");
        store.create_session("s", "trip").await.expect("created");
        store.close().await;
        let backups = dir.path().join("backups");
        let store = Store::open_read_only(&path, &backups, default_counter())
            .await
            .expect("opens read-only");
        assert_eq!(store.get_session("s").await.expect("read").title, "trip");
        let refused = store.rename_session("s", "other").await.unwrap_err();
        assert!(
            matches!(refused, StoreError::ReadOnly { .. }),
            "{refused:?}"
        );
        store.close().await;
        assert!(!side_file(&path, "-wal").exists());
        assert!(!side_file(&path, "-shm").exists());
    }

    #[tokio::test]
    async fn changes_a_killed_lango_left_in_the_wal_are_read_not_skipped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("lango.db");
        Store::open(&path).await.expect("opens").close().await;
        // A writer that dies before checkpointing: its commit lives only in lango.db-wal.
        let conn = rusqlite::Connection::open(&path).expect("opens");
        conn.execute_batch(
            "PRAGMA wal_autocheckpoint = 0;
             INSERT INTO sessions (key, title, state, created_at, updated_at)
             VALUES ('w', 'only in the WAL', '{}', 1, 1);",
        )
        .expect("inserted");
        std::mem::forget(conn); // no close, so no checkpoint
        assert!(
            std::fs::metadata(side_file(&path, "-wal"))
                .expect("wal")
                .len()
                > 0
        );

        let store = Store::open_read_only(&path, &dir.path().join("backups"), default_counter())
            .await
            .expect("opens read-only");
        let session = store.get_session("w").await.expect("the WAL's row is read");
        assert_eq!(session.title, "only in the WAL");
        store.close().await;
    }
}
