//! Connecting, the request headers, secrets, and the fake's streams in every format.

use super::*;

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
