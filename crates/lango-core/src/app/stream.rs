//! Batching of a turn's stream for the UI: model deltas arrive every few milliseconds, and
//! sending each one over IPC would make the webview re-render far more than the eye can see.
//! Deltas are merged and flushed at most every `interval` (~30 ms); any other event first
//! flushes the pending text, so order is kept. Owns only that policy, not the transport.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::dto::ChatEvent;

/// How often merged reply text is sent to the UI.
pub const DELTA_INTERVAL: Duration = Duration::from_millis(30);

/// Starts a pump that forwards events to `sink`, merging deltas. Close the returned sender
/// (drop it) and await the handle to flush what is left.
pub fn batched(
    mut sink: impl FnMut(ChatEvent) + Send + 'static,
    interval: Duration,
) -> (mpsc::UnboundedSender<ChatEvent>, JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<ChatEvent>();
    let pump = tokio::spawn(async move {
        let mut pending = String::new();
        // When the pending text must go out at the latest.
        let mut deadline: Option<Instant> = None;
        let mut last_flush = Instant::now() - interval;
        loop {
            let timer = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                event = rx.recv() => match event {
                    Some(ChatEvent::Delta { text }) => {
                        pending.push_str(&text);
                        if last_flush.elapsed() >= interval {
                            flush(&mut pending, &mut sink);
                            last_flush = Instant::now();
                            deadline = None;
                        } else if deadline.is_none() {
                            deadline = Some(last_flush + interval);
                        }
                    }
                    Some(other) => {
                        flush(&mut pending, &mut sink);
                        deadline = None;
                        sink(other);
                    }
                    None => {
                        flush(&mut pending, &mut sink);
                        break;
                    }
                },
                () = timer => {
                    flush(&mut pending, &mut sink);
                    last_flush = Instant::now();
                    deadline = None;
                }
            }
        }
    });
    (tx, pump)
}

fn flush(pending: &mut String, sink: &mut impl FnMut(ChatEvent)) {
    if !pending.is_empty() {
        sink(ChatEvent::Delta {
            text: std::mem::take(pending),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    fn delta(t: &str) -> ChatEvent {
        ChatEvent::Delta { text: t.into() }
    }

    fn collector() -> (
        Arc<Mutex<Vec<ChatEvent>>>,
        impl FnMut(ChatEvent) + Send + 'static,
    ) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        (seen, move |e| sink_seen.lock().unwrap().push(e))
    }

    /// Waits (real time) until `seen` holds `n` events, at most `within`.
    async fn until_seen(seen: &Mutex<Vec<ChatEvent>>, n: usize, within: Duration) {
        let until = Instant::now() + within;
        while seen.lock().unwrap().len() < n && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    // These run on the real clock (no paused test clock: tokio's `test-util` would give the
    // tests' build other tokio features than the app's, and a cold `cargo test` would then
    // rebuild everything above tokio). The intervals are long enough that a slow machine
    // cannot change what is merged: only how soon it is seen.

    #[tokio::test]
    async fn deltas_within_one_interval_arrive_as_one_message() {
        let (seen, sink) = collector();
        let interval = Duration::from_millis(600);
        let (tx, pump) = batched(sink, interval);
        tx.send(delta("Hel")).unwrap();
        tokio::time::sleep(Duration::from_millis(1)).await;
        tx.send(delta("lo")).unwrap();
        tx.send(delta(" world")).unwrap();
        until_seen(&seen, 2, Duration::from_secs(10)).await;
        // First delta goes out at once (nothing was sent for a while), the rest together
        // when the interval is over, without waiting for the stream to end.
        assert_eq!(*seen.lock().unwrap(), vec![delta("Hel"), delta("lo world")]);
        drop(tx);
        pump.await.unwrap();
    }

    #[tokio::test]
    async fn pending_text_is_sent_when_the_stream_stalls() {
        let (seen, sink) = collector();
        let (tx, _pump) = batched(sink, Duration::from_millis(50));
        tx.send(delta("a")).unwrap();
        tx.send(delta("b")).unwrap();
        // The model now stalls (the sender stays open): "b" must not wait for the next delta.
        until_seen(&seen, 2, Duration::from_secs(10)).await;
        assert_eq!(*seen.lock().unwrap(), vec![delta("a"), delta("b")]);
    }

    #[tokio::test]
    async fn a_tool_call_flushes_pending_text_first_so_order_is_kept() {
        let (seen, sink) = collector();
        let (tx, pump) = batched(sink, DELTA_INTERVAL);
        tx.send(delta("x")).unwrap();
        tx.send(delta("y")).unwrap();
        let call = ChatEvent::ToolCall {
            id: "c1".into(),
            name: "current_datetime".into(),
            args: serde_json::json!({}),
            server: None,
            tool: None,
        };
        tx.send(call.clone()).unwrap();
        drop(tx);
        pump.await.unwrap();
        let seen = seen.lock().unwrap();
        let text: String = seen
            .iter()
            .filter_map(|e| match e {
                ChatEvent::Delta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "xy");
        assert_eq!(seen.last(), Some(&call));
    }
}
