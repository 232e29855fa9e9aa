//! Engine soak (run: `make soak`, or `cargo bench -p lango-core --bench soak`).
//!
//! One conversation of 2,000 turns (SOAK_TURNS to change it) with observational memory on,
//! against the fake provider, the way the app plays them: each turn streamed through
//! `runner.run(…)`, then `engine.after_turn(key)` queues the memory cycle in the background
//! (thresholds 1000/2000 tokens, history budget 8000, so it observes, reflects and archives
//! all along). Prints, at the start and at the end:
//! - this process's memory (RSS and PSS from /proc/self/smaps_rollup), sampled with the
//!   memory idle; "start" is after the first 200 turns (SQLite's page caches, the allocator's
//!   arenas and the retrieval caches fill up first; the figure after turn 0 is printed too);
//!   goal: growth ≤ 10 %; and SQLite's own share (`sqlite3_memory_used`: page caches that
//!   keep filling, up to their caps, while the database grows) with the growth outside it;
//! - send latency (run() → first partial event) and turn time, p50 and p95 of the first and
//!   the last 200 turns; goal: p95 flat (last / first ≤ 1.10); and, beside it, the last
//!   200 against turns 200–400 (after the warm-up the memory figures skip).
//!
//! The fake provider runs in a child process (this binary again, with
//! `LANGO_SOAK_FAKE_PROVIDER=1`): it records every request it serves, which would otherwise
//! count as growth of the engine's process.
//!
//! A plain binary (no criterion): it prints figures and ratios; it asserts only that every
//! turn completed.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::agent::RequestContext;
use lango_core::engine::Engine;
use lango_core::paths::AppPaths;
use lango_core::store::Store;
use lango_testkit::{FakeProvider, Script, Turn};
use serde_json::json;

const PROVIDER: &str = "p";
const CHILD_ENV: &str = "LANGO_SOAK_FAKE_PROVIDER";
/// Turns in each of the windows compared (the first and the last).
const WINDOW: usize = 200;
const REPLY: [&str; 4] = [
    "Noted: the tiles arrive on Tuesday,",
    " the plumber comes on Thursday,",
    " and the budget is tracked.",
    " Anything else for the kitchen?",
];

fn user_message(i: usize) -> String {
    const ROOMS: [&str; 5] = ["kitchen", "bathroom", "attic", "garden shed", "hallway"];
    const TASKS: [&str; 4] = ["new tiles", "wiring", "paint", "window frames"];
    format!(
        "Turn {i}: for the {} remember the {} cost about {} euros and are due in week {}.",
        ROOMS[i % ROOMS.len()],
        TASKS[(i / 3) % TASKS.len()],
        150 + (i * 37) % 900,
        1 + i % 52
    )
}

/// Memory SQLite holds, in kB: mostly the page caches of the store's seven connections,
/// each capped (SQLite's default, 2 MB), so it grows with the database until the caps are
/// reached and then stays. Printed beside RSS so that bounded filling is told apart from a
/// leak. The bundled library is the one sqlx and rusqlite share.
fn sqlite_memory_kb() -> u64 {
    // SAFETY: a read of SQLite's global memory statistics; no pointers are involved.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0) / 1024
}

/// (RSS, PSS) of this process in kB.
fn own_memory_kb() -> (u64, u64) {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| {
        rollup
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("Rss:"), field("Pss:"))
}

fn quantile(samples: &[Duration], q: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "OK"
    } else {
        "ABOVE GOAL"
    }
}

