//! Background memory buffer (spec 002 "Async Observation Buffer", REFERENCE §3.5,
//! acceptance 50 and the trigger-queue part of 60).
//!
//! The runner announces each cycle on a channel and blocks until the test releases it, so
//! every interleaving here is deterministic (no sleeps).

mod capture;
mod gate;

use std::sync::Arc;

use futures_util::FutureExt;
use lango_core::memory::buffer::{MemoryBuffer, TriggerOutcome, DEFAULT_CAPACITY};
use tokio_util::sync::CancellationToken;

use gate::{gated_runner, keys};

#[tokio::test]
async fn non_blocking_observation() {
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    assert_eq!(buf.capacity(), 16);

    assert_eq!(buf.trigger("s1"), TriggerOutcome::Queued);
    let (key, release) = h.next().await;
    assert_eq!(key, "s1");
    assert_eq!(buf.in_progress().as_deref(), Some("s1"));

    // The cycle for s1 is blocked; triggering is a plain synchronous call that returns at once.
    assert_eq!(buf.trigger("s2"), TriggerOutcome::Queued);
    assert_eq!(buf.trigger("s3"), TriggerOutcome::Queued);
    assert_eq!(buf.queued(), 2);
    assert!(
        h.finished.lock().unwrap().is_empty(),
        "nothing finished yet"
    );

    release.send(()).unwrap();
    let (rest, finished) = h.release_rest();
    buf.shutdown().await;
    assert_eq!(rest.await.unwrap(), keys(&["s2", "s3"]));
    assert_eq!(*finished.lock().unwrap(), keys(&["s1", "s2", "s3"]));
}

#[tokio::test]
async fn goroutine_lifecycle_management() {
    // Started worker is tracked; shutdown waits for it to exit.
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, 4);
    assert!(buf.is_running());
    assert!(buf.is_accepting());
    buf.trigger("s1");
    let (_, release) = h.next().await;

    let mut shutdown = Box::pin(buf.shutdown());
    assert!(
        (&mut shutdown).now_or_never().is_none(),
        "shutdown must wait for the in-progress cycle"
    );
    assert!(buf.is_running());
    release.send(()).unwrap();
    shutdown.await;
    assert!(!buf.is_running());
    assert!(h.started.recv().await.is_none(), "worker exited");
    buf.shutdown().await; // idempotent

    // Registered with the application's token: cancelling it stops the worker too.
    let app = CancellationToken::new();
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start_with_token(runner, 4, &app);
    buf.trigger("a");
    let (_, release) = h.next().await;
    buf.trigger("b");
    app.cancel();
    assert!(!buf.is_accepting());
    assert_eq!(buf.trigger("c"), TriggerOutcome::Refused);
    release.send(()).unwrap();
    let (rest, finished) = h.release_rest();
    assert_eq!(
        rest.await.unwrap(),
        keys(&["b"]),
        "queue drained, c refused"
    );
    assert!(!buf.is_running());
    assert_eq!(*finished.lock().unwrap(), keys(&["a", "b"]));
    assert_eq!(buf.dropped_count(), 0);

    // A buffer's own cancellation does not cancel the application's token.
    let app = CancellationToken::new();
    let (runner, _h) = gated_runner();
    let buf = MemoryBuffer::start_with_token(runner, 4, &app);
    buf.shutdown().await;
    assert!(!app.is_cancelled());

    // Dropping without shutdown does not panic; the worker drains and exits on its own.
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, 4);
    buf.trigger("x");
    let (_, release) = h.next().await;
    buf.trigger("y");
    drop(buf);
    release.send(()).unwrap();
    let (rest, finished) = h.release_rest();
    assert_eq!(rest.await.unwrap(), keys(&["y"]));
    assert_eq!(*finished.lock().unwrap(), keys(&["x", "y"]));
}

