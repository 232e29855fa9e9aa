//! One table of stream faults run against every wire format (OpenAI-compatible, Anthropic,
//! Gemini, Ollama): the real clients over real HTTP to the scriptable fake provider. Each
//! case names what a user must be able to trust — a reply is complete only when the provider
//! said so, an output-limit stop is marked, and no stream grows without bound.

use std::time::Duration;

use futures_util::StreamExt;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::limit::{BYTES_PER_TOKEN, TOKEN_SLACK};
use lango_core::provider::{GenerateParams, Message, ProviderError, StopReason, StreamEvent};
use lango_testkit::{Action, FakeProvider, Reply, Script, TestServer, Turn};
use tokio_util::sync::CancellationToken;

use super::harness::{Wire, WIRES};

fn http(max_reply_bytes: u64) -> HttpSettings {
    HttpSettings {
        max_retries: 0,
        idle_timeout: Duration::from_secs(10),
        max_reply_bytes,
        ..HttpSettings::default()
    }
}

/// What one stream amounted to: its text and its terminal event (checked to be the only
/// one, and last).
struct Outcome {
    text: String,
    terminal: StreamEvent,
}

async fn run(wire: Wire, turn: Turn, http: HttpSettings, max_tokens: Option<u32>) -> Outcome {
    let fake = FakeProvider::start(Script::new([turn])).await;
    let outcome = run_on(wire, &fake, http, max_tokens).await;
    drop(fake);
    outcome
}

async fn run_on(
    wire: Wire,
    fake: &FakeProvider,
    http: HttpSettings,
    max_tokens: Option<u32>,
) -> Outcome {
    let params = GenerateParams {
        messages: vec![Message::user("Say something.")],
        max_tokens,
        ..GenerateParams::default()
    };
    let stream = wire
        .client(&fake.base_url(), http)
        .generate(params, CancellationToken::new());
    let events: Vec<StreamEvent> = tokio::time::timeout(Duration::from_secs(30), stream.collect())
        .await
        .unwrap_or_else(|_| panic!("{wire:?}: the stream did not end by itself"));
    let terminals = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error(_)))
        .count();
    assert_eq!(terminals, 1, "{wire:?}: one terminal event: {events:?}");
    let terminal = events.last().cloned().expect("events");
    assert!(
        matches!(terminal, StreamEvent::Done { .. } | StreamEvent::Error(_)),
        "{wire:?}: terminal last"
    );
    let text = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    Outcome { text, terminal }
}

fn stop_of(wire: Wire, terminal: &StreamEvent) -> StopReason {
    match terminal {
        StreamEvent::Done { stop, .. } => *stop,
        other => panic!("{wire:?}: expected Done, got {other:?}"),
    }
}

fn interruption(wire: Wire, terminal: &StreamEvent) -> String {
    match terminal {
        StreamEvent::Error(ProviderError::Interrupted { message }) => message.clone(),
        other => panic!("{wire:?}: expected Interrupted, got {other:?}"),
    }
}

#[tokio::test]
async fn a_reply_with_its_end_marker_is_complete() {
    for wire in WIRES {
        let o = run(wire, Turn::text(["Hello", " there."]), http(1 << 20), None).await;
        assert_eq!(o.text, "Hello there.", "{wire:?}");
        assert_eq!(stop_of(wire, &o.terminal), StopReason::Finished, "{wire:?}");
    }
}

#[tokio::test]
async fn a_stream_cut_before_its_end_marker_is_interrupted_not_complete() {
    for wire in WIRES {
        let o = run(wire, Turn::cut(["The first ", "half"]), http(1 << 20), None).await;
        assert_eq!(o.text, "The first half", "{wire:?}: what arrived is kept");
        assert_eq!(
            o.terminal,
            StreamEvent::Error(ProviderError::cut_off()),
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn a_stop_at_the_output_limit_is_complete_but_marked() {
    for wire in WIRES {
        let o = run(
            wire,
            Turn::length_stop(["The first ", "half"]),
            http(1 << 20),
            None,
        )
        .await;
        assert_eq!(o.text, "The first half", "{wire:?}");
        assert_eq!(
            stop_of(wire, &o.terminal),
            StopReason::OutputLimit,
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn an_endless_stream_is_stopped_at_max_reply_bytes_and_the_connection_closed() {
    const CAP: u64 = 32 * 1024;
    for wire in WIRES {
        let fake = FakeProvider::start(Script::new([Turn::endless("endless text ")])).await;
        let o = run_on(wire, &fake, http(CAP), None).await;
        let message = interruption(wire, &o.terminal);
        assert!(
            message.contains("32 KiB size limit (agent.maxReplyBytes)"),
            "{wire:?}: {message}"
        );
        assert!(
            o.text.len() as u64 <= CAP && o.text.len() as u64 > CAP - 16,
            "{wire:?}: kept {} bytes",
            o.text.len()
        );
        for _ in 0..50 {
            if fake.closed_early() > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(fake.closed_early(), 1, "{wire:?}: the server saw the close");
    }
}

#[tokio::test]
async fn a_stream_far_past_its_max_tokens_is_stopped() {
    let max_tokens = 10;
    let cap = max_tokens as usize * BYTES_PER_TOKEN + TOKEN_SLACK;
    for wire in WIRES {
        let o = run(
            wire,
            Turn::endless("more "),
            http(4 * 1024 * 1024),
            Some(max_tokens),
        )
        .await;
        let message = interruption(wire, &o.terminal);
        assert!(
            message.contains("10 output tokens asked for"),
            "{wire:?}: {message}"
        );
        assert!(o.text.len() <= cap, "{wire:?}: kept {} bytes", o.text.len());
    }
}

#[tokio::test]
async fn an_endless_line_without_a_line_end_is_stopped_with_bounded_memory() {
    for wire in WIRES {
        // HTTP 200, then one line that never ends: no event is ever complete, so nothing
        // but the cap on bytes without reply content stops it.
        let (content_type, start) = match wire {
            Wire::Ollama => ("application/x-ndjson", &b"{\"message\":{\"content\":\""[..]),
            _ => ("text/event-stream", &b"data: {\"text\":\""[..]),
        };
        let server = TestServer::start(move |_, _| {
            Reply::head(200, content_type, &[])
                .then(Action::Write(start.to_vec()))
                .then(Action::Repeat(vec![b'x'; 8192]))
        })
        .await;
        let params = GenerateParams {
            messages: vec![Message::user("Say something.")],
            ..GenerateParams::default()
        };
        let stream = wire
            .client(&server.base_url(), http(32 * 1024))
            .generate(params, CancellationToken::new());
        let events: Vec<StreamEvent> =
            tokio::time::timeout(Duration::from_secs(30), stream.collect())
                .await
                .unwrap_or_else(|_| panic!("{wire:?}: the stream did not end by itself"));
        let message = interruption(wire, events.last().expect("an event"));
        assert!(
            message.contains("without any reply text"),
            "{wire:?}: {message}"
        );
        for _ in 0..50 {
            if server.closed_early() > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            server.closed_early(),
            1,
            "{wire:?}: the server saw the close"
        );
    }
}
