//! Opening the database: folders, connection pragmas, the pre-upgrade backup, migrations.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use super::error::{classify, classify_hot, StoreError, StoreResult};
use super::hot_path::{Access, HotConnection, HotError, BACKGROUND_CACHE_KIB};
use super::search_index;
use super::{writable, Inner, Store};
use crate::paths::AppPaths;
use crate::tokens::{default_counter, TokenCounter};

/// Every schema migration, embedded at compile time (no DATABASE_URL needed).
pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How long a connection waits for a lock held by another process before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
const READ_CONNECTIONS: u32 = 4;

impl Store {
    /// Opens (creating if needed) the database of these app paths.
    pub async fn open_app(paths: &AppPaths) -> StoreResult<Self> {
        Self::open_with(
            &paths.database_file(),
            &paths.backups_dir(),
            default_counter(),
        )
        .await
    }

    /// Opens the database at `path`, backups next to it in `backups/`, default token counter.
    pub async fn open(path: &Path) -> StoreResult<Self> {
        let backups = path.parent().unwrap_or(Path::new(".")).join("backups");
        Self::open_with(path, &backups, default_counter()).await
    }

    /// Opens with an explicit backups folder and token counter (tests inject a fixed cost).
    ///
    /// Before a pending migration is applied to a database that already holds data, the file
    /// is copied with `VACUUM INTO` to `backups/lango-<timestamp>-before-v<version>.db`.
    /// A corrupt file is reported, never replaced. Processes opening one file at once set it
    /// up one after the other: one creates or upgrades it (and backs it up), the others then
    /// find it current.
    pub async fn open_with(
        path: &Path,
        backups_dir: &Path,
        counter: Arc<dyn TokenCounter>,
    ) -> StoreResult<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        // Said plainly up front, not as SQLite's "unable to open database file" or a first
        // write failing later; commands that only read then open it read-only (read_only.rs).
        if let Some(why) = writable::read_only_reason(path) {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                why,
            });
        }
        let classify_err = |e: sqlx::Error| classify(e, path, backups_dir);

        // Creating the file and upgrading its schema happen one process at a time; whoever
        // comes second finds the work done (see `migration_lock`).
        let set_up = super::migration_lock::acquire(path).await?;
        let writer = pool(path, 1, false).await.map_err(classify_err)?;
        migrate(&writer, path, backups_dir).await?;
        drop(set_up);
        let reader = pool(path, READ_CONNECTIONS, true)
            .await
            .map_err(classify_err)?;

        let hot = |access| {
            HotConnection::open(path, access, BUSY_TIMEOUT)
                .map_err(|e| classify_hot(HotError::Sqlite(e), path, backups_dir))
        };
        let (hot_writer, hot_reader, background_reader) = (
            hot(Access::ReadWrite)?,
            hot(Access::ReadOnly)?,
            hot(Access::ReadOnly)?
                .limit_cache(BACKGROUND_CACHE_KIB)
                .map_err(|e| classify_hot(e, path, backups_dir))?,
        );

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
                read_only: false,
                indexer: search_index::Indexer::default(),
            }),
        })
    }
}

async fn pool(path: &Path, connections: u32, read_only: bool) -> Result<SqlitePool, sqlx::Error> {
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(path)
        .create_if_missing(!read_only)
        .read_only(read_only)
        .journal_mode(SqliteJournalMode::Wal)
        // NORMAL in WAL mode: a commit survives an application crash (it is in the WAL);
        // only a power cut can lose the last transactions. fsync per message would cap us
        // far below the append throughput a streaming chat needs.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT);
    SqlitePoolOptions::new()
        .max_connections(connections)
        .min_connections(if read_only { 0 } else { 1 })
        // No idle reaping and no connection lifetime: pointless for a local file, and they
        // start sqlx 0.9.0's periodic maintenance task, whose `0..num_idle()` sweep can read
        // an underflowed counter and spin a core forever (sqlx issue #3645; seen here once,
        // in a test run). Without them only a one-shot min-connections task runs.
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options)
        .await
}

/// Applies pending migrations, backing the file up first when it already holds data.
async fn migrate(writer: &SqlitePool, path: &Path, backups_dir: &Path) -> StoreResult<()> {
    let classify_err = |e: sqlx::Error| classify(e, path, backups_dir);

    // Reading the schema is also the first real read of the file: a corrupt or foreign file
    // fails here, before anything is written to it.
    let has_table: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(writer)
    .await
    .map_err(classify_err)?;

    let applied: Vec<i64> = if has_table {
        sqlx::query_scalar(
            "SELECT version FROM _sqlx_migrations WHERE success = 1 ORDER BY version",
        )
        .fetch_all(writer)
        .await
        .map_err(classify_err)?
    } else {
        Vec::new()
    };

    if let Some(&newest) = applied.iter().max() {
        if !MIGRATOR.version_exists(newest) {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                version: newest,
            });
        }
    }

    let pending: Vec<i64> = MIGRATOR
        .iter()
        .map(|m| m.version)
        .filter(|v| !applied.contains(v))
        .collect();
    if pending.is_empty() {
        return Ok(());
    }
    if !applied.is_empty() {
        let first_pending = pending.iter().min().copied().unwrap_or_default();
        backup(writer, path, backups_dir, first_pending).await?;
    }
    MIGRATOR.run(writer).await.map_err(|e| match e {
        sqlx::migrate::MigrateError::Execute(inner) => classify_err(inner),
        other => StoreError::Database(format!("schema upgrade failed: {other}")),
    })?;
    tracing::info!(path = %path.display(), versions = ?pending, "database schema upgraded");
    Ok(())
}

/// Copies the live database (consistent snapshot, WAL included) before an upgrade.
async fn backup(
    writer: &SqlitePool,
    path: &Path,
    backups_dir: &Path,
    version: i64,
) -> StoreResult<PathBuf> {
    std::fs::create_dir_all(backups_dir).map_err(|source| StoreError::Io {
        path: backups_dir.to_path_buf(),
        source,
    })?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let target = backups_dir.join(format!("lango-{stamp}-before-v{version}.db"));
    sqlx::query("VACUUM INTO ?")
        .bind(target.to_string_lossy().into_owned())
        .execute(writer)
        .await
        .map_err(|e| classify(e, path, backups_dir))?;
    tracing::info!(backup = %target.display(), "database backed up before schema upgrade");
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pools must not start sqlx's periodic maintenance task (see `pool`): it runs
    /// exactly when an idle timeout or a max lifetime is set.
    #[tokio::test]
    async fn pools_start_no_periodic_maintenance_task() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("lango.db");
        for read_only in [false, true] {
            let pool = pool(&path, 1, read_only).await.expect("pool opens");
            assert_eq!(pool.options().get_idle_timeout(), None);
            assert_eq!(pool.options().get_max_lifetime(), None);
            pool.close().await;
        }
    }
}