#[tokio::test]
async fn graceful_shutdown() {
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    buf.trigger("s1");
    let (key, release) = h.next().await;
    assert_eq!(key, "s1");
    buf.trigger("s2");
    buf.trigger("s3");

    // Shutdown begins: new triggers are refused (ignored, not counted as drops).
    let mut shutdown = Box::pin(buf.shutdown());
    assert!((&mut shutdown).now_or_never().is_none());
    assert!(!buf.is_accepting());
    assert_eq!(buf.trigger("s4"), TriggerOutcome::Refused);
    assert_eq!(buf.trigger("s2"), TriggerOutcome::Refused);
    assert_eq!(buf.dropped_count(), 0);
    assert_eq!(buf.queued(), 2);

    // The in-progress cycle completes, then the queue is drained, then the worker exits.
    release.send(()).unwrap();
    let (rest, finished) = h.release_rest();
    shutdown.await;
    assert!(!buf.is_running());
    assert_eq!(rest.await.unwrap(), keys(&["s2", "s3"]));
    assert_eq!(*finished.lock().unwrap(), keys(&["s1", "s2", "s3"]));
    assert_eq!(buf.trigger("late"), TriggerOutcome::Refused);
}

#[tokio::test]
async fn queue_full_logs_warning_and_drop_counter_increments() {
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, 2);
    buf.trigger("busy");
    let (_, release) = h.next().await;

    let capture = capture::Capture::default();
    let outcomes =
        capture.during(|| ["a", "b", "request-c", "request-d", "a"].map(|k| buf.trigger(k)));
    assert_eq!(
        outcomes,
        [
            TriggerOutcome::Queued,
            TriggerOutcome::Queued,
            TriggerOutcome::Dropped,
            TriggerOutcome::Dropped,
            TriggerOutcome::Coalesced,
        ]
    );
    assert_eq!(buf.dropped_count(), 2);

    let warnings = capture.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("session_key=request-c"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("dropped_total=1"), "{warnings:?}");
    assert!(
        warnings[1].contains("session_key=request-d"),
        "{warnings:?}"
    );
    assert!(warnings[1].contains("dropped_total=2"), "{warnings:?}");

    release.send(()).unwrap();
    let (rest, _) = h.release_rest();
    buf.shutdown().await;
    assert_eq!(
        rest.await.unwrap(),
        keys(&["a", "b"]),
        "dropped keys never run"
    );
    assert_eq!(buf.dropped_count(), 2);
}

#[tokio::test]
async fn acceptance_50_coalescing() {
    // 50 triggers for the key in progress → at most 2 cycles (exactly: the one running + one).
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    buf.trigger("k");
    let (_, release) = h.next().await;
    let outcomes: Vec<_> = (0..50).map(|_| buf.trigger("k")).collect();
    assert_eq!(outcomes[0], TriggerOutcome::MarkedDirty);
    assert!(outcomes[1..]
        .iter()
        .all(|o| *o == TriggerOutcome::Coalesced));
    assert_eq!(buf.queued(), 0, "a dirty mark takes no queue slot");

    // A queued key is queued once; the dirty key runs again after those queued before it.
    assert_eq!(buf.trigger("other"), TriggerOutcome::Queued);
    assert_eq!(buf.trigger("other"), TriggerOutcome::Coalesced);
    release.send(()).unwrap();
    let (rest, _) = h.release_rest();
    buf.shutdown().await;
    let ran = rest.await.unwrap();
    assert_eq!(ran, keys(&["other", "k"]));
    assert_eq!(1 + ran.iter().filter(|k| *k == "k").count(), 2);
    assert_eq!(buf.dropped_count(), 0);

    // 20 new keys while the worker is blocked on another key (queue 16) → 4 dropped, warned.
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, 16);
    buf.trigger("blocked");
    let (_, release) = h.next().await;
    let capture = capture::Capture::default();
    let outcomes: Vec<_> =
        capture.during(|| (0..20).map(|i| buf.trigger(format!("key{i}"))).collect());
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| **o == TriggerOutcome::Queued)
            .count(),
        16
    );
    assert_eq!(buf.dropped_count(), 4);
    let warnings = capture.warnings();
    assert_eq!(warnings.len(), 4);
    assert!(warnings[3].contains("session_key=key19") && warnings[3].contains("dropped_total=4"));

    release.send(()).unwrap();
    let (rest, _) = h.release_rest();
    buf.shutdown().await;
    let expected: Vec<String> = (0..16).map(|i| format!("key{i}")).collect();
    assert_eq!(rest.await.unwrap(), expected);
}