fn main() {
    // As the app and the CLI start (`lango_core::allocator`); SOAK_DEFAULT_MALLOC=1 leaves
    // glibc's default for comparison.
    if std::env::var_os("SOAK_DEFAULT_MALLOC").is_none() {
        lango_core::allocator::limit_arenas();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    if std::env::var_os(CHILD_ENV).is_some() {
        runtime.block_on(serve_fake_provider());
        return;
    }
    // The key comes from the provider's environment variable (no keychain probe).
    std::env::set_var(lango_core::secrets::env_var_name(PROVIDER), "sk-soak");
    runtime.block_on(soak());
}

/// The child: serves the fake provider until the parent closes our stdin.
async fn serve_fake_provider() {
    let fake = FakeProvider::start(Script::new([Turn::text(REPLY)])).await;
    println!("{}", fake.server().base_url());
    tokio::task::spawn_blocking(|| {
        let mut sink = String::new();
        while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {}
    })
    .await
    .ok();
}

/// Waits until the memory has nothing queued or running.
async fn memory_idle(engine: &Engine) {
    if let Some(memory) = &engine.memory {
        while memory.buffer.queued() > 0 || memory.buffer.in_progress().is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
}

async fn turn(engine: &Engine, key: &str, text: &str) -> (Duration, Duration) {
    let started = Instant::now();
    let ctx = RequestContext::for_session(key, engine.runner.root().name.clone());
    let mut stream = engine.runner.run(ctx, key, text, true);
    let (mut first, mut complete) = (None, false);
    while let Some(item) = stream.next().await {
        let event = item.expect("turn");
        if event.partial && first.is_none() {
            first = Some(started.elapsed());
        }
        complete |= event.turn_complete;
    }
    drop(stream);
    assert!(complete, "the turn did not complete");
    (first.expect("a partial event"), started.elapsed())
}

async fn soak() {
    let turns: usize = std::env::var("SOAK_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
        .max(2 * WINDOW);
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the fake provider");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("child stdout"))
        .read_line(&mut url)
        .expect("the fake provider's address");
    let base = format!("{}/v1", url.trim());

    let home = tempfile::tempdir().expect("temp dir");
    let settings = json!({
        "providers": {PROVIDER: {"type": "openai-compatible", "baseUrl": base, "defaultModel": "gpt-4o"}},
        "agent": {"provider": PROVIDER, "systemPrompt": "You help plan a home renovation."},
        "observationalMemory": {"enabled": true, "messageTokenThreshold": 1000,
                                "observationTokenThreshold": 2000, "maxMessageTokenBudget": 8000},
    });
    let (settings, _) = lango_core::config::validate_value(&settings).expect("valid settings");
    let paths = AppPaths::under(home.path());
    let store = Store::open_app(&paths).await.expect("store");
    let engine = Engine::from_parts(&paths, settings, store).expect("engine");
    let key = "soak";

    let at_zero = own_memory_kb();
    let mut sqlite_at_start = sqlite_memory_kb();
    let (mut first, mut end) = (Vec::with_capacity(turns), Vec::with_capacity(turns));
    let mut at_start = at_zero;
    let started = Instant::now();
    for i in 0..turns {
        let (f, e) = turn(&engine, key, &user_message(i)).await;
        engine.after_turn(key);
        first.push(f);
        end.push(e);
        if i + 1 == WINDOW {
            memory_idle(&engine).await;
            at_start = own_memory_kb();
            sqlite_at_start = sqlite_memory_kb();
        }
        if (i + 1) % 500 == 0 {
            let (rss, pss) = own_memory_kb();
            println!(
                "  turn {:>5}: RSS {:.1} MB, PSS {:.1} MB, SQLite {:.1} MB, {:.0} s",
                i + 1,
                rss as f64 / 1024.0,
                pss as f64 / 1024.0,
                sqlite_memory_kb() as f64 / 1024.0,
                started.elapsed().as_secs_f64()
            );
        }
    }
    memory_idle(&engine).await;
    let at_end = own_memory_kb();
    let sqlite_at_end = sqlite_memory_kb();
    let elapsed = started.elapsed();
    let memory = engine.memory.as_ref().expect("memory on");
    let dropped = memory.buffer.dropped_count();
    let (observations, reflections) = (
        engine
            .store
            .list_observations(key)
            .await
            .map_or(0, |v| v.len()),
        engine
            .store
            .list_reflections(key)
            .await
            .map_or(0, |v| v.len()),
    );
    engine.shutdown().await;
    drop(child.stdin.take());
    let _ = child.wait();

    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "engine soak: {turns} turns in one conversation, memory on, in {:.0} s ({observations} observations, {reflections} reflections; {dropped} memory triggers dropped)",
        elapsed.as_secs_f64()
    );
    println!(
        "  memory after turn 0: RSS {:.1} MB, PSS {:.1} MB",
        mb(at_zero.0),
        mb(at_zero.1)
    );
    for (name, start, end) in [("RSS", at_start.0, at_end.0), ("PSS", at_start.1, at_end.1)] {
        let growth = end as f64 / start as f64 - 1.0;
        println!(
            "  {name} after turn {WINDOW} {:.1} MB -> after turn {turns} {:.1} MB: growth {:+.1} % (goal <= 10 %) {}",
            mb(start),
            mb(end),
            growth * 100.0,
            verdict(growth <= 0.10)
        );
    }
    let outside = |rss: u64, sqlite: u64| rss.saturating_sub(sqlite);
    let growth =
        outside(at_end.0, sqlite_at_end) as f64 / outside(at_start.0, sqlite_at_start) as f64 - 1.0;
    println!(
        "  of which SQLite (page caches, capped): {:.1} MB -> {:.1} MB; RSS outside SQLite {:.1} MB -> {:.1} MB: growth {:+.1} % (goal <= 10 %) {}",
        mb(sqlite_at_start),
        mb(sqlite_at_end),
        mb(outside(at_start.0, sqlite_at_start)),
        mb(outside(at_end.0, sqlite_at_end)),
        growth * 100.0,
        verdict(growth <= 0.10)
    );
    for (name, samples) in [("first partial", &first), ("turn end", &end)] {
        let (head, tail) = (&samples[..WINDOW], &samples[samples.len() - WINDOW..]);
        let (p95_head, p95_tail) = (quantile(head, 0.95), quantile(tail, 0.95));
        let ratio = p95_tail.as_secs_f64() / p95_head.as_secs_f64();
        println!(
            "  {name:<13}: first {WINDOW} turns p50 {:.2} ms p95 {:.2} ms; last {WINDOW} p50 {:.2} ms p95 {:.2} ms; p95 last / first {ratio:.2} (goal <= 1.10) {}",
            ms(quantile(head, 0.5)),
            ms(p95_head),
            ms(quantile(tail, 0.5)),
            ms(p95_tail),
            verdict(ratio <= 1.10)
        );
        // The same after the warm-up the memory figures skip (the memory section and the
        // retrieval caches fill in the first turns): printed beside the goal, not instead.
        let warm = &samples[WINDOW..2 * WINDOW];
        let p95_warm = quantile(warm, 0.95);
        println!(
            "  {:<13}  turns {WINDOW}-{} p50 {:.2} ms p95 {:.2} ms; p95 last / those {:.2}",
            "",
            2 * WINDOW,
            ms(quantile(warm, 0.5)),
            ms(p95_warm),
            p95_tail.as_secs_f64() / p95_warm.as_secs_f64()
        );
    }
}
