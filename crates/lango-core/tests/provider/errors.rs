//! Provider error behaviour over real HTTP: the real wire clients against the scriptable
//! fake provider (`lango_testkit::fake`) on 127.0.0.1. Status classification, retries before
//! the first byte (and none after), mid-stream resets and error events, idle timeouts,
//! cancellation and dropping (the server must see the connection close), connection
//! refused, the User-Agent, and that the API key never shows in an error.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::provider::anthropic::Anthropic;
use lango_core::provider::gemini::Gemini;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::ollama::Ollama;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    EventStream, GenerateParams, Message, Provider, ProviderConfig, ProviderError, StreamEvent,
};
use lango_core::secrets::ApiKey;
use lango_testkit::{Action, FakeProvider, Reply, Script, TestServer, Turn};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-test-SECRET-4f9a2c7e1b";
/// Longest any single test waits for a stream to finish.
const TEST_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

const ALL: [Kind; 4] = [Kind::OpenAi, Kind::Anthropic, Kind::Gemini, Kind::Ollama];

fn settings() -> HttpSettings {
    HttpSettings {
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(3),
        max_retries: 2,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
        ..HttpSettings::default()
    }
}

/// A client of `kind` for a server at `root` (`http://127.0.0.1:N`), with the URL layout
/// the real services use.
fn client_at(kind: Kind, root: &str, http: HttpSettings) -> Box<dyn Provider> {
    let base = match kind {
        Kind::OpenAi => format!("{root}/v1"),
        Kind::Gemini => format!("{root}/v1beta"),
        Kind::Anthropic | Kind::Ollama => root.to_string(),
    };
    let config = ProviderConfig::new(format!("{kind:?}").to_lowercase(), base)
        .with_key(ApiKey::new(KEY))
        .with_default_model("fake-model")
        .with_http(http);
    match kind {
        Kind::OpenAi => Box::new(OpenAiCompatible::new(config).expect("openai client")),
        Kind::Anthropic => Box::new(Anthropic::new(config).expect("anthropic client")),
        Kind::Gemini => Box::new(Gemini::new(config).expect("gemini client")),
        Kind::Ollama => Box::new(Ollama::new(config).expect("ollama client")),
    }
}

fn client(kind: Kind, fake: &FakeProvider, http: HttpSettings) -> Box<dyn Provider> {
    client_at(kind, &fake.base_url(), http)
}

fn params() -> GenerateParams {
    GenerateParams {
        messages: vec![Message::user("Say hello.")],
        ..GenerateParams::default()
    }
}

async fn collect(mut stream: EventStream) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    let all = async {
        while let Some(e) = stream.next().await {
            events.push(e);
        }
    };
    tokio::time::timeout(TEST_TIMEOUT, all)
        .await
        .expect("the stream did not end in time");
    events
}

async fn run(kind: Kind, fake: &FakeProvider, http: HttpSettings) -> Vec<StreamEvent> {
    collect(client(kind, fake, http).generate(params(), CancellationToken::new())).await
}

fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The stream's terminal error (it must be the last event, and the only error).
fn final_error(kind: Kind, events: &[StreamEvent]) -> ProviderError {
    let errors = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Error(_)))
        .count();
    assert_eq!(
        errors, 1,
        "{kind:?}: exactly one error expected: {events:?}"
    );
    match events.last() {
        Some(StreamEvent::Error(e)) => e.clone(),
        other => panic!(
            "{kind:?}: the stream should end with an error, ended with {other:?}: {events:?}"
        ),
    }
}

fn assert_no_key(kind: Kind, error: &ProviderError) {
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains(KEY) && !shown.contains("SECRET"),
        "{kind:?}: the API key leaked into an error: {shown}"
    );
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Statuses

#[tokio::test]
async fn http_401_is_unauthorized_with_the_providers_message_and_no_retry() {
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::status(
            401,
            "Invalid API key (fake-401)",
        )]))
        .await;
        let events = run(kind, &fake, settings()).await;
        match final_error(kind, &events) {
            ProviderError::Unauthorized { message } => assert!(
                message.contains("Invalid API key (fake-401)"),
                "{kind:?}: {message}"
            ),
            other => panic!("{kind:?}: expected Unauthorized, got {other:?}"),
        }
        assert_eq!(
            fake.generate_requests().len(),
            1,
            "{kind:?}: a 401 must not be retried"
        );
    }
}

