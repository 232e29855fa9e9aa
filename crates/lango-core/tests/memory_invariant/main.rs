//! Observational memory coverage invariant (property-based): across random sequences of
//! turns, memory cycles, observer / reflector failures, empty replies, compactions,
//! reflections, meta-reflections, restarts and SIGKILLs of a process running cycles, every
//! user-visible message `seq` is covered by exactly one of {model history, one observation's
//! range, one reflection's range} — no gaps, no duplicates — and the memory cursor never
//! points past the history.
//!
//! Formulation checked after every step (all from the database, nothing from a model of it):
//! let U = seqs of `kind = message` rows in the history ∪ the archive, `cursor` =
//! `observed_through_seq`.
//! - every seq of U is in exactly one of the history and the archive;
//! - `0 ≤ cursor ≤ max(U)` (0 when U is empty);
//! - every observation / reflection range is non-empty, ends at or before the cursor, holds at
//!   least one seq of U, and no two ranges overlap;
//! - seq ≤ cursor → covered by exactly one observation or reflection range (not both, not two);
//!   with the compactor on it is in the archive, with it off in the history;
//! - seq > cursor → covered by no range and still a history row;
//! - compactor on → at most one summary row in the history.
//!
//! After each SIGKILL, `PRAGMA integrity_check` must also say `ok`.

mod check;
mod child;
mod harness;
mod property;
#[path = "../common/raw_db.rs"]
mod raw_db;

use std::sync::Arc;

use check::check_invariant;
use harness::{append_exchange, build_cycle, open_store, FakeLlm, Reply, KEY};

/// A fixed sequence that must produce observations, reflections and a generation-2+
/// meta-reflection, with a restart and a failed / empty observer call on the way; the
/// invariant holds after every step.
#[tokio::test]
async fn fixed_sequence_reaches_meta_reflection() {
    for compact in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lango.db");
        let mut store = open_store(&path).await;
        store.create_session(KEY, "fixed").await.unwrap();
        let llm = Arc::new(FakeLlm::default());
        let mut cycle = build_cycle(&store, &llm, compact);
        let (mut observed, mut reflected, mut meta) = (0, 0, 0);
        for step in 0..16usize {
            append_exchange(&store, 2 * step, 1, 3).await;
            append_exchange(&store, 2 * step + 1, 1, 5).await;
            match step {
                4 => llm.script([Reply::Fail]),
                7 => llm.script([Reply::Text(String::new())]),
                _ => llm.clear(),
            }
            let report = cycle.run(KEY).await;
            llm.clear();
            observed += usize::from(report.observation.is_some());
            reflected += usize::from(report.reflection.is_some());
            meta += usize::from(report.meta_reflection.is_some());
            if step == 4 || step == 7 {
                assert!(report.observe_error.is_some(), "step {step}: {report:?}");
            }
            check_invariant(&store, compact)
                .await
                .unwrap_or_else(|e| panic!("step {step} (compact {compact}): {e}"));
            if step == 9 {
                store.close().await;
                store = open_store(&path).await;
                cycle = build_cycle(&store, &llm, compact);
                check_invariant(&store, compact).await.unwrap();
            }
        }
        let reflections = store.list_reflections(KEY).await.unwrap();
        let generation = reflections.iter().map(|r| r.generation).max().unwrap_or(0);
        assert!(observed >= 8, "observations: {observed}");
        assert!(reflected >= 2, "reflections: {reflected}");
        assert!(meta >= 1, "meta-reflections: {meta}");
        assert!(generation >= 2, "max generation {generation}");
        store.close().await;
    }
}