#[tokio::test]
async fn acceptance_60_trigger_queue_order_and_drain() {
    // alpha, beta, gamma run in order.
    let (runner, h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    let (rest, finished) = h.release_rest();
    for key in ["alpha", "beta", "gamma"] {
        assert_eq!(buf.trigger(key), TriggerOutcome::Queued);
    }
    buf.shutdown().await;
    assert_eq!(rest.await.unwrap(), keys(&["alpha", "beta", "gamma"]));
    assert_eq!(*finished.lock().unwrap(), keys(&["alpha", "beta", "gamma"]));

    // Blocked worker + 5 queued + stop → all 5 run.
    let (runner, mut h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    buf.trigger("blocked");
    let (_, release) = h.next().await;
    let five = keys(&["q1", "q2", "q3", "q4", "q5"]);
    for key in &five {
        buf.trigger(key.as_str());
    }
    let mut shutdown = Box::pin(buf.shutdown());
    assert!((&mut shutdown).now_or_never().is_none());
    release.send(()).unwrap();
    let (rest, finished) = h.release_rest();
    shutdown.await;
    assert_eq!(rest.await.unwrap(), five);
    assert_eq!(finished.lock().unwrap().len(), 6);
}

#[tokio::test]
async fn worker_survives_a_panicking_cycle() {
    let (runner, h) = gated_runner();
    let buf = MemoryBuffer::start(runner, DEFAULT_CAPACITY);
    let (rest, _) = h.release_rest();
    buf.trigger("boom");
    buf.trigger("after");
    buf.shutdown().await;
    assert_eq!(rest.await.unwrap(), keys(&["after"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_triggers_from_many_tasks() {
    let (runner, mut h) = gated_runner();
    let buf = Arc::new(MemoryBuffer::start(runner, 8));
    buf.trigger("busy");
    let (_, release) = h.next().await;
    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let buf = Arc::clone(&buf);
            tokio::spawn(async move {
                for i in 0..4 {
                    buf.trigger(format!("k{}", (t * 4 + i) % 12));
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    // 12 distinct keys, 32 triggers, capacity 8: exactly 8 queued; the rest coalesced or dropped.
    assert_eq!(buf.queued(), 8);
    assert!(buf.dropped_count() >= 4);
    release.send(()).unwrap();
    let (rest, _) = h.release_rest();
    buf.shutdown().await;
    let ran = rest.await.unwrap();
    assert_eq!(ran.len(), 8);
    let mut unique = ran.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 8, "no key queued twice: {ran:?}");
}

#[tokio::test]
async fn a_cycle_still_running_when_the_shutdown_grace_ends_is_cancelled_and_the_queue_left() {
    let (runner, mut h) = gated_runner();
    let buffer = MemoryBuffer::start(runner, 4);
    buffer.trigger("hung");
    let (_, release) = h.next().await;
    buffer.trigger("queued");

    let started = std::time::Instant::now();
    let cancelled = buffer
        .shutdown_within(std::time::Duration::from_millis(200))
        .await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "shutdown waited {:?}",
        started.elapsed()
    );
    assert_eq!(cancelled.as_deref(), Some("hung"));
    assert!(
        release.is_closed(),
        "the hung cycle (and the model call it awaited) was dropped"
    );
    assert!(
        h.finished.lock().unwrap().is_empty(),
        "the queued session is left for the next start"
    );
    assert!(!buffer.is_running());
}

#[tokio::test]
async fn a_shutdown_within_its_grace_finishes_the_cycle_and_cancels_nothing() {
    let (runner, mut h) = gated_runner();
    let buffer = MemoryBuffer::start(runner, 4);
    buffer.trigger("a");
    let (_, release) = h.next().await;
    let stopping = tokio::spawn(async move {
        buffer
            .shutdown_within(std::time::Duration::from_secs(30))
            .await
    });
    release.send(()).unwrap();
    assert_eq!(stopping.await.unwrap(), None);
    assert_eq!(*h.finished.lock().unwrap(), vec!["a".to_string()]);
}
