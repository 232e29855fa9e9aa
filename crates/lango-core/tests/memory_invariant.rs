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

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lango_core::agent::{
    AgentError, Content, Llm, LlmRequest, LlmResponse, LlmStream, RequestContext,
};
use lango_core::memory::cycle::{CycleReport, MemoryCycle};
use lango_core::memory::observer::Observer;
use lango_core::memory::reflector::Reflector;
use lango_core::memory::MemoryConfig;
use lango_core::store::{MessageKind, NewMessage, Store};
use lango_core::tokens::{FixedCostCounter, TokenCounter};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

const KEY: &str = "invariant";
const CHILD_DB: &str = "LANGO_MEMORY_INVARIANT_DB";
const CHILD_COMPACT: &str = "LANGO_MEMORY_INVARIANT_COMPACT";
const CHILD_READY: &str = "memory child ready";
/// Cost of every message and every note (FixedCostCounter).
const COST: usize = 10;

/// Low thresholds so observations, reflections and meta-reflections happen within a few
/// turns: observe at 3 un-observed rows (at most 6 per observation), reflect at 4
/// observations, meta-reflect at 2 reflections.
fn config() -> MemoryConfig {
    MemoryConfig {
        message_token_threshold: 30,
        observation_token_threshold: 40,
        max_message_token_budget: 60,
        reflection_consolidation_threshold: 2,
        ..MemoryConfig::default()
    }
}

// ---------------------------------------------------------------------------------------------
// A model that answers scripted replies, then "note N".

#[derive(Debug, Clone)]
enum Reply {
    Text(String),
    Fail,
}

#[derive(Debug, Default)]
struct FakeLlm {
    replies: Mutex<VecDeque<Reply>>,
    calls: AtomicUsize,
}

impl FakeLlm {
    fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        let mut q = self.replies.lock().unwrap();
        q.clear();
        q.extend(replies);
    }

    fn clear(&self) {
        self.replies.lock().unwrap().clear();
    }
}

impl Llm for FakeLlm {
    fn name(&self) -> &str {
        "fake"
    }

