//! Provider streaming benchmarks (run: `cargo bench -p lango-core --bench provider`).
//!
//! One local OpenAI-style stream of 2,000 small deltas (no delays) from the fake provider
//! (`lango_testkit::fake`) on 127.0.0.1. Prints:
//! - time to first token (TTFT) through `OpenAiCompatible::generate` divided by that of a
//!   bare reqwest read of the same stream up to the first `data:` line with content,
//!   medians of 50 runs each (goal ≤ 1.05), plus a breakdown by layer (the provider's
//!   reqwest client, `http::send`, `http::drive` + the decoder) to show where a gap is;
//! - per-delta overhead: the whole stream through the provider minus a bare reqwest read of
//!   all its bytes, divided by the number of deltas (µs/delta).
//!
//! A plain binary (no criterion) so it builds fast and prints ratios, not just timings.
//! The variants run round-robin with a rotating start so drift affects all alike.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::provider::http::{self, Decoder, HttpSettings};
use lango_core::provider::openai::{ChatCompletionsDecoder, OpenAiCompatible};
use lango_core::provider::{
    BoxFuture, EventStream, GenerateParams, Message, Provider, ProviderConfig, StreamEvent,
    USER_AGENT,
};
use lango_testkit::{FakeProvider, Script, Turn};
use tokio_util::sync::CancellationToken;

const DELTAS: usize = 2_000;
const TTFT_RUNS: usize = 50;
const FULL_RUNS: usize = 30;
const WARMUP: usize = 5;

/// The body the bare readers post (the fake ignores it apart from the model name).
const BODY: &str = r#"{"model":"fake-model","messages":[{"role":"user","content":"Count for me."}],"stream":true,"stream_options":{"include_usage":true}}"#;

struct Bench {
    url: String,
    http: HttpSettings,
    provider: OpenAiCompatible,
    /// A plain reqwest client (only the User-Agent set).
    plain: reqwest::Client,
    /// The provider's own client settings (`http::client`).
    shared: reqwest::Client,
}

/// The TTFT variants, from the bare read to the full provider.
const VARIANTS: [&str; 5] = [
    "bare reqwest",
    "bare, provider's reqwest client",
    "+ http::send (retry wrapper)",
    "+ http::drive + SSE/chunk decoder",
    "OpenAiCompatible::generate",
];

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

impl Bench {
    fn request(&self, client: &reqwest::Client) -> reqwest::RequestBuilder {
        client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(BODY)
    }

    /// `http::drive` with the real decoder over a hand-built request (no body building).
    fn driven(&self) -> EventStream {
        let (client, url, http) = (self.shared.clone(), self.url.clone(), self.http.clone());
        let cancel = CancellationToken::new();
        let send_cancel = cancel.clone();
        let response: BoxFuture<'static, _> = Box::pin(async move {
            let make = || {
                client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "text/event-stream")
                    .body(BODY)
            };
            http::send(make, &http, &send_cancel).await
        });
        http::drive(
            response,
            ChatCompletionsDecoder::new(),
            self.http.idle_timeout,
            cancel,
        )
    }

    fn generate(&self) -> EventStream {
        let params = GenerateParams {
            messages: vec![Message::user("Count for me.")],
            ..GenerateParams::default()
        };
        self.provider.generate(params, CancellationToken::new())
    }

    /// TTFT of variant `which` (an index into [`VARIANTS`]).
    async fn ttft(&self, which: usize) -> Duration {
        let started = Instant::now();
        match which {
            0 => first_content_line(self.request(&self.plain).send().await.expect("send")).await,
            1 => first_content_line(self.request(&self.shared).send().await.expect("send")).await,
            2 => {
                let make = || self.request(&self.shared);
                let response = http::send(make, &self.http, &CancellationToken::new())
                    .await
                    .expect("send");
                first_content_line(response).await
            }
            3 => first_delta(self.driven()).await,
            _ => first_delta(self.generate()).await,
        }
        started.elapsed()
    }
}

/// Reads until a complete `data:` line with a content delta has arrived.
async fn first_content_line(response: reqwest::Response) {
    assert!(response.status().is_success());
    let mut body = response.bytes_stream();
    let mut buf: Vec<u8> = Vec::new();
    let mut scanned = 0;
    while let Some(chunk) = body.next().await {
        buf.extend_from_slice(&chunk.expect("read"));
        while let Some(end) = buf[scanned..].iter().position(|&b| b == b'\n') {
            let line = &buf[scanned..scanned + end];
            scanned += end + 1;
            if line.starts_with(b"data: ") && contains(line, b"\"delta\":{\"content\":\"") {
                return;
            }
        }
    }
    panic!("no content line");
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Polls until the first text delta (then drops the stream, closing the connection).
async fn first_delta(mut stream: EventStream) {
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta(_) => return,
            StreamEvent::Error(e) => panic!("provider error: {e}"),
            _ => {}
        }
    }
    panic!("the stream ended without text");
}

