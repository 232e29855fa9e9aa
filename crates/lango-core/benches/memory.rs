//! Observational memory benchmarks (run: `cargo bench -p lango-core --bench memory`).
//!
//! Prints:
//! - send latency with memory on / off (goal ≤ 1.02: the memory is never on the send path):
//!   time from `runner.run(…)` to the first partial event, and to the end of the turn,
//!   medians over 40 turns per engine (after 5 warm-up turns), one session per engine, turns
//!   alternating between the two engines, both against the same fake provider; 11 rounds,
//!   each with fresh engines and databases, and the median of their ratios with its spread. The
//!   memory-on engine calls `engine.after_turn(key)` after each turn, as the CLI does: the
//!   observer runs in the background (default thresholds, so it observes during the run);
//! - prompt tokens of the 200th chat request with memory on / off (goal ≤ 0.3): 200 turns of
//!   ~40-token user messages, ~40-token replies, model "gpt-4o" (64k budget, so without
//!   memory the whole history is sent). With memory on (messageTokenThreshold 1000,
//!   observationTokenThreshold 2000, maxMessageTokenBudget 8000) the cycle runs after every
//!   turn (`memory.cycle.run(key)`, awaited, for determinism). The request is counted as sent:
//!   the fake's recorded body, system + messages, `TiktokenCounter::message_cost` each.
//!
//! A plain binary (no criterion) so it builds fast and prints ratios, not just timings.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::agent::RequestContext;
use lango_core::engine::Engine;
use lango_core::paths::AppPaths;
use lango_core::store::Store;
use lango_core::tokens::{MessageParts, TiktokenCounter, TokenCounter};
use lango_testkit::{FakeProvider, Script, Turn};
use serde_json::{json, Value};

const SYSTEM: &str = "You are a helpful assistant for planning a home renovation.";
const PROVIDER: &str = "p";
const LATENCY_WARMUP: usize = 5;
const LATENCY_TURNS: usize = 40;
const LATENCY_ROUNDS: usize = 11;
/// Memory on / off, first partial event (issue 16: memory is never on the send path).
const LATENCY_GOAL: f64 = 1.02;
const TOKEN_TURNS: usize = 200;

/// A ~40-token reply, streamed in a few chunks (also the observer's and reflector's notes).
const REPLY: [&str; 6] = [
    "Noted. The kitchen budget is now tracked,",
    " the tiles are expected on Tuesday,",
    " and the plumber is booked for Thursday morning.",
    " I will keep the running total of costs up to date",
    " and remind you of open decisions",
    " before the next review.",
];

/// A varied ~40-token user message for turn `i`.
fn user_message(i: usize) -> String {
    const ROOMS: [&str; 5] = ["kitchen", "bathroom", "attic", "garden shed", "hallway"];
    const PEOPLE: [&str; 4] = ["Anna", "the plumber", "my brother Marc", "the electrician"];
    const TASKS: [&str; 5] = [
        "new tiles",
        "wiring check",
        "paint samples",
        "window frames",
        "floor sanding",
    ];
    const DAYS: [&str; 5] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
    format!(
        "Turn {i}: for the {} please remember that {} handles the {} by {}, that it costs about {} euros, and that we review progress every {} afternoon.",
        ROOMS[i % ROOMS.len()],
        PEOPLE[(i / 2) % PEOPLE.len()],
        TASKS[(i / 3) % TASKS.len()],
        DAYS[i % DAYS.len()],
        150 + (i * 37) % 900,
        DAYS[(i / 5) % DAYS.len()],
    )
}

fn settings(base_url: &str, model: &str, memory: Value) -> lango_core::config::Settings {
    let value = json!({
        "providers": {PROVIDER: {"type": "openai-compatible", "baseUrl": base_url, "defaultModel": model}},
        "agent": {"provider": PROVIDER, "systemPrompt": SYSTEM},
        "observationalMemory": memory,
    });
    let (settings, _warnings) =
        lango_core::config::validate_value(&value).expect("valid bench settings");
    settings
}

async fn engine(home: &std::path::Path, settings: lango_core::config::Settings) -> Engine {
    let paths = AppPaths::under(home);
    let store = Store::open_app(&paths).await.expect("store");
    Engine::from_parts(&paths, settings, store).expect("engine")
}

/// One turn: (time to the first partial event, time to the end of the turn).
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
    let end = started.elapsed();
    assert!(complete, "the turn did not complete");
    (first.expect("a partial event"), end)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
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