    fn generate_content(
        &self,
        _ctx: &RequestContext,
        _request: LlmRequest,
        _stream: bool,
    ) -> LlmStream {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let reply = self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Reply::Text(format!("note {n}")));
        Box::pin(futures_util::stream::once(async move {
            match reply {
                Reply::Text(text) => Ok(LlmResponse {
                    content: Some(Content::model_text(text)),
                    partial: false,
                    turn_complete: true,
                    usage: None,
                    truncated: false,
                }),
                Reply::Fail => Err(AgentError::Other("scripted model failure".into())),
            }
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// Store + cycle.

fn counter() -> Arc<dyn TokenCounter> {
    Arc::new(FixedCostCounter { cost: COST })
}

async fn open_store(path: &Path) -> Store {
    Store::open_with(path, &path.parent().unwrap().join("backups"), counter())
        .await
        .expect("open store")
}

fn build_cycle(store: &Store, llm: &Arc<FakeLlm>, compact: bool) -> MemoryCycle {
    let config = config();
    let llm: Arc<dyn Llm> = llm.clone();
    MemoryCycle::new(
        Observer::new(llm.clone(), counter(), config.clone()),
        Reflector::new(llm, counter(), config),
        store.clone(),
    )
    .with_compactor(compact)
}

/// One user message and `answers` assistant messages of `len` characters.
async fn append_exchange(store: &Store, n: usize, answers: usize, len: usize) {
    let text = |prefix: &str| format!("{prefix}{n} {}", "x".repeat(len));
    store
        .append_message(KEY, NewMessage::new("user", text("u")))
        .await
        .expect("append user");
    for _ in 0..answers {
        store
            .append_message(KEY, NewMessage::new("assistant", text("a")))
            .await
            .expect("append assistant");
    }
}

/// What the checks saw, across the whole run.
#[derive(Default)]
struct Seen {
    observations: AtomicUsize,
    reflections: AtomicUsize,
    max_generation: AtomicI64,
    kills: AtomicUsize,
    kills_with_progress: AtomicUsize,
}

/// The coverage invariant (see the module doc). Returns (max generation, #observations +
/// #reflections, max seq).
async fn check_invariant(store: &Store, compact: bool) -> Result<(i64, usize, i64), String> {
    let e = |e: lango_core::store::StoreError| e.to_string();
    let live = store.list_messages(KEY).await.map_err(e)?;
    let archived = store
        .archived_messages(KEY, i64::MIN, i64::MAX)
        .await
        .map_err(e)?;
    let cursor = store.observed_through_seq(KEY).await.map_err(e)?;
    let observations = store.list_observations(KEY).await.map_err(e)?;
    let reflections = store.list_reflections(KEY).await.map_err(e)?;

    // seq → (in history, in archive)
    let mut places: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    for m in live.iter().filter(|m| m.kind == MessageKind::Message) {
        places.entry(m.seq).or_default().0 += 1;
    }
    for m in archived.iter().filter(|m| m.kind == MessageKind::Message) {
        places.entry(m.seq).or_default().1 += 1;
    }
    for (seq, (l, a)) in &places {
        if l + a != 1 {
            return Err(format!(
                "seq {seq}: {l} history row(s) and {a} archived row(s), expected exactly one"
            ));
        }
    }
    let max_seq = places.keys().next_back().copied().unwrap_or(0);
    if cursor < 0 || cursor > max_seq {
        return Err(format!(
            "cursor {cursor} points past the history (max seq {max_seq})"
        ));
    }
    if compact {
        let summaries = live
            .iter()
            .filter(|m| m.kind == MessageKind::Summary)
            .count();
        if summaries > 1 {
            return Err(format!("{summaries} summary rows in the history"));
        }
    }

    let ranges: Vec<(String, i64, i64)> = observations
        .iter()
        .map(|o| (format!("observation {}", o.id), o.seq_start, o.seq_end))
        .chain(reflections.iter().map(|r| {
            (
                format!("reflection {} (gen {})", r.id, r.generation),
                r.seq_start,
                r.seq_end,
            )
        }))
        .collect();
    for (name, start, end) in &ranges {
        if start > end {
            return Err(format!("{name}: empty range {start}..={end}"));
        }
        if *end > cursor {
            return Err(format!(
                "{name}: range {start}..={end} ends after the cursor {cursor}"
            ));
        }
        if places.range(*start..=*end).next().is_none() {
            return Err(format!("{name}: range {start}..={end} covers no message"));
        }
    }
    let mut sorted: Vec<&(String, i64, i64)> = ranges.iter().collect();
    sorted.sort_by_key(|r| r.1);
    for pair in sorted.windows(2) {
        if pair[1].1 <= pair[0].2 {
            return Err(format!(
                "{} ({}..={}) overlaps {} ({}..={})",
                pair[0].0, pair[0].1, pair[0].2, pair[1].0, pair[1].1, pair[1].2
            ));
        }
    }

    for (&seq, &(in_history, in_archive)) in &places {
        let covering: Vec<&str> = ranges
            .iter()
            .filter(|(_, s, e)| *s <= seq && seq <= *e)
            .map(|(n, _, _)| n.as_str())
            .collect();
        if seq <= cursor {
            if covering.len() != 1 {
                return Err(format!(
                    "seq {seq} ≤ cursor {cursor} is covered by {covering:?}, expected exactly one \
                     observation or reflection"
                ));
            }
            if compact && in_archive != 1 {
                return Err(format!(
                    "seq {seq} ≤ cursor {cursor} is still in the history with the compactor on"
                ));
            }
            if !compact && in_history != 1 {
                return Err(format!("seq {seq} was archived with the compactor off"));
            }
        } else {
            if !covering.is_empty() {
                return Err(format!(
                    "seq {seq} > cursor {cursor} is covered by {covering:?}"
                ));
            }
            if in_history != 1 {
                return Err(format!(
                    "seq {seq} > cursor {cursor} is not in the history (archived: {in_archive})"
                ));
            }
        }
    }
    let max_generation = reflections.iter().map(|r| r.generation).max().unwrap_or(0);
    Ok((max_generation, ranges.len(), max_seq))
}

async fn integrity_ok(path: &Path) -> Result<(), String> {
    let opts = SqliteConnectOptions::from_str("sqlite:")
        .unwrap()
        .filename(path);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .map_err(|e| e.to_string())?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&pool)
        .await
        .map_err(|e| e.to_string())?;
    pool.close().await;
    if integrity == "ok" {
        Ok(())
    } else {
        Err(format!("integrity_check: {integrity}"))
    }
}

// ---------------------------------------------------------------------------------------------
// The child process killed by SIGKILL.

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
fn run_and_kill_child(path: &Path, compact: bool, delay: Duration) -> Result<(), String> {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "cycle_child",
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

// ---------------------------------------------------------------------------------------------
// The property.

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

/// The check itself catches a duplicate range and a cursor past the history (guards against
/// an invariant that silently passes everything).
#[tokio::test]
async fn invariant_check_detects_violations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lango.db");
    let store = open_store(&path).await;
    store.create_session(KEY, "broken").await.unwrap();
    let llm = Arc::new(FakeLlm::default());
    let cycle = build_cycle(&store, &llm, true);
    for n in 0..3 {
        append_exchange(&store, n, 1, 1).await;
    }
    let o = cycle.run(KEY).await.observation.expect("observed");
    check_invariant(&store, true).await.unwrap();

    // The same range twice: a duplicate.
    let mut dup = o.clone();
    dup.id = String::new();
    store.save_observation(dup).await.unwrap();
    let err = check_invariant(&store, true).await.unwrap_err();
    assert!(err.contains("overlaps"), "{err}");
    store.close().await;

    // A cursor past the history.
    let opts = SqliteConnectOptions::from_str("sqlite:")
        .unwrap()
        .filename(&path);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .unwrap();
    sqlx::query("DELETE FROM observations WHERE id <> ?")
        .bind(&o.id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE sessions SET observed_through_seq = 999")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let store = open_store(&path).await;
    let err = check_invariant(&store, true).await.unwrap_err();
    assert!(err.contains("past the history"), "{err}");
    store.close().await;
}
