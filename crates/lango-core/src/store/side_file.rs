//! The files beside a database that take its name plus a suffix: SQLite's (`lango.db-wal`,
//! `lango.db-shm`) and Lango's own (`.migrate.lock`, a restore's or salvage's temporary
//! copies). One naming rule for every place that finds or removes them.

use std::path::{Path, PathBuf};

/// `lango.db` + `-wal` → `lango.db-wal`.
pub(crate) fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}
