//! Faults after the first byte: resets, error events, stalls, headers that never come.

use super::*;

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