/// The whole stream through the provider; checks every delta arrived.
async fn provider_full(bench: &Bench) -> Duration {
    let started = Instant::now();
    let mut stream = bench.generate();
    let mut deltas = 0;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta(_) => deltas += 1,
            StreamEvent::Error(e) => panic!("provider error: {e}"),
            _ => {}
        }
    }
    let elapsed = started.elapsed();
    assert_eq!(deltas, DELTAS, "the provider yielded {deltas} deltas");
    elapsed
}

/// All bytes of the same stream, read bare; returns (time, bytes).
async fn bare_full(bench: &Bench) -> (Duration, usize) {
    let started = Instant::now();
    let response = bench.request(&bench.plain).send().await.expect("send");
    let mut body = response.bytes_stream();
    let mut total = 0;
    while let Some(chunk) = body.next().await {
        total += chunk.expect("read").len();
    }
    (started.elapsed(), total)
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
    let chunks: Vec<String> = (0..DELTAS).map(|i| format!(" t{i}")).collect();
    let fake = FakeProvider::start(Script::new([Turn::text(chunks)])).await;
    let base = format!("{}/v1", fake.base_url());
    let http = HttpSettings {
        idle_timeout: Duration::from_secs(30),
        ..HttpSettings::default()
    };
    let config = ProviderConfig::new("bench", base.clone())
        .with_default_model("fake-model")
        .with_http(http.clone());
    let bench = Bench {
        url: format!("{base}/chat/completions"),
        provider: OpenAiCompatible::new(config).expect("client"),
        plain: reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .build()
            .expect("reqwest client"),
        shared: http::client(&http).expect("the provider's client"),
        http,
    };

    for _ in 0..WARMUP {
        for which in 0..VARIANTS.len() {
            bench.ttft(which).await;
        }
        provider_full(&bench).await;
        bare_full(&bench).await;
    }

    // (a) time to first token
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); VARIANTS.len()];
    for i in 0..TTFT_RUNS {
        for k in 0..VARIANTS.len() {
            let which = (i + k) % VARIANTS.len();
            samples[which].push(bench.ttft(which).await);
        }
    }
    let medians: Vec<Duration> = samples.into_iter().map(median).collect();
    let (bare, provider) = (medians[0], medians[VARIANTS.len() - 1]);
    let ratio = provider.as_secs_f64() / bare.as_secs_f64();
    println!("provider bench: one local OpenAI-style stream of {DELTAS} deltas (fake provider on 127.0.0.1)");
    println!(
        "time to first token: provider {:.1} µs, bare reqwest {:.1} µs (medians of {TTFT_RUNS}) -> ratio {ratio:.3} (goal <= 1.05) {}",
        us(provider),
        us(bare),
        if ratio <= 1.05 { "OK" } else { "ABOVE GOAL" }
    );
    for (name, m) in VARIANTS.iter().zip(&medians) {
        println!(
            "  {name:<36} {:>8.1} µs  {:.3}x",
            us(*m),
            m.as_secs_f64() / bare.as_secs_f64()
        );
    }

    // (b) per-delta overhead
    let (mut p_full, mut b_full) = (Vec::new(), Vec::new());
    let mut bytes = 0;
    for i in 0..FULL_RUNS {
        if i % 2 == 0 {
            p_full.push(provider_full(&bench).await);
        }
        let (t, n) = bare_full(&bench).await;
        b_full.push(t);
        bytes = n;
        if i % 2 == 1 {
            p_full.push(provider_full(&bench).await);
        }
    }
    let (p, b) = (median(p_full), median(b_full));
    let per_delta = (p.as_secs_f64() - b.as_secs_f64()) / DELTAS as f64 * 1e6;
    println!(
        "whole stream ({bytes} bytes): provider {:.2} ms, bare reqwest {:.2} ms (medians of {FULL_RUNS}) -> parsing overhead {per_delta:.2} µs/delta",
        p.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
    );

    // Diagnostic: the decoder alone on the same bytes, fed in 8 KiB reads (no I/O, no drive).
    let body = whole_body(&bench).await;
    let mut decode = Vec::new();
    for _ in 0..FULL_RUNS {
        let started = Instant::now();
        let mut decoder = ChatCompletionsDecoder::new();
        let mut events = 0;
        for read in body.chunks(8 * 1024) {
            events += decoder.feed(read).len();
        }
        events += decoder.finish().len();
        decode.push(started.elapsed());
        assert!(events > DELTAS);
    }
    let mut first = Vec::new();
    for _ in 0..FULL_RUNS {
        let started = Instant::now();
        let events = ChatCompletionsDecoder::new().feed(&body[..8 * 1024]).len();
        first.push(started.elapsed());
        assert!(events > 1);
    }
    println!(
        "  (decoder alone: {:.2} µs/delta; one 8 KiB read ({} deltas) decodes in {:.1} µs before its first event is yielded)",
        us(median(decode)) / DELTAS as f64,
        8 * 1024 * DELTAS / body.len(),
        us(median(first))
    );
}

async fn whole_body(bench: &Bench) -> Vec<u8> {
    let response = bench.request(&bench.plain).send().await.expect("send");
    response.bytes().await.expect("body").to_vec()
}
