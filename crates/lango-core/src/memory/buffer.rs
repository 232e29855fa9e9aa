//! Background memory buffer (spec 002 "Async Observation Buffer", REFERENCE §3.5).
//!
//! After every turn the engine calls [`MemoryBuffer::trigger`] with the session key; the call
//! never blocks. One worker task runs the memory cycle for one key at a time, in FIFO order.
//!
//! - **Coalescing [FIX]:** at most one queued entry per key; a trigger for the key being
//!   processed marks it dirty, so it runs once more afterwards (re-queued at the back). Any
//!   number of triggers during one cycle therefore cost at most one extra cycle.
//! - **Bounded [KEEP]:** the queue holds `capacity` keys (default 16). A full queue drops the
//!   trigger with a warn-level log naming the key and the total, and counts it
//!   ([`MemoryBuffer::dropped_count`]).
//! - **Lifecycle:** the worker is tracked by a [`TaskTracker`] (the reference's WaitGroup) and
//!   stopped through a [`CancellationToken`]. [`MemoryBuffer::shutdown`] refuses new triggers,
//!   lets the in-progress cycle finish, drains what is queued, then waits for the worker.
//!   Dropping the buffer without `shutdown` cancels the worker the same way (it still drains)
//!   but does not wait. [`MemoryBuffer::shutdown_within`] waits a bounded time, then drops
//!   the cycle in progress (and with it its model request) and leaves the queue: those
//!   messages stay unobserved and the next turn triggers them again.
//!
//! The buffer is generic over the work it runs ([`CycleRunner`]) so it does not depend on the
//! observer; the engine passes e.g. `move |key| cycle.clone().run(key)`.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Default queue capacity (REFERENCE §3.5 [KEEP]).
pub const DEFAULT_CAPACITY: usize = 16;

/// The work run for one session key (one memory cycle: observe, reflect, meta-reflect).
///
/// Implemented for every `Fn(String) -> impl Future<Output = ()> + Send + 'static`.
/// A cycle is expected to handle its own errors (log and return); a panic is caught and
/// logged so the worker survives it.
pub trait CycleRunner: Send + Sync + 'static {
    /// Runs one cycle for `session_key`.
    fn run(&self, session_key: String) -> BoxFuture<'static, ()>;
}

impl<F, Fut> CycleRunner for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn run(&self, session_key: String) -> BoxFuture<'static, ()> {
        Box::pin(self(session_key))
    }
}

/// What happened to one [`MemoryBuffer::trigger`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerOutcome {
    /// The key was appended to the queue.
    Queued,
    /// The key was already queued, or already marked to run again: nothing to do.
    Coalesced,
    /// The key is being processed: it will run once more afterwards.
    MarkedDirty,
    /// The queue was full: the trigger was dropped (warned and counted).
    Dropped,
    /// The buffer is shutting down or stopped: the trigger was ignored (not counted).
    Refused,
}

#[derive(Default)]
struct State {
    queue: VecDeque<String>,
    queued: HashSet<String>,
    current: Option<String>,
    dirty: bool,
    accepting: bool,
}

struct Inner {
    state: Mutex<State>,
    wake: Notify,
    dropped: AtomicU64,
    capacity: usize,
    cancel: CancellationToken,
    /// Drops the cycle in progress and stops the worker without draining.
    abort: CancellationToken,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The lock is never held across an await or user code; recover from poisoning.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Non-blocking, coalescing, bounded trigger queue with one background worker.
pub struct MemoryBuffer {
    inner: Arc<Inner>,
    tracker: TaskTracker,
}

impl MemoryBuffer {
    /// Starts the worker with its own cancellation token. Must be called inside a Tokio
    /// runtime. `capacity` 0 is treated as [`DEFAULT_CAPACITY`].
    pub fn start<R: CycleRunner>(runner: R, capacity: usize) -> MemoryBuffer {
        Self::start_with_token(runner, capacity, &CancellationToken::new())
    }

    /// Like [`start`](Self::start), but the worker also stops (refusing new triggers and
    /// draining the queue) when `parent` is cancelled, e.g. the application's shutdown token.
    pub fn start_with_token<R: CycleRunner>(
        runner: R,
        capacity: usize,
        parent: &CancellationToken,
    ) -> MemoryBuffer {
        let capacity = if capacity == 0 {
            DEFAULT_CAPACITY
        } else {
            capacity
        };
        let inner = Arc::new(Inner {
            state: Mutex::new(State {
                accepting: true,
                ..State::default()
            }),
            wake: Notify::new(),
            dropped: AtomicU64::new(0),
            capacity,
            cancel: parent.child_token(),
            abort: CancellationToken::new(),
        });
        let tracker = TaskTracker::new();
        tracker.spawn(worker(Arc::clone(&inner), runner));
        tracker.close();
        MemoryBuffer { inner, tracker }
    }

