//! Agent runtime benchmarks (run: `cargo bench -p lango-core --bench agent`).
//!
//! Prints:
//! - next-turn preparation time for a 100k-message session divided by that for a 1k-message
//!   session, default budget (32000), ~30-token messages, medians of 100 runs each
//!   (goal ≤ 1.5). "Preparation" is what the runner does before calling the model:
//!   `SessionServiceAdapter::get` (fresh, loads the history tail), `events().all()`
//!   (truncation + conversion to events) and building the request contents. Also shown per
//!   phase, plus `ModelAdapter::build_params` (contents → provider messages) for reference;
//! - the engine's own overhead per streamed delta, p50/p99/max (goal p99 ≤ 1 ms): full turns
//!   through `Runner::run(…, stream = true)` over `ModelAdapter` + the real `OpenAiCompatible`
//!   client against the fake provider (500 deltas, no delays). A timing decorator around the
//!   provider stamps each `TextDelta` as the provider yields it; the consumer stamps each
//!   partial event as it receives it; the difference (matched in order) is the overhead.
//!
//! A plain binary (no criterion) so it builds fast and prints ratios, not just timings.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::agent::model_adapter::ModelAdapter;
use lango_core::agent::runner::{Agent, Runner};
use lango_core::agent::session::SessionServiceAdapter;
use lango_core::agent::{
    AgentError, Content, Event, GenerateConfig, Llm, LlmRequest, RequestContext, Session,
    SessionService,
};
use lango_core::provider::http::HttpSettings;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    BoxFuture, EventStream, GenerateParams, ModelInfo, Provider, ProviderConfig, ProviderError,
    StreamEvent,
};
use lango_core::store::Store;
use lango_testkit::{FakeProvider, Script, Turn};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use tokio_util::sync::CancellationToken;

const ROOT: &str = "lango-agent";
const PREP_RUNS: usize = 100;
const PREP_WARMUP: usize = 10;
const DELTAS: usize = 500;
const TURNS: usize = 40;
const TURN_WARMUP: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Fills a session with `rows` messages of ~30 tokens (token_count 30) in one SQL statement.
async fn seed(path: &std::path::Path, key: &str, rows: i64) {
    let opts = SqliteConnectOptions::from_str("sqlite:")
        .expect("options")
        .filename(path);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(opts)
        .await
        .expect("pool");
    let id: i64 = sqlx::query_scalar("SELECT id FROM sessions WHERE key = ?")
        .bind(key)
        .fetch_one(&pool)
        .await
        .expect("session");
    sqlx::query(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?2)
         INSERT INTO messages (session_id, seq, role, content, token_count, created_at)
         SELECT ?1, x, CASE x % 2 WHEN 1 THEN 'user' ELSE 'assistant' END,
                'Message ' || x || ' of our conversation about the project plan: what we decided '
                || 'so far, which parts are still open, and what we should do next week.',
                30, x FROM n",
    )
    .bind(id)
    .bind(rows)
    .execute(&pool)
    .await
    .expect("seed");
    sqlx::query("UPDATE sessions SET next_seq = ?1 + 1 WHERE id = ?2")
        .bind(rows)
        .bind(id)
        .execute(&pool)
        .await
        .expect("next_seq");
    pool.close().await;
}

/// One preparation, timed per phase: [get, events().all(), contents, build_params].
async fn prepare(
    service: &SessionServiceAdapter,
    model: &ModelAdapter,
    key: &str,
) -> [Duration; 4] {
    let t0 = Instant::now();
    let session = service.get(key).await.expect("get");
    let t1 = Instant::now();
    let events = session.events().all();
    let t2 = Instant::now();
    let contents: Vec<Content> = events.into_iter().filter_map(|e| e.content).collect();
    let request = LlmRequest {
        model: String::new(),
        contents,
        config: GenerateConfig::default(),
    };
    let t3 = Instant::now();
    let params = model.build_params(&request);
    let t4 = Instant::now();
    assert!(request.contents.len() > 100 && request.contents.len() < 1200);
    assert_eq!(params.messages.len(), request.contents.len());
    [t1 - t0, t2 - t1, t3 - t2, t4 - t3]
}