#[tokio::test]
async fn http_404_is_not_found_with_the_providers_message() {
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::status(
            404,
            "The model `nope` does not exist",
        )]))
        .await;
        let events = run(kind, &fake, settings()).await;
        match final_error(kind, &events) {
            ProviderError::NotFound { message } => assert!(
                message.contains("The model `nope` does not exist"),
                "{kind:?}: {message}"
            ),
            other => panic!("{kind:?}: expected NotFound, got {other:?}"),
        }
        assert_eq!(
            fake.generate_requests().len(),
            1,
            "{kind:?}: a 404 must not be retried"
        );
    }
}

#[tokio::test]
async fn http_400_is_bad_request_carrying_the_providers_own_message() {
    let said = "messages.1.content: Input should be a valid string (fake-400)";
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::status(400, said)])).await;
        let events = run(kind, &fake, settings()).await;
        match final_error(kind, &events) {
            ProviderError::BadRequest { message } => {
                assert!(message.contains(said), "{kind:?}: {message}")
            }
            other => panic!("{kind:?}: expected BadRequest, got {other:?}"),
        }
        assert_eq!(
            fake.generate_requests().len(),
            1,
            "{kind:?}: a 400 must not be retried"
        );
    }
}

#[tokio::test]
async fn http_429_with_retry_after_waits_that_long_then_streams_the_text() {
    // Backoffs are 10-50 ms; only honouring Retry-After (0.4 s) makes the retry wait longer.
    let http = HttpSettings {
        max_backoff: Duration::from_secs(5),
        ..settings()
    };
    for kind in ALL {
        let script = Script::new([
            Turn::Status {
                code: 429,
                body: "Rate limit reached (fake)".into(),
                retry_after: Some(0.4),
            },
            Turn::text(["Hello", " after", " waiting"]),
        ]);
        let fake = FakeProvider::start(script).await;
        let started = Instant::now();
        let events = run(kind, &fake, http.clone()).await;
        let elapsed = started.elapsed();
        assert_eq!(
            text_of(&events),
            "Hello after waiting",
            "{kind:?}: {events:?}"
        );
        assert!(
            matches!(events.last(), Some(StreamEvent::Done { .. })),
            "{kind:?}: {events:?}"
        );
        assert_eq!(fake.generate_requests().len(), 2, "{kind:?}");
        assert!(
            elapsed >= Duration::from_millis(400),
            "{kind:?}: retried after {elapsed:?}, before Retry-After"
        );
    }
}

#[tokio::test]
async fn http_429_every_time_is_rate_limited_after_the_retries() {
    let fake = FakeProvider::start(Script::new([Turn::status(429, "slow down (fake)")])).await;
    let events = run(Kind::OpenAi, &fake, settings()).await;
    match final_error(Kind::OpenAi, &events) {
        ProviderError::RateLimited { message, .. } => {
            assert!(message.contains("slow down (fake)"), "{message}")
        }
        other => panic!("expected RateLimited, got {other:?}"),
    }
    assert_eq!(fake.generate_requests().len(), 3);
}

#[tokio::test]
async fn http_500_every_time_is_retried_max_retries_times_then_a_server_error() {
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::status(
            500,
            "The server had an error (fake-500)",
        )]))
        .await;
        let http = settings();
        let events = run(kind, &fake, http.clone()).await;
        match final_error(kind, &events) {
            ProviderError::Server { status, message } => {
                assert_eq!(status, 500, "{kind:?}");
                assert!(message.contains("fake-500"), "{kind:?}: {message}");
            }
            other => panic!("{kind:?}: expected Server, got {other:?}"),
        }
        assert_eq!(
            fake.generate_requests().len(),
            http.max_retries as usize + 1,
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn http_503_then_success_streams_the_text() {
    let fake = FakeProvider::start(Script::new([
        Turn::status(503, "overloaded"),
        Turn::text(["fine"]),
    ]))
    .await;
    let events = run(Kind::OpenAi, &fake, settings()).await;
    assert_eq!(text_of(&events), "fine");
    assert_eq!(fake.generate_requests().len(), 2);
}

// ---------------------------------------------------------------------------------------
// After the first byte

#[tokio::test]
async fn connection_reset_mid_stream_yields_the_text_then_interrupted_without_retry() {
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([
            Turn::reset_after(["Hel", "lo wor"]),
            Turn::text(["retried!"]),
        ]))
        .await;
        let events = run(kind, &fake, settings()).await;
        assert_eq!(text_of(&events), "Hello wor", "{kind:?}: {events:?}");
        assert!(
            matches!(
                final_error(kind, &events),
                ProviderError::Interrupted { .. }
            ),
            "{kind:?}: {events:?}"
        );
        assert_eq!(
            fake.generate_requests().len(),
            1,
            "{kind:?}: no retry once the stream started"
        );
    }
}