    /// Enqueues `session_key` without blocking (spec 002 "Non-blocking observation").
    pub fn trigger(&self, session_key: impl Into<String>) -> TriggerOutcome {
        let key = session_key.into();
        let mut st = self.inner.lock();
        if !st.accepting || self.inner.cancel.is_cancelled() {
            drop(st);
            tracing::debug!(session_key = %key, "memory buffer stopped; trigger ignored");
            return TriggerOutcome::Refused;
        }
        if st.queued.contains(&key) {
            return TriggerOutcome::Coalesced;
        }
        if st.current.as_deref() == Some(key.as_str()) {
            if st.dirty {
                return TriggerOutcome::Coalesced;
            }
            st.dirty = true;
            return TriggerOutcome::MarkedDirty;
        }
        if st.queue.len() >= self.inner.capacity {
            drop(st);
            let total = self.inner.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(
                session_key = %key,
                dropped_total = total,
                capacity = self.inner.capacity,
                "memory buffer queue full; trigger dropped"
            );
            return TriggerOutcome::Dropped;
        }
        st.queued.insert(key.clone());
        st.queue.push_back(key);
        drop(st);
        self.inner.wake.notify_one();
        TriggerOutcome::Queued
    }

    /// Stops accepting triggers, lets the in-progress cycle finish, drains the queue, and
    /// waits for the worker to exit. Idempotent.
    /// [`MemoryBuffer::shutdown`] for at most `grace`; then the cycle in progress is dropped
    /// (its model request with it) and what is queued is left for the next start. Returns
    /// the session whose cycle was cancelled, if one was.
    pub async fn shutdown_within(&self, grace: std::time::Duration) -> Option<String> {
        self.inner.lock().accepting = false;
        self.inner.cancel.cancel();
        if tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_ok()
        {
            return None;
        }
        let cancelled = self.in_progress();
        self.inner.abort.cancel();
        self.tracker.wait().await;
        cancelled
    }

    pub async fn shutdown(&self) {
        self.inner.lock().accepting = false;
        self.inner.cancel.cancel();
        self.tracker.wait().await;
    }

    /// Total triggers dropped because the queue was full.
    pub fn dropped_count(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// Whether the worker task is still alive (false once it has drained and exited).
    pub fn is_running(&self) -> bool {
        !self.tracker.is_empty()
    }

    /// Whether new triggers are accepted.
    pub fn is_accepting(&self) -> bool {
        self.inner.lock().accepting && !self.inner.cancel.is_cancelled()
    }

    /// Number of keys waiting in the queue (the in-progress key is not counted).
    pub fn queued(&self) -> usize {
        self.inner.lock().queue.len()
    }

    /// The key whose cycle is running right now, if any.
    pub fn in_progress(&self) -> Option<String> {
        self.inner.lock().current.clone()
    }

    /// Queue capacity.
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }
}

impl Drop for MemoryBuffer {
    fn drop(&mut self) {
        // Stop the worker (it drains the queue and exits); never blocks or panics.
        self.inner.lock().accepting = false;
        self.inner.cancel.cancel();
    }
}

impl std::fmt::Debug for MemoryBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBuffer")
            .field("capacity", &self.inner.capacity)
            .field("queued", &self.queued())
            .field("dropped", &self.dropped_count())
            .field("running", &self.is_running())
            .finish()
    }
}

async fn worker<R: CycleRunner>(inner: Arc<Inner>, runner: R) {
    loop {
        let next = {
            let mut st = inner.lock();
            match st.queue.pop_front() {
                Some(key) => {
                    st.queued.remove(&key);
                    st.current = Some(key.clone());
                    st.dirty = false;
                    Some(key)
                }
                None => {
                    if inner.cancel.is_cancelled() {
                        st.accepting = false;
                        break;
                    }
                    None
                }
            }
        };
        let Some(key) = next else {
            // `notify_one` stores a permit, so a trigger between the check and here is not lost.
            tokio::select! {
                _ = inner.wake.notified() => {}
                _ = inner.cancel.cancelled() => {}
            }
            continue;
        };

        let cycle = async {
            match std::panic::catch_unwind(AssertUnwindSafe(|| runner.run(key.clone()))) {
                Ok(cycle) => AssertUnwindSafe(cycle).catch_unwind().await.is_ok(),
                Err(_) => false,
            }
        };
        let ran = tokio::select! {
            ran = cycle => ran,
            _ = inner.abort.cancelled() => {
                tracing::warn!(session_key = %key,
                    "memory cycle cancelled at shutdown; its messages stay unobserved until the next turn");
                inner.lock().current = None;
                break;
            }
        };
        if !ran {
            tracing::error!(session_key = %key, "memory cycle panicked; continuing");
        }

        let mut st = inner.lock();
        st.current = None;
        if std::mem::take(&mut st.dirty) && !st.queued.contains(&key) {
            // A trigger arrived while this key ran: run it once more, after the others.
            // The dirty mark was accepted earlier, so it may exceed capacity by one.
            st.queued.insert(key.clone());
            st.queue.push_back(key);
        }
    }
    tracing::debug!("memory buffer worker stopped");
}
