//! A process killed with SIGKILL in the middle of compaction leaves the old state or the new
//! one, never a mix.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use lango_core::store::{Store, StoreError};

use crate::raw_db::{integrity_check, raw_pool};

const CHILD_ENV: &str = "LANGO_CRASH_TEST_DB";
const KEY: &str = "crash";
const ROWS: i64 = 20_000;

/// Run by the child process only: compacts 51 rows at a time until the history is empty.
#[tokio::test]
#[ignore = "child process of sigkill_during_compaction_leaves_old_or_new_state"]
async fn compaction_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&path)).await.unwrap();
    println!("child ready");
    loop {
        match store
            .compact_messages(KEY, 50, "summary of fifty rows")
            .await
        {
            Ok(_) => {}
            Err(StoreError::OutOfRange { .. }) => break,
            Err(e) => panic!("{e}"),
        }
    }
}

async fn seed(path: &Path) {
    let store = Store::open(path).await.unwrap();
    store.create_session(KEY, "").await.unwrap();
    store.close().await;
    let pool = raw_pool(path).await;
    sqlx::query(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
         INSERT INTO messages (session_id, seq, role, content, created_at)
         SELECT 1, x, CASE x % 2 WHEN 1 THEN 'user' ELSE 'assistant' END, 'message ' || x || ' ' || hex(randomblob(64)), x FROM n",
    )
    .bind(ROWS)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("UPDATE sessions SET next_seq = ? WHERE key = ?")
        .bind(ROWS + 1)
        .bind(KEY)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

/// Checks integrity and that every original row is in exactly one place, every archived row
/// belongs to a finished compaction, and the live history starts with its one summary.
async fn assert_consistent(path: &Path) -> usize {
    let pool = raw_pool(path).await;
    assert_eq!(integrity_check(&pool).await.unwrap(), "ok");

    let live: Vec<(i64, String)> = sqlx::query_as("SELECT seq, kind FROM messages ORDER BY seq")
        .fetch_all(&pool)
        .await
        .unwrap();
    let archived: Vec<(i64, String, Option<i64>)> =
        sqlx::query_as("SELECT seq, kind, summary_id FROM archived_messages")
            .fetch_all(&pool)
            .await
            .unwrap();
    let mut places: HashMap<i64, u32> = HashMap::new();
    for (seq, kind) in &live {
        if kind == "message" {
            *places.entry(*seq).or_default() += 1;
        }
    }
    for (seq, kind, summary_id) in &archived {
        assert!(
            summary_id.is_some(),
            "archived row {seq} has no summary: a half-finished compaction"
        );
        if kind == "message" {
            *places.entry(*seq).or_default() += 1;
        }
    }
    assert_eq!(places.len() as i64, ROWS, "no row lost");
    assert!(places.values().all(|&n| n == 1), "no row in two places");

    let summaries = live.iter().filter(|(_, k)| k == "summary").count();
    if !archived.is_empty() {
        assert_eq!(summaries, 1, "exactly one live summary after compaction");
        assert_eq!(live[0].1, "summary", "the summary sorts first");
    }
    // Appends queue rows for indexing (migration 0005): each row is indexed or queued.
    let (indexed, queued, both): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM message_fts), (SELECT COUNT(*) FROM message_fts_pending),
                (SELECT COUNT(*) FROM message_fts_pending p JOIN message_fts f ON f.rowid = p.id)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        indexed + queued,
        ROWS,
        "the search index holds (or queues) every row once, summaries not at all"
    );
    assert_eq!(both, 0, "no row both indexed and queued");
    pool.close().await;
    archived.len()
}

#[tokio::test]
async fn sigkill_during_compaction_leaves_old_or_new_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    seed(&path).await;
    let exe = std::env::current_exe().unwrap();

    let mut archived_before = 0;
    for round in 0..6u64 {
        let mut child = Command::new(&exe)
            .args([
                "crash::compaction_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Counted from when its store is open: a loaded machine can take longer than the
        // whole kill delay just to start a process.
        let stdout = child.stdout.take().unwrap();
        let ready = tokio::task::spawn_blocking(move || {
            use std::io::BufRead;
            let mut lines = std::io::BufReader::new(stdout).lines();
            let ready = lines
                .by_ref()
                .any(|l| l.is_ok_and(|l| l.contains("child ready")));
            // Keep draining so the child never blocks on a full pipe.
            std::thread::spawn(move || lines.for_each(drop));
            ready
        });
        let ready = tokio::time::timeout(Duration::from_secs(120), ready).await;
        assert!(
            matches!(ready, Ok(Ok(true))),
            "the child never opened the store"
        );
        // Let it run a varying while, then kill it without warning.
        tokio::time::sleep(Duration::from_millis(300 + round * 170)).await;
        child.kill().unwrap(); // SIGKILL on unix
        child.wait().unwrap();
        let archived = assert_consistent(&path).await;
        assert!(archived >= archived_before, "compactions are never undone");
        archived_before = archived;
    }
    assert!(
        archived_before > 0,
        "the child made progress before being killed"
    );
}