#[tokio::test]
async fn error_event_in_an_http_200_stream_is_interrupted_with_the_providers_message() {
    for kind in ALL {
        let script = Script::new([Turn::ErrorEvent {
            message: "the model crashed (fake)".into(),
            chunks: vec!["Part".into()],
        }]);
        let fake = FakeProvider::start(script).await;
        let events = run(kind, &fake, settings()).await;
        assert_eq!(text_of(&events), "Part", "{kind:?}: {events:?}");
        match final_error(kind, &events) {
            ProviderError::Interrupted { message } => assert!(
                message.contains("the model crashed (fake)"),
                "{kind:?}: {message}"
            ),
            other => panic!("{kind:?}: expected Interrupted, got {other:?}"),
        }
        assert_eq!(fake.generate_requests().len(), 1, "{kind:?}");
    }
}

#[tokio::test]
async fn stall_mid_stream_times_out_after_the_idle_timeout() {
    let idle = Duration::from_millis(300);
    for kind in ALL {
        let fake =
            FakeProvider::start(Script::new([Turn::stall(["Before", " the stall"], 10_000)])).await;
        let started = Instant::now();
        let events = run(
            kind,
            &fake,
            HttpSettings {
                idle_timeout: idle,
                ..settings()
            },
        )
        .await;
        let elapsed = started.elapsed();
        assert_eq!(text_of(&events), "Before the stall", "{kind:?}: {events:?}");
        assert!(
            matches!(final_error(kind, &events), ProviderError::Timeout { .. }),
            "{kind:?}: {events:?}"
        );
        assert!(
            elapsed >= idle && elapsed < Duration::from_secs(3),
            "{kind:?}: timed out after {elapsed:?}"
        );
        assert_eq!(fake.generate_requests().len(), 1, "{kind:?}");
        // Giving up closes the connection.
        wait_for("the server to see the stalled connection close", || {
            fake.closed_early() == 1
        })
        .await;
    }
}

#[tokio::test]
async fn no_response_headers_times_out_after_the_idle_timeout() {
    let server = TestServer::start(|_, _| Reply {
        actions: vec![Action::Stall(Duration::from_secs(10))],
    })
    .await;
    let idle = Duration::from_millis(300);
    let started = Instant::now();
    let provider = client_at(
        Kind::OpenAi,
        &server.base_url(),
        HttpSettings {
            idle_timeout: idle,
            ..settings()
        },
    );
    let events = collect(provider.generate(params(), CancellationToken::new())).await;
    let elapsed = started.elapsed();
    assert!(
        matches!(
            final_error(Kind::OpenAi, &events),
            ProviderError::Timeout { .. }
        ),
        "{events:?}"
    );
    assert!(
        elapsed >= idle && elapsed < Duration::from_secs(3),
        "timed out after {elapsed:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Cancellation and dropping

#[tokio::test]
async fn cancelling_mid_stream_yields_cancelled_ends_and_closes_the_connection() {
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::slow_text(
            ["first", " second", " third"],
            5_000,
        )]))
        .await;
        let cancel = CancellationToken::new();
        let mut stream = client(kind, &fake, settings()).generate(params(), cancel.clone());
        let first = tokio::time::timeout(TEST_TIMEOUT, async {
            loop {
                match stream.next().await {
                    Some(StreamEvent::TextDelta(t)) => break t,
                    Some(StreamEvent::Error(e)) => panic!("{kind:?}: {e:?}"),
                    Some(_) => continue,
                    None => panic!("{kind:?}: ended before the first delta"),
                }
            }
        })
        .await
        .expect("first delta");
        assert_eq!(first, "first", "{kind:?}");
        let started = Instant::now();
        cancel.cancel();
        let rest = collect_while_alive(&mut stream).await;
        assert_eq!(
            rest,
            vec![StreamEvent::Error(ProviderError::Cancelled)],
            "{kind:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{kind:?}: cancelling took {:?}",
            started.elapsed()
        );
        // The stream is still alive here: ending it must already have closed the connection.
        wait_for("the server to see the cancelled connection close", || {
            fake.closed_early() == 1
        })
        .await;
        drop(stream);
        assert_eq!(fake.generate_requests().len(), 1, "{kind:?}");
    }
}

