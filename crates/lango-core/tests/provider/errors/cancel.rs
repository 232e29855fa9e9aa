//! Cancelling or dropping a stream: it ends, and the server sees the connection close.

use super::*;

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