fn system_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter(|m| m["role"] == "system")
                .map(|m| m["content"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The chat requests (not the observer's or reflector's), in order.
fn chat_requests(fake: &FakeProvider) -> Vec<Value> {
    fake.generate_requests()
        .iter()
        .map(|r| r.json())
        .filter(|b| system_text(b).starts_with(SYSTEM))
        .collect()
}

/// Tokens of a request as sent: (system, history, messages in the history).
fn request_tokens(body: &Value) -> (usize, usize, usize) {
    let (mut system, mut history, mut count) = (0, 0, 0);
    for m in body["messages"].as_array().expect("messages") {
        let content = match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        };
        let cost = TiktokenCounter.message_cost(&MessageParts {
            content: &content,
            tool_calls: vec![],
        });
        if m["role"] == "system" {
            system += cost;
        } else {
            history += cost;
            count += 1;
        }
    }
    (system, history, count)
}

fn main() {
    // The key comes from the provider's environment variable (no keychain probe).
    std::env::set_var(lango_core::secrets::env_var_name(PROVIDER), "sk-bench");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let user_tokens: Vec<usize> = (0..TOKEN_TURNS)
        .map(|i| TiktokenCounter.count(&user_message(i)))
        .collect();
    println!(
        "memory bench: user messages ~{:.0} tokens (min {}, max {}), replies {} tokens",
        user_tokens.iter().sum::<usize>() as f64 / user_tokens.len() as f64,
        user_tokens.iter().min().unwrap(),
        user_tokens.iter().max().unwrap(),
        TiktokenCounter.count(&REPLY.concat())
    );
    latency().await;
    prompt_tokens().await;
}

/// What one round of the latency comparison measured.
struct Round {
    /// Medians: first partial on / off, turn end on / off.
    first: [Duration; 2],
    end: [Duration; 2],
    observations: usize,
    dropped: u64,
    cache: lango_core::memory::knowledge_index::IndexCounts,
    /// Medians of 20: engine.inspect on / off; knowledge::retrieve alone, nothing cached.
    inspect: [Duration; 2],
    retrieve: Duration,
}

/// Part 1, send latency with memory on / off: [`LATENCY_ROUNDS`] rounds, each with two
/// fresh engines (fresh databases), so the spread between rounds shows in one run.
async fn latency() {
    let mut rounds = Vec::new();
    for _ in 0..LATENCY_ROUNDS {
        rounds.push(latency_round().await);
    }
    let ratio = |r: &Round, f: fn(&Round) -> [Duration; 2]| {
        let [on, off] = f(r);
        on.as_secs_f64() / off.as_secs_f64()
    };
    let mut firsts: Vec<f64> = rounds.iter().map(|r| ratio(r, |r| r.first)).collect();
    let mut ends: Vec<f64> = rounds.iter().map(|r| ratio(r, |r| r.end)).collect();
    firsts.sort_by(f64::total_cmp);
    ends.sort_by(f64::total_cmp);
    let mid = |v: &[f64]| v[v.len() / 2];
    let within = firsts.iter().filter(|&&r| r <= LATENCY_GOAL).count();
    println!(
        "send latency (run() -> first partial event): {LATENCY_ROUNDS} rounds of {LATENCY_TURNS} turns per engine (after {LATENCY_WARMUP} warm-up), alternating; memory-on observer in the background"
    );
    for (i, r) in rounds.iter().enumerate() {
        println!(
            "  round {:>2}: first partial on {:.3} ms / off {:.3} ms = {:.3}; turn end {:.3} / {:.3} ms = {:.3}; {} observations/reflections, {} triggers dropped, {} of {} keywords read from the database",
            i + 1,
            ms(r.first[0]),
            ms(r.first[1]),
            ratio(r, |r| r.first),
            ms(r.end[0]),
            ms(r.end[1]),
            ratio(r, |r| r.end),
            r.observations,
            r.dropped,
            r.cache.read,
            r.cache.keywords
        );
    }
    println!(
        "  first partial, memory on / off: median {:.3} over {LATENCY_ROUNDS} rounds (min {:.3}, max {:.3}; {within} of {LATENCY_ROUNDS} within the goal) (goal <= {LATENCY_GOAL}) {}",
        mid(&firsts),
        firsts[0],
        firsts[firsts.len() - 1],
        verdict(mid(&firsts) <= LATENCY_GOAL)
    );
    println!(
        "  turn end, memory on / off:      median {:.3} (min {:.3}, max {:.3})",
        mid(&ends),
        ends[0],
        ends[ends.len() - 1]
    );
    let last = rounds.last().expect("a round");
    println!(
        "  breakdown (last round, medians of 20): engine.inspect (session load + assembly) on {:.3} ms / off {:.3} ms; knowledge::retrieve alone, nothing cached {:.3} ms",
        ms(last.inspect[0]),
        ms(last.inspect[1]),
        ms(last.retrieve)
    );
}

async fn latency_round() -> Round {
    let fake = FakeProvider::start(Script::new([Turn::text(REPLY)])).await;
    let base = format!("{}/v1", fake.server().base_url());
    let (home_on, home_off) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let on = engine(
        home_on.path(),
        settings(&base, "fake-model", json!({"enabled": true})),
    )
    .await;
    let off = engine(
        home_off.path(),
        settings(&base, "fake-model", json!({"enabled": false})),
    )
    .await;
    assert!(on.memory.is_some() && off.memory.is_none());
    let key = "latency";
    let (mut first, mut end): ([Vec<Duration>; 2], [Vec<Duration>; 2]) = Default::default();
    for i in 0..LATENCY_WARMUP + LATENCY_TURNS {
        let text = user_message(i);
        // Alternate which engine goes first, so neither always follows the other.
        for k in 0..2 {
            let which = (i + k) % 2; // 0 = on, 1 = off
            let engine = [&on, &off][which];
            let (f, e) = turn(engine, key, &text).await;
            engine.after_turn(key);
            if i >= LATENCY_WARMUP {
                first[which].push(f);
                end[which].push(e);
            }
        }
    }
    let memory = on.memory.as_ref().unwrap();
    let dropped = memory.buffer.dropped_count();
    let cache = memory.knowledge_index.counts();
    // Where the difference goes: what the adapter does before the provider call. The
    // "what the model sees" assembly (`engine.inspect`: session load + assembly, with the
    // engine's retrieval cache), and the knowledge retrieval alone with nothing cached.
    let next = user_message(LATENCY_WARMUP + LATENCY_TURNS);
    let (mut inspect_on, mut inspect_off, mut retrieve) = (vec![], vec![], vec![]);
    for _ in 0..20 {
        let t = Instant::now();
        std::hint::black_box(on.inspect(key).await.expect("inspect"));
        inspect_on.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(off.inspect(key).await.expect("inspect"));
        inspect_off.push(t.elapsed());
        let t = Instant::now();
        let found = lango_core::memory::knowledge::retrieve(
            &on.store,
            key,
            &next,
            &[],
            &std::collections::HashSet::new(),
        )
        .await;
        std::hint::black_box(found.expect("retrieve"));
        retrieve.push(t.elapsed());
    }
    on.shutdown().await;
    off.shutdown().await;
    let observations = {
        let store = Store::open(&home_on.path().join("lango.db")).await.unwrap();
        let n = store.list_observations(key).await.unwrap().len()
            + store.list_reflections(key).await.unwrap().len();
        store.close().await;
        n
    };
    Round {
        first: first.map(median),
        end: end.map(median),
        observations,
        dropped,
        cache,
        inspect: [median(inspect_on), median(inspect_off)],
        retrieve: median(retrieve),
    }
}

/// 2. Prompt tokens of the 200th turn with memory on / off.
async fn prompt_tokens() {
    println!(
        "prompt tokens per turn ({TOKEN_TURNS} turns, model gpt-4o; memory on: thresholds 1000/2000, budget 8000, cycle after each turn)"
    );
    let mut results = Vec::new();
    for enabled in [true, false] {
        let fake = FakeProvider::start(Script::new([Turn::text(REPLY)])).await;
        let base = format!("{}/v1", fake.server().base_url());
        let home = tempfile::tempdir().unwrap();
        let memory = if enabled {
            json!({
                "enabled": true,
                "messageTokenThreshold": 1000,
                "observationTokenThreshold": 2000,
                "maxMessageTokenBudget": 8000
            })
        } else {
            json!({"enabled": false})
        };
        let engine = engine(home.path(), settings(&base, "gpt-4o", memory)).await;
        let key = "long";
        let started = Instant::now();
        let mut first_observed = None;
        for i in 0..TOKEN_TURNS {
            turn(&engine, key, &user_message(i)).await;
            if let Some(m) = &engine.memory {
                let report = m.cycle.run(key).await;
                if first_observed.is_none() && report.observation.is_some() {
                    first_observed = Some(i + 1);
                }
            }
        }
        let elapsed = started.elapsed();
        let (observations, reflections) = (
            engine.store.list_observations(key).await.unwrap().len(),
            engine.store.list_reflections(key).await.unwrap().len(),
        );
        let budget = engine.history_budget;
        engine.shutdown().await;
        let chats = chat_requests(&fake);
        assert_eq!(chats.len(), TOKEN_TURNS, "one chat request per turn");
        let last = chats.last().unwrap();
        let (system, history, count) = request_tokens(last);
        let has_memory = system_text(last).contains("## Conversation Memory");
        println!(
            "  memory {:<3}: turn {TOKEN_TURNS} sends {} tokens (system {system}, history {history} in {count} messages; history budget {budget}){}; {} model calls, {observations} observations, {reflections} reflections{}; {:.1} s",
            if enabled { "on" } else { "off" },
            system + history,
            if has_memory { ", with the memory section" } else { "" },
            fake.generate_requests().len(),
            first_observed
                .map(|t| format!(", first observation after turn {t}"))
                .unwrap_or_default(),
            elapsed.as_secs_f64()
        );
        results.push(system + history);
    }
    let ratio = results[0] as f64 / results[1] as f64;
    println!(
        "prompt tokens at turn {TOKEN_TURNS}: memory on {} / off {} = ratio {ratio:.3} (goal <= 0.3) {}",
        results[0],
        results[1],
        verdict(ratio <= 0.3)
    );
}