/// Reads the rest of a stream without dropping it.
async fn collect_while_alive(stream: &mut EventStream) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    tokio::time::timeout(TEST_TIMEOUT, async {
        while let Some(e) = stream.next().await {
            events.push(e);
        }
    })
    .await
    .expect("the stream did not end in time");
    events
}

#[tokio::test]
async fn dropping_the_stream_mid_stream_closes_the_connection() {
    for kind in ALL {
        let fake =
            FakeProvider::start(Script::new([Turn::slow_text(["first", " second"], 5_000)])).await;
        let mut stream =
            client(kind, &fake, settings()).generate(params(), CancellationToken::new());
        let got = tokio::time::timeout(TEST_TIMEOUT, async {
            loop {
                if let Some(StreamEvent::TextDelta(t)) = stream.next().await {
                    break t;
                }
            }
        })
        .await
        .expect("first delta");
        assert_eq!(got, "first");
        assert_eq!(fake.closed_early(), 0, "{kind:?}");
        drop(stream);
        wait_for("the server to see the dropped connection close", || {
            fake.closed_early() == 1
        })
        .await;
    }
}

#[tokio::test]
async fn cancelling_during_the_retry_backoff_stops_retrying() {
    let http = HttpSettings {
        initial_backoff: Duration::from_secs(5),
        max_backoff: Duration::from_secs(5),
        ..settings()
    };
    let fake = FakeProvider::start(Script::new([Turn::status(503, "busy")])).await;
    let cancel = CancellationToken::new();
    let stream = client(Kind::OpenAi, &fake, http).generate(params(), cancel.clone());
    let canceller = tokio::spawn({
        let cancel = cancel.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            cancel.cancel();
        }
    });
    let started = Instant::now();
    let events = collect(stream).await;
    canceller.await.unwrap();
    assert_eq!(events, vec![StreamEvent::Error(ProviderError::Cancelled)]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "cancel waited for the backoff: {:?}",
        started.elapsed()
    );
    assert_eq!(fake.generate_requests().len(), 1);
}

// ---------------------------------------------------------------------------------------
// Connecting, headers, secrets

/// A port on 127.0.0.1 that nothing listens on.
async fn dead_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    port
}

#[tokio::test]
async fn connection_refused_is_a_network_error_after_the_retries() {
    // Two retries with backoffs of at least 25 ms and 50 ms: a client that gave up at once
    // would be back within a few milliseconds.
    let http = HttpSettings {
        initial_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(200),
        ..settings()
    };
    for kind in ALL {
        let root = format!("http://127.0.0.1:{}", dead_port().await);
        let started = Instant::now();
        let events = collect(
            client_at(kind, &root, http.clone()).generate(params(), CancellationToken::new()),
        )
        .await;
        let elapsed = started.elapsed();
        let error = final_error(kind, &events);
        assert!(
            matches!(error, ProviderError::Network { .. }),
            "{kind:?}: {error:?}"
        );
        assert!(
            elapsed >= Duration::from_millis(70),
            "{kind:?}: gave up after {elapsed:?}, without retrying"
        );
        assert_no_key(kind, &error);
    }
}

#[tokio::test]
async fn requests_carry_the_lango_user_agent() {
    let expected = format!("lango/{}", env!("CARGO_PKG_VERSION"));
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::text(["hi"])])).await;
        let events = run(kind, &fake, settings()).await;
        assert_eq!(text_of(&events), "hi", "{kind:?}: {events:?}");
        let provider = client(kind, &fake, settings());
        let models = tokio::time::timeout(TEST_TIMEOUT, provider.list_models())
            .await
            .expect("list_models in time");
        assert_eq!(
            models.map(|m| m.into_iter().map(|m| m.id).collect::<Vec<_>>()),
            Ok(vec!["fake-model".to_string()]),
            "{kind:?}"
        );
        let requests = fake.requests();
        assert_eq!(requests.len(), 2, "{kind:?}");
        for r in requests {
            assert_eq!(
                r.header("user-agent"),
                Some(expected.as_str()),
                "{kind:?}: {} {}",
                r.method,
                r.path
            );
        }
    }
}

