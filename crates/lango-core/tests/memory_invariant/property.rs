//! The property: random sequences of turns, cycles, model failures and empty replies,
//! restarts and SIGKILLs, the invariant checked after every step.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lango_core::memory::cycle::CycleReport;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::check::{check_invariant, integrity_ok};
use crate::child::run_and_kill_child;
use crate::harness::{append_exchange, build_cycle, open_store, FakeLlm, Reply, KEY};

/// What the checks saw, across the whole run.
#[derive(Default)]
struct Seen {
    observations: AtomicUsize,
    reflections: AtomicUsize,
    max_generation: AtomicI64,
    kills: AtomicUsize,
    kills_with_progress: AtomicUsize,
}

#[derive(Debug, Clone)]
enum Op {
    /// A user message and `answers` (0..=2) assistant messages of `len` characters.
    Append { answers: usize, len: usize },
    /// A memory cycle whose model answers notes.
    Cycle,
    /// A cycle whose model call number `at` (0 = observer, 1 = reflector, 2 = meta) fails.
    CycleFail { at: usize },
    /// A cycle whose model call number `at` returns an empty reply.
    CycleEmpty { at: usize },
    /// Close the store, reopen it from the file, rebuild the cycle.
    Restart,
    /// Close the store, run cycles in a child process, SIGKILL it after `delay_ms`, reopen.
    Kill { delay_ms: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0usize..=2, 0usize..40).prop_map(|(answers, len)| Op::Append { answers, len }),
        4 => Just(Op::Cycle),
        1 => (0usize..3).prop_map(|at| Op::CycleFail { at }),
        1 => (0usize..3).prop_map(|at| Op::CycleEmpty { at }),
        1 => Just(Op::Restart),
        1 => (0u64..120).prop_map(|delay_ms| Op::Kill { delay_ms }),
    ]
}

fn script_for(at: usize, bad: Reply) -> Vec<Reply> {
    let mut replies: Vec<Reply> = (0..at).map(|i| Reply::Text(format!("ok {i}"))).collect();
    replies.push(bad);
    replies
}

async fn run_case(ops: Vec<Op>, compact: bool, seen: &Seen) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path: PathBuf = dir.path().join("lango.db");
    let mut store = open_store(&path).await;
    store
        .create_session(KEY, "invariant")
        .await
        .map_err(|e| e.to_string())?;
    let llm = Arc::new(FakeLlm::default());
    let mut cycle = build_cycle(&store, &llm, compact);
    let mut turn = 0usize;
    for (i, op) in ops.iter().enumerate() {
        let ctx = |e: String| format!("after op #{i} {op:?} (compact {compact}): {e}");
        let mut report: Option<CycleReport> = None;
        match op {
            Op::Append { answers, len } => {
                append_exchange(&store, turn, *answers, *len).await;
                turn += 1;
            }
            Op::Cycle => {
                llm.clear();
                report = Some(cycle.run(KEY).await);
            }
            Op::CycleFail { at } => {
                llm.script(script_for(*at, Reply::Fail));
                report = Some(cycle.run(KEY).await);
            }
            Op::CycleEmpty { at } => {
                llm.script(script_for(*at, Reply::Text("  ".into())));
                report = Some(cycle.run(KEY).await);
            }
            Op::Restart => {
                store.close().await;
                store = open_store(&path).await;
                cycle = build_cycle(&store, &llm, compact);
            }
            Op::Kill { delay_ms } => {
                let (_, before_items, before_max) =
                    check_invariant(&store, compact).await.map_err(ctx)?;
                store.close().await;
                run_and_kill_child(&path, compact, Duration::from_millis(*delay_ms))
                    .map_err(ctx)?;
                integrity_ok(&path).await.map_err(ctx)?;
                store = open_store(&path).await;
                cycle = build_cycle(&store, &llm, compact);
                let (_, items, max) = check_invariant(&store, compact).await.map_err(ctx)?;
                seen.kills.fetch_add(1, Ordering::Relaxed);
                if max > before_max || items != before_items {
                    seen.kills_with_progress.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        llm.clear();
        if let Some(r) = &report {
            if r.observation.is_some() {
                seen.observations.fetch_add(1, Ordering::Relaxed);
            }
            if r.reflection.is_some() || r.meta_reflection.is_some() {
                seen.reflections.fetch_add(1, Ordering::Relaxed);
            }
        }
        let (generation, _, _) = check_invariant(&store, compact).await.map_err(ctx)?;
        seen.max_generation.fetch_max(generation, Ordering::Relaxed);
    }
    store.close().await;
    Ok(())
}

#[test]
fn memory_coverage_invariant() {
    let started = Instant::now();
    let seen = Seen::default();
    let mut runner = TestRunner::new(Config {
        cases: 20,
        max_shrink_iters: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        proptest::collection::vec(op(), 1..=25),
        prop_oneof![3 => Just(true), 1 => Just(false)],
    );
    let result = runner.run(&strategy, |(ops, compact)| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(run_case(ops, compact, &seen))
            .map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let observations = seen.observations.load(Ordering::Relaxed);
    let kills = seen.kills.load(Ordering::Relaxed);
    let progress = seen.kills_with_progress.load(Ordering::Relaxed);
    eprintln!(
        "memory invariant: {observations} observations, {} reflection steps, max generation {}, \
         {kills} kills ({progress} with child progress), {:?}",
        seen.reflections.load(Ordering::Relaxed),
        seen.max_generation.load(Ordering::Relaxed),
        started.elapsed()
    );
    assert!(observations > 0, "no run produced an observation");
    assert!(kills > 0, "no run killed a child");
    assert!(progress > 0, "no killed child made progress");
    assert!(
        seen.max_generation.load(Ordering::Relaxed) >= 1,
        "no run produced a reflection"
    );
}
