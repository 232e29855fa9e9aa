//! The settings the desktop app starts from when there is no settings file yet.
//!
//! Owns only the first-run choice: the engine's defaults (REFERENCE §4.1: memory off) stay
//! the spec's, but a person opening the desktop app gets its headline feature, the
//! observational memory, on. The file is written once, when it is missing; an existing
//! file (even an empty or broken one) is never touched here.

use crate::config::{self, Settings};
use crate::paths::AppPaths;

/// The engine's defaults with the observational memory on.
pub(super) fn first_run_settings() -> Settings {
    let mut settings = Settings::default();
    settings.observational_memory.enabled = true;
    settings
}

/// On a first run (no settings file) writes [`first_run_settings`] and returns them;
/// otherwise `None` and the file is left alone. A file that cannot be checked counts as
/// existing. A failed write is logged: the app still runs on the first-run settings, and
/// the first save from the settings screen writes them.
pub(super) fn write_if_missing(paths: &AppPaths) -> Option<Settings> {
    let file = paths.settings_file();
    match file.try_exists() {
        Ok(false) => {}
        Ok(true) => return None,
        Err(e) => {
            tracing::warn!("cannot tell whether {} exists: {e}", file.display());
            return None;
        }
    }
    let settings = first_run_settings();
    match config::save(paths, &settings) {
        Ok(()) => tracing::info!("first run: wrote {} (memory on)", file.display()),
        Err(e) => tracing::warn!("first run: could not write the settings file: {e}"),
    }
    Some(settings)
}
