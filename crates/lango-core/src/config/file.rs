//! Reading and writing the settings file.
//!
//! Owns the file's life cycle: missing → defaults, malformed → error (the file is left
//! exactly as it was, never reset), atomic save with a `.bak` of the previous version.
//! It must not decide what is valid (`settings::validate_value` does).

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::ConfigError;
use super::settings::{validate_value, Settings};
use crate::paths::AppPaths;

/// Settings that loaded, plus warnings worth showing (they do not stop anything).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    pub warnings: Vec<String>,
}

/// Loads `AppPaths::settings_file()`.
pub fn load(paths: &AppPaths) -> Result<Loaded, ConfigError> {
    load_from(&paths.settings_file())
}

/// Loads a settings file. A missing file gives the defaults; any problem gives an error and
/// the file is not modified.
pub fn load_from(path: &Path) -> Result<Loaded, ConfigError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded {
                settings: Settings::default(),
                warnings: Vec::new(),
            })
        }
        Err(source) => {
            return Err(ConfigError::Io {
                action: "read",
                path: path.to_owned(),
                source,
            })
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        // `touch settings.json` should not be a hard error; we still leave the file alone.
        return Ok(Loaded {
            settings: Settings::default(),
            warnings: vec![format!(
                "{} is empty; using the default settings",
                path.display()
            )],
        });
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| parse_error(path, &e))?;
    match validate_value(&value) {
        Ok((settings, warnings)) => Ok(Loaded { settings, warnings }),
        Err(problems) => Err(ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        }),
    }
}

fn parse_error(path: &Path, e: &serde_json::Error) -> ConfigError {
    // serde_json's Display ends in " at line L column C"; we report those as fields instead.
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    ConfigError::Parse {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// Saves to `AppPaths::settings_file()`.
pub fn save(paths: &AppPaths, settings: &Settings) -> Result<(), ConfigError> {
    save_to(&paths.settings_file(), settings)
}

/// Writes `settings` atomically: `<file>.tmp` is written and fsynced, the current file is
/// copied to `<file>.bak`, then the tmp file is renamed over the file. At every instant the
/// file holds either the old or the new settings. Settings that would not load again are
/// refused, so a save can never produce a file Lango rejects.
pub fn save_to(path: &Path, settings: &Settings) -> Result<(), ConfigError> {
    if !settings.agent.temperature.is_finite() {
        // JSON has no NaN/inf: serialising would turn it into null, which reads back as the
        // default, silently changing the user's value.
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            problems: vec![super::error::Problem {
                field: "agent.temperature".into(),
                message: format!(
                    "agent.temperature must be a number, got {}",
                    settings.agent.temperature
                ),
            }],
        });
    }
    let value = settings.to_value();
    if let Err(problems) = validate_value(&value) {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        });
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');

    let io = |action: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| ConfigError::Io {
            action,
            path,
            source,
        }
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io("create the folder", dir))?;

    let tmp = sibling(path, "tmp");
    write_synced(&tmp, text.as_bytes()).map_err(io("write", &tmp))?;
    if path.exists() {
        let bak = sibling(path, "bak");
        // Copy, not rename: renaming would leave a moment with no settings file at all.
        fs::copy(path, &bak).map_err(io("back up the settings to", &bak))?;
    }
    fs::rename(&tmp, path).map_err(io("replace", path))?;
    sync_dir(dir);
    Ok(())
}

/// `settings.json` → `settings.json.<ext>`, in the same folder so the rename stays atomic.
fn sibling(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(ext);
    path.with_file_name(name)
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Makes the rename itself durable. Best effort: some filesystems refuse to open folders.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}
