//! Store tests against real SQLite files in temporary folders.

mod attachments;
mod compaction;
mod crash;
mod find;
mod legacy_results;
mod memory;
mod messages;
mod open;
mod search;
mod search_results;
mod search_scripts;
mod search_upgrades;
mod sessions;
mod status;

#[path = "../common/raw_db.rs"]
mod raw_db;

use std::sync::Arc;

use lango_core::store::{NewMessage, Store};
use lango_core::tokens::FixedCostCounter;
use tempfile::TempDir;

/// A fresh store in its own temp folder (kept alive by the returned TempDir).
pub async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

/// A store whose token counter charges `cost` per message (REFERENCE "cost N").
pub async fn temp_store_with_cost(cost: usize) -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        Arc::new(FixedCostCounter { cost }),
    )
    .await
    .expect("open store");
    (dir, store)
}

/// Appends `n` alternating user/assistant messages "m0", "m1", ….
pub async fn append_n(store: &Store, key: &str, n: usize) {
    for i in 0..n {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        store
            .append_message(key, NewMessage::new(role, format!("m{i}")))
            .await
            .expect("append");
    }
}
