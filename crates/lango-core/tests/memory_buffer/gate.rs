//! The gated runner: each memory cycle announces its start on a channel and waits until the
//! test releases it, so every interleaving is deterministic (no sleeps).

use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// A started cycle: its key and the switch that lets it finish.
pub type Started = (String, oneshot::Sender<()>);

pub struct Harness {
    pub started: mpsc::UnboundedReceiver<Started>,
    pub finished: Arc<Mutex<Vec<String>>>,
}

/// A gated runner: each cycle reports its start, waits for release, then records completion.
/// A cycle for the key "boom" panics instead.
pub fn gated_runner() -> (
    impl Fn(String) -> futures_util::future::BoxFuture<'static, ()> + Send + Sync + 'static,
    Harness,
) {
    let (tx, rx) = mpsc::unbounded_channel::<Started>();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::clone(&finished);
    let runner = move |key: String| {
        let tx = tx.clone();
        let done = Arc::clone(&done);
        async move {
            if key == "boom" {
                panic!("cycle for boom panicked");
            }
            let (release, wait) = oneshot::channel();
            let _ = tx.send((key.clone(), release));
            let _ = wait.await;
            done.lock().unwrap().push(key);
        }
        .boxed()
    };
    (
        runner,
        Harness {
            started: rx,
            finished,
        },
    )
}

impl Harness {
    /// Waits for the next cycle to start; returns its key and release switch.
    pub async fn next(&mut self) -> Started {
        self.started
            .recv()
            .await
            .expect("worker stopped unexpectedly")
    }

    /// Releases every further cycle; resolves with their keys once the worker has exited
    /// (the runner, and with it the channel sender, is dropped when the worker ends).
    pub fn release_rest(mut self) -> (JoinHandle<Vec<String>>, Arc<Mutex<Vec<String>>>) {
        let finished = Arc::clone(&self.finished);
        let handle = tokio::spawn(async move {
            let mut keys = Vec::new();
            while let Some((key, release)) = self.started.recv().await {
                keys.push(key);
                let _ = release.send(());
            }
            keys
        });
        (handle, finished)
    }
}

pub fn keys(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}
