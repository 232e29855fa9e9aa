//! Importing ChatGPT and Claude exports (issue 15 item 3) into real SQLite files: the formats
//! (`formats`), re-imports (`reimport`) and building the memory of what was imported
//! (`memory`). Fixtures are synthetic exports in `tests/fixtures/import/`; never real data.

mod formats;
mod long;
mod memory;
mod reimport;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lango_core::import::{import_file, ImportError, ImportProgress, ImportSummary};
use lango_core::store::{Store, StoredMessage};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

pub fn fixture_json(name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).expect("fixture")).expect("json")
}

pub async fn store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

/// Writes `value` as a file in `dir`.
pub fn write_json(dir: &TempDir, name: &str, value: &serde_json::Value) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(value).expect("json")).expect("write");
    path
}

/// Imports `path`, recording every progress event.
pub async fn import(
    store: &Store,
    path: &Path,
) -> (Result<ImportSummary, ImportError>, Vec<ImportProgress>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let result = import_file(
        store,
        path,
        Arc::new(move |p| sink.lock().unwrap().push(p)),
        CancellationToken::new(),
    )
    .await;
    let events = events.lock().unwrap().clone();
    (result, events)
}

/// Every message of a session, oldest first (archived ones included).
pub async fn messages(store: &Store, key: &str) -> Vec<StoredMessage> {
    lango_core::export::all_messages(store, key)
        .await
        .expect("messages")
}

/// The session whose title is `title`.
pub async fn key_of(store: &Store, title: &str) -> String {
    store
        .list_sessions(500, 0)
        .await
        .expect("list")
        .into_iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no session titled {title:?}"))
        .key
}
