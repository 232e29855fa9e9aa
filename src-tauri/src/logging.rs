//! Logs of the desktop app: `tracing` to `<log_dir>/lango-desktop.log` (and stderr), level
//! from `LANGO_LOG` / `RUST_LOG` (default `info`). The file is rotated once at start when
//! it grew past 5 MB, so it never fills a disk. API keys never reach it: the engine redacts
//! them before anything is logged.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::fmt::writer::MakeWriterExt;
use tracing_subscriber::EnvFilter;

const LOG_FILE: &str = "lango-desktop.log";
const ROTATE_AT_BYTES: u64 = 5 * 1024 * 1024;

/// Starts logging; returns the log file's path (None if the folder is not writable, in which
/// case logs go to stderr only).
pub fn init(log_dir: &Path) -> Option<std::path::PathBuf> {
    let filter = std::env::var("LANGO_LOG")
        .ok()
        .and_then(|v| EnvFilter::try_new(v).ok())
        .or_else(|| EnvFilter::try_from_default_env().ok())
        .unwrap_or_else(|| EnvFilter::new("info"));
    let path = log_dir.join(LOG_FILE);
    let file = std::fs::create_dir_all(log_dir).ok().and_then(|()| {
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > ROTATE_AT_BYTES) {
            let _ = std::fs::rename(&path, log_dir.join(format!("{LOG_FILE}.1")));
        }
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .ok()
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false);
    match file {
        Some(file) => {
            let writer = Mutex::new(file).and(std::io::stderr);
            let _ = builder.with_writer(writer).try_init();
            Some(path)
        }
        None => {
            let _ = builder.with_writer(std::io::stderr).try_init();
            None
        }
    }
}
