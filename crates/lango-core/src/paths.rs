//! Where Lango keeps its files: the database, the settings file, backups and logs.
//!
//! Owns only path resolution. It must not create, read or write any of these files; the
//! store, config and logging code do that.
//!
//! Precedence: an explicit override (the CLI's `--data-dir`) beats the `LANGO_HOME`
//! environment variable, which beats the platform folders of `directories::ProjectDirs`.
//! With an override everything lives under that one folder, so tests and portable installs
//! never touch the user's real data.

use std::path::{Path, PathBuf};

/// Environment variable that moves every Lango file under one folder.
pub const HOME_ENV: &str = "LANGO_HOME";

/// Environment variable that sends exports to one folder instead of the Downloads folder.
pub const EXPORT_ENV: &str = "LANGO_EXPORT_DIR";

/// File name of the SQLite database inside [`AppPaths::data_dir`].
pub const DATABASE_FILE: &str = "lango.db";

/// File name of the settings file inside [`AppPaths::config_dir`].
pub const SETTINGS_FILE: &str = "settings.json";

#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error("no home directory found for this user; set {HOME_ENV} or pass --data-dir")]
    NoHomeDirectory,
}

/// The folders Lango uses. Nothing here is guaranteed to exist yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppPaths {
    pub data_dir: PathBuf,
    pub config_dir: PathBuf,
    pub log_dir: PathBuf,
    /// Where exports go when the user chose a folder (`LANGO_EXPORT_DIR`); `None` means
    /// the Downloads folder. Resolved once here so that each app keeps its own.
    pub export_dir: Option<PathBuf>,
}

impl AppPaths {
    /// Resolves the folders: `data_dir_override`, else `$LANGO_HOME`, else the platform dirs;
    /// exports go to `$LANGO_EXPORT_DIR` when it is set.
    pub fn resolve(data_dir_override: Option<&Path>) -> Result<Self, PathsError> {
        let mut paths = Self::folders(data_dir_override)?;
        paths.export_dir = std::env::var_os(EXPORT_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        Ok(paths)
    }

    /// The data, config and log folders of [`AppPaths::resolve`].
    fn folders(data_dir_override: Option<&Path>) -> Result<Self, PathsError> {
        if let Some(dir) = data_dir_override {
            return Ok(Self::under(dir));
        }
        if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
            return Ok(Self::under(Path::new(&home)));
        }
        let dirs = directories::ProjectDirs::from("dev", "Lango", "Lango")
            .ok_or(PathsError::NoHomeDirectory)?;
        // The database lives in the *local* data dir: on Windows that is %LOCALAPPDATA%, not
        // the roaming %APPDATA%, which domain profiles copy to a server at every logon and
        // logoff (a large SQLite file and its WAL do not belong there). On Linux and macOS
        // both are the same folder. Settings stay in the (roaming) config dir.
        // ProjectDirs has no log dir; the data-local dir's `logs` is where platform
        // conventions (and Tauri's own log plugin) put them.
        Ok(Self {
            data_dir: dirs.data_local_dir().to_path_buf(),
            config_dir: dirs.config_dir().to_path_buf(),
            log_dir: dirs.data_local_dir().join("logs"),
            export_dir: None,
        })
    }

    /// Every file under one folder (portable installs, tests); exports to Downloads.
    pub fn under(home: &Path) -> Self {
        Self {
            data_dir: home.to_path_buf(),
            config_dir: home.to_path_buf(),
            log_dir: home.join("logs"),
            export_dir: None,
        }
    }

    pub fn database_file(&self) -> PathBuf {
        self.data_dir.join(DATABASE_FILE)
    }

    pub fn settings_file(&self) -> PathBuf {
        self.config_dir.join(SETTINGS_FILE)
    }

    /// Where the store copies the database before a schema upgrade.
    pub fn backups_dir(&self) -> PathBuf {
        self.data_dir.join("backups")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_puts_every_file_under_one_folder() {
        let p = AppPaths::resolve(Some(Path::new("/tmp/portable"))).unwrap();
        assert_eq!(p.database_file(), Path::new("/tmp/portable/lango.db"));
        assert_eq!(p.settings_file(), Path::new("/tmp/portable/settings.json"));
        assert_eq!(p.backups_dir(), Path::new("/tmp/portable/backups"));
        assert_eq!(p.log_dir, Path::new("/tmp/portable/logs"));
    }
}
