//! The child process a case kills with SIGKILL: this test binary run again, filtered to
//! `child::cycle_child`, appending exchanges and running memory cycles until it is killed.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use crate::harness::{append_exchange, build_cycle, open_store, FakeLlm, Reply, KEY};

const CHILD_DB: &str = "LANGO_MEMORY_INVARIANT_DB";
const CHILD_COMPACT: &str = "LANGO_MEMORY_INVARIANT_COMPACT";
const CHILD_READY: &str = "memory child ready";

/// Run by the child process only: appends exchanges and runs cycles (every third observer
/// call fails, every fifth reply is empty) until it is killed.
#[test]
#[ignore = "child process of memory_coverage_invariant (killed with SIGKILL)"]
fn cycle_child() {
    let Ok(path) = std::env::var(CHILD_DB) else {
        return;
    };
    let compact = std::env::var(CHILD_COMPACT).as_deref() == Ok("1");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let store = open_store(Path::new(&path)).await;
        let llm = Arc::new(FakeLlm::default());
        let cycle = build_cycle(&store, &llm, compact);
        println!("{CHILD_READY}");
        for n in 0usize.. {
            append_exchange(&store, 100_000 + n, 1 + n % 2, n % 7).await;
            match n % 15 {
                3 | 9 => llm.script([Reply::Fail]),
                5 => llm.script([Reply::Text(String::new())]),
                10 => llm.script([Reply::Text("obs".into()), Reply::Fail]),
                _ => llm.clear(),
            }
            let _ = cycle.run(KEY).await;
        }
    });
}

/// Runs `cycle_child` on `path` and kills it `delay` after it opened the store.
pub fn run_and_kill_child(path: &Path, compact: bool, delay: Duration) -> Result<(), String> {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "child::cycle_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB, path)
        .env(CHILD_COMPACT, if compact { "1" } else { "0" })
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().unwrap();
    let mut ready = false;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        if line.contains(CHILD_READY) {
            ready = true;
            break;
        }
    }
    if ready {
        std::thread::sleep(delay);
    }
    let _ = child.kill(); // SIGKILL on unix
    let status = child.wait().map_err(|e| e.to_string())?;
    if !ready {
        return Err(format!(
            "the child exited before opening the store: {status}"
        ));
    }
    Ok(())
}
