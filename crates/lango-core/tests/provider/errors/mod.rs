//! Provider error behaviour over real HTTP: the real wire clients against the scriptable
//! fake provider (`lango_testkit::fake`) on 127.0.0.1. Status classification, retries before
//! the first byte (and none after), mid-stream resets and error events, idle timeouts,
//! cancellation and dropping (the server must see the connection close), connection
//! refused, the User-Agent, and that the API key never shows in an error.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::{
    EventStream, GenerateParams, Message, Provider, ProviderConfig, ProviderError, StreamEvent,
};
use lango_core::secrets::ApiKey;
use lango_testkit::{Action, FakeProvider, Reply, Script, TestServer, Turn};
use tokio_util::sync::CancellationToken;

mod cancel;
mod connect;
mod midstream;
mod status;

use super::harness::{Wire as Kind, WIRES as ALL};

const KEY: &str = "sk-test-SECRET-4f9a2c7e1b";
/// Longest any single test waits for a stream to finish.
const TEST_TIMEOUT: Duration = Duration::from_secs(15);

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
/// the real services use and the key [`KEY`].
fn client_at(kind: Kind, root: &str, http: HttpSettings) -> Box<dyn Provider> {
    kind.build(
        ProviderConfig::new(format!("{kind:?}").to_lowercase(), kind.base(root))
            .with_key(ApiKey::new(KEY))
            .with_default_model("fake-model")
            .with_http(http),
    )
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