/// Stamps each `TextDelta` as the wrapped provider yields it.
#[derive(Debug)]
struct Timed {
    inner: Arc<dyn Provider>,
    yields: Arc<Mutex<Vec<Instant>>>,
}

impl Provider for Timed {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        let yields = Arc::clone(&self.yields);
        Box::pin(self.inner.generate(params, cancel).map(move |event| {
            if matches!(&event, StreamEvent::TextDelta(d) if !d.is_empty()) {
                yields.lock().unwrap().push(Instant::now());
            }
            event
        }))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
}

/// Times each `append_event`: when the runner calls it and how long its first poll (the
/// synchronous part, before the first await that waits) takes.
struct TimedSessions {
    inner: Arc<SessionServiceAdapter>,
    appends: Arc<Mutex<Vec<(Instant, Duration)>>>,
}

impl SessionService for TimedSessions {
    fn create(
        &self,
        key: &str,
        state: serde_json::Map<String, serde_json::Value>,
    ) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        self.inner.create(key, state)
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        self.inner.get(key)
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, AgentError>> {
        self.inner.list()
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, Result<(), AgentError>> {
        self.inner.delete(key)
    }

    fn append_event<'a>(
        &'a self,
        session: &'a dyn Session,
        event: Event,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        let entered = Instant::now();
        let mut inner = self.inner.append_event(session, event);
        let appends = Arc::clone(&self.appends);
        let mut first = true;
        Box::pin(futures_util::future::poll_fn(move |cx| {
            let started = Instant::now();
            let poll = inner.as_mut().poll(cx);
            if std::mem::take(&mut first) {
                appends.lock().unwrap().push((entered, started.elapsed()));
            }
            poll
        }))
    }
}

/// One streamed turn; returns its stamps.
async fn timed_turn(runner: &Runner, yields: &Mutex<Vec<Instant>>, key: &str) -> Sample {
    yields.lock().unwrap().clear();
    let mut arrivals = Vec::with_capacity(DELTAS);
    let mut stream = runner.run(
        RequestContext::for_session(key, ROOT),
        key,
        "Count for me.",
        true,
    );
    let mut complete = false;
    while let Some(item) = stream.next().await {
        let now = Instant::now();
        let event = item.expect("turn");
        if event.partial {
            arrivals.push(now);
        } else if event.turn_complete {
            complete = true;
        }
    }
    drop(stream);
    assert!(complete, "the turn did not complete");
    let yields = yields.lock().unwrap();
    assert_eq!(yields.len(), DELTAS, "provider deltas");
    assert_eq!(arrivals.len(), DELTAS, "partial events");
    Sample {
        yields: yields.clone(),
        arrivals,
    }
}

/// One turn's stamps: when the provider yielded each delta, when the consumer received it.
struct Sample {
    yields: Vec<Instant>,
    arrivals: Vec<Instant>,
}

impl Sample {
    fn overheads(&self) -> Vec<Duration> {
        self.yields
            .iter()
            .zip(&self.arrivals)
            .map(|(y, a)| a.saturating_duration_since(*y))
            .collect()
    }

    /// The deltas handed over per poll of the turn's task: delta i+1 belongs to the same
    /// burst as delta i when the provider yielded it before the consumer received delta i
    /// (consumer and driver share one task, so that means the same poll).
    fn bursts(&self) -> Vec<std::ops::Range<usize>> {
        let mut bursts = Vec::new();
        let mut start = 0;
        for i in 0..self.yields.len() {
            if i + 1 == self.yields.len() || self.yields[i + 1] >= self.arrivals[i] {
                bursts.push(start..i + 1);
                start = i + 1;
            }
        }
        bursts
    }
}

/// The same stream through `ModelAdapter` alone (no runner, no session), consumed directly.
async fn adapter_only(model: &ModelAdapter, yields: &Mutex<Vec<Instant>>) -> Sample {
    yields.lock().unwrap().clear();
    let request = LlmRequest {
        model: String::new(),
        contents: vec![Content::user_text("Count for me.")],
        config: GenerateConfig::default(),
    };
    let mut stream = model.generate_content(&RequestContext::default(), request, true);
    let mut arrivals = Vec::with_capacity(DELTAS);
    while let Some(item) = stream.next().await {
        let now = Instant::now();
        if item.expect("response").partial {
            arrivals.push(now);
        }
    }
    let yields = yields.lock().unwrap().clone();
    assert_eq!(arrivals.len(), DELTAS);
    Sample { yields, arrivals }
}