#[tokio::test]
async fn the_api_key_is_sent_but_never_appears_in_errors_or_their_debug_output() {
    for kind in ALL {
        let script = Script::new([
            Turn::status(401, "denied"),
            Turn::status(400, "bad"),
            Turn::status(500, "oops"),
            Turn::status(500, "oops"),
            Turn::status(500, "oops"),
            Turn::reset_after(["x"]),
            Turn::error_event("boom"),
            Turn::stall(["y"], 5_000),
        ]);
        let fake = FakeProvider::start(script).await;
        let http = HttpSettings {
            idle_timeout: Duration::from_millis(300),
            ..settings()
        };
        let provider = client(kind, &fake, http);
        assert!(
            !format!("{provider:?}").contains(KEY),
            "{kind:?}: the key leaked into the client's Debug output"
        );
        for _ in 0..6 {
            let events = collect(provider.generate(params(), CancellationToken::new())).await;
            assert_no_key(kind, &final_error(kind, &events));
        }
        // The key did go out, in a header and not in the URL.
        let request = &fake.generate_requests()[0];
        assert!(
            !request.path.contains(KEY),
            "{kind:?}: the key is in the URL: {}",
            request.path
        );
        let sent = request.headers.iter().any(|(_, v)| v.contains(KEY));
        assert!(
            sent,
            "{kind:?}: the key was not sent: {:?}",
            request.headers
        );
    }
}

// `http::send` scrubs the request's own credentials from every error it builds.
#[tokio::test]
async fn a_provider_error_body_that_echoes_the_key_does_not_leak_it() {
    // Some servers quote the key they rejected; what the user sees must not contain it.
    for kind in ALL {
        let fake = FakeProvider::start(Script::new([Turn::status(
            401,
            format!("Incorrect API key provided: {KEY}"),
        )]))
        .await;
        let events = run(kind, &fake, settings()).await;
        let error = final_error(kind, &events);
        assert!(
            matches!(error, ProviderError::Unauthorized { .. }),
            "{kind:?}: {error:?}"
        );
        assert_no_key(kind, &error);
    }
}

// ---------------------------------------------------------------------------------------
// The fake's streams are understood by the real clients (so the tests above test errors,
// not format mismatches).

#[tokio::test]
async fn fake_streams_decode_to_text_tool_calls_and_usage_in_every_format() {
    for kind in ALL {
        let script = Script::new([
            Turn::text(["Hello", ", ", "world"]),
            Turn::tool_call(
                "call_1",
                "read_file",
                r#"{"path":"/tmp/notes.txt","max_lines":20}"#,
            ),
        ]);
        let fake = FakeProvider::start(script).await;
        let events = run(kind, &fake, settings()).await;
        assert_eq!(text_of(&events), "Hello, world", "{kind:?}: {events:?}");
        assert!(
            matches!(
                events.last(),
                Some(StreamEvent::Done { usage: Some(_), .. })
            ),
            "{kind:?}: {events:?}"
        );

        let events = run(kind, &fake, settings()).await;
        assert!(
            matches!(events.last(), Some(StreamEvent::Done { .. })),
            "{kind:?}: {events:?}"
        );
        let calls: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCall(c) => Some(c.clone()),
                _ => None,
            })
            .collect();
        assert!(!calls.is_empty(), "{kind:?}: no tool call: {events:?}");
        assert!(
            calls.iter().any(|c| c.name == "read_file"),
            "{kind:?}: {calls:?}"
        );
        let arguments: String = calls.iter().map(|c| c.arguments.as_str()).collect();
        let parsed: serde_json::Value = serde_json::from_str(&arguments)
            .unwrap_or_else(|e| panic!("{kind:?}: {arguments:?}: {e}"));
        assert_eq!(
            parsed,
            serde_json::json!({"path": "/tmp/notes.txt", "max_lines": 20}),
            "{kind:?}"
        );
    }
}
