//! HTTP statuses before the stream: what each becomes and how often it is retried.

use super::*;

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