fn percentiles(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    (at(0.5), at(0.99), at(1.0))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.db");
    let store = Store::open(&path).await.expect("open");

    // The fake provider and the real client (used by both parts).
    let chunks: Vec<String> = (0..DELTAS).map(|i| format!(" t{i}")).collect();
    let fake = FakeProvider::start(Script::new([Turn::text(chunks)])).await;
    let http = HttpSettings {
        idle_timeout: Duration::from_secs(30),
        ..HttpSettings::default()
    };
    let config = ProviderConfig::new("bench", format!("{}/v1", fake.base_url()))
        .with_default_model("fake-model")
        .with_http(http);
    let client: Arc<dyn Provider> = Arc::new(OpenAiCompatible::new(config).expect("client"));

    // 1. Next-turn preparation: 100k vs 1k messages.
    store.create_session("small", "").await.expect("session");
    store.create_session("large", "").await.expect("session");
    seed(&path, "small", 1_000).await;
    seed(&path, "large", 100_000).await;
    let service = SessionServiceAdapter::new(store.clone(), ROOT);
    let model = ModelAdapter::new(Arc::clone(&client), "fake-model");
    for _ in 0..PREP_WARMUP {
        prepare(&service, &model, "small").await;
        prepare(&service, &model, "large").await;
    }
    let mut phases: [[Vec<Duration>; 4]; 2] = Default::default();
    let mut totals: [Vec<Duration>; 2] = Default::default();
    for i in 0..PREP_RUNS {
        for k in 0..2 {
            let which = (i + k) % 2;
            let t = prepare(&service, &model, ["small", "large"][which]).await;
            totals[which].push(t[0] + t[1] + t[2]);
            for (p, d) in t.into_iter().enumerate() {
                phases[which][p].push(d);
            }
        }
    }
    let [small, large] = totals.map(median);
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    println!(
        "agent bench: next-turn preparation (budget {}, ~30-token messages, medians of {PREP_RUNS})",
        service.token_budget()
    );
    println!(
        "preparation: 1k session {:.3} ms, 100k session {:.3} ms, ratio {ratio:.2} (goal <= 1.5) {}",
        ms(small),
        ms(large),
        if ratio <= 1.5 { "OK" } else { "ABOVE GOAL" }
    );
    let names = [
        "get (tail load)",
        "events().all()",
        "contents",
        "(build_params)",
    ];
    for (p, name) in names.iter().enumerate() {
        let s = median(phases[0][p].clone());
        let l = median(phases[1][p].clone());
        println!(
            "  {name:<18} 1k {:>8.3} ms  100k {:>8.3} ms  {:.2}x",
            ms(s),
            ms(l),
            l.as_secs_f64() / s.as_secs_f64()
        );
    }

    // 2. Engine overhead per streamed delta.
    let yields = Arc::new(Mutex::new(Vec::with_capacity(DELTAS)));
    let timed: Arc<dyn Provider> = Arc::new(Timed {
        inner: Arc::clone(&client),
        yields: Arc::clone(&yields),
    });
    let agent = Agent::new(ROOT, Arc::new(ModelAdapter::new(timed, "fake-model")));
    let runner = Runner::with_store_sessions(
        agent,
        Arc::new(SessionServiceAdapter::new(store.clone(), ROOT)),
    );
    for i in 0..TURN_WARMUP {
        timed_turn(&runner, &yields, &format!("warm-{i}")).await;
    }
    let mut samples = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        // A fresh session per turn, so each turn sends the same short history.
        samples.push(timed_turn(&runner, &yields, &format!("stream-{i}")).await);
    }
    let overheads: Vec<Duration> = samples.iter().flat_map(Sample::overheads).collect();
    let (p50, p99, max) = percentiles(overheads);
    println!(
        "streamed delta overhead (provider yield -> runner consumer, {TURNS} turns x {DELTAS} deltas): p50 {p50:.1} µs, p99 {p99:.1} µs, max {max:.1} µs (goal p99 <= 1000 µs) {}",
        if p99 <= 1000.0 { "OK" } else { "ABOVE GOAL" }
    );

    // Where the time goes: deltas handed over per poll of the turn's task (bursts); a delta
    // waits for the rest of its burst to be yielded (batching) and then for the hand-over.
    let (mut waits, mut tails, mut drains, mut sizes, mut spans) =
        (vec![], vec![], vec![], vec![], vec![]);
    for s in &samples {
        let bursts = s.bursts();
        for b in &bursts {
            let last = s.yields[b.end - 1];
            sizes.push(b.len());
            for i in b.clone() {
                waits.push(last - s.yields[i]);
                // The driver's work after the burst's last delta until the task yields,
                // then the consumer draining the channel up to this delta.
                tails.push(s.arrivals[b.start].saturating_duration_since(last));
                drains.push(s.arrivals[i] - s.arrivals[b.start]);
            }
        }
        spans.push(s.yields[DELTAS - 1] - s.yields[0]);
    }
    sizes.sort_unstable();
    let (w50, w99, _) = percentiles(waits);
    let (t50, t99, _) = percentiles(tails);
    let (r50, r99, _) = percentiles(drains);
    println!(
        "  bursts: {:.1} per turn, {} deltas median, {} max; provider yields all {DELTAS} deltas in {:.2} ms (median)",
        sizes.len() as f64 / TURNS as f64,
        sizes[sizes.len() / 2],
        sizes[sizes.len() - 1],
        ms(median(spans))
    );
    println!(
        "  per delta: waiting for the rest of its burst p50 {w50:.1} / p99 {w99:.1} µs; driver work after the burst until the task yields p50 {t50:.1} / p99 {t99:.1} µs; consumer draining the queue to it p50 {r50:.1} / p99 {r99:.1} µs"
    );
    // The final append, timed through a session-service decorator (separate turns).
    let appends = Arc::new(Mutex::new(Vec::new()));
    let agent = runner.root().clone();
    let timed_runner = Runner::new(
        agent,
        Arc::new(TimedSessions {
            inner: Arc::new(SessionServiceAdapter::new(store.clone(), ROOT)),
            appends: Arc::clone(&appends),
        }),
    );
    let (mut to_append, mut first_polls) = (Vec::new(), Vec::new());
    for i in 0..TURNS / 2 {
        appends.lock().unwrap().clear();
        let sample = timed_turn(&timed_runner, &yields, &format!("append-{i}")).await;
        let appends = appends.lock().unwrap();
        let &(entered, first_poll) = appends.last().expect("the final append");
        to_append.push(entered.saturating_duration_since(sample.yields[DELTAS - 1]));
        first_polls.push(first_poll);
    }
    println!(
        "  after the last delta: {:.1} µs until the runner calls append_event for the final reply, whose first poll blocks the task {:.1} µs (medians of {})",
        median(to_append).as_secs_f64() * 1e6,
        median(first_polls).as_secs_f64() * 1e6,
        TURNS / 2
    );
    // Synchronous work the driver does after the last delta before its first await: the
    // store counts the final reply's tokens when it appends it.
    let reply: String = (0..DELTAS).map(|i| format!(" t{i}")).collect();
    let counts: Vec<Duration> = (0..50)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(store.counter().count(std::hint::black_box(&reply)));
            started.elapsed()
        })
        .collect();
    println!(
        "  (token count of the final {}-char reply, done synchronously by append_message: {:.1} µs median)",
        reply.len(),
        median(counts).as_secs_f64() * 1e6
    );
    let mut direct = Vec::new();
    let timed_model = ModelAdapter::new(
        Arc::new(Timed {
            inner: Arc::clone(model.provider()),
            yields: Arc::clone(&yields),
        }),
        "fake-model",
    );
    for i in 0..TURN_WARMUP + TURNS {
        let sample = adapter_only(&timed_model, &yields).await;
        if i >= TURN_WARMUP {
            direct.extend(sample.overheads());
        }
    }
    let (d50, d99, dmax) = percentiles(direct);
    println!(
        "  ModelAdapter alone (no runner): p50 {d50:.1} µs, p99 {d99:.1} µs, max {dmax:.1} µs"
    );
    store.close().await;
}
