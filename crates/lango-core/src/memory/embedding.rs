//! Embedding buffer (REFERENCE §3.9, spec 002 "Buffer drops logged at warn level with
//! counters").
//!
//! Saved observations, reflections and messages are queued here and embedded in batches off
//! the send path; the vectors go to the store (`memory_vectors`).
//!
//! - **Queue [KEEP]:** bounded (256 items); [`EmbeddingBuffer::enqueue`] never blocks. A full
//!   queue drops the item with a warn-level log naming its id and the total, and counts it
//!   ([`EmbeddingBuffer::dropped_count`]).
//! - **Batches [KEEP]:** 32 items, flushed when full (the timer restarts) or every 2 s.
//! - **Failures:** a failed embedding call is logged at warn and its items are skipped; the
//!   buffer carries on.
//! - **Stop [FIX]:** [`EmbeddingBuffer::shutdown`] refuses new items, drains the queue in
//!   batch-size chunks, flushes them, and waits for the worker.
//!
//! The queue discipline is shared with the graph buffer ([`BatchQueue`]).

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::provider::Provider;
use crate::store::{Store, VectorRow};

/// Queue capacity (REFERENCE §3.9 [KEEP]).
pub const DEFAULT_CAPACITY: usize = 256;
/// Items per embedding call.
pub const DEFAULT_BATCH: usize = 32;
/// Longest wait before a partial batch is flushed.
pub const DEFAULT_FLUSH_EVERY: Duration = Duration::from_secs(2);

/// One text to embed: the item `item_id` of `collection` (`message`, `observation`,
/// `reflection`) in the session `session_key`.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedItem {
    pub session_key: String,
    pub collection: String,
    pub item_id: String,
    pub text: String,
}

/// Cosine similarity of two vectors; 0 when either is zero or their lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Flushes one batch; handles (logs) its own errors.
pub(crate) type FlushFn<T> = Arc<dyn Fn(Vec<T>) -> BoxFuture<'static, ()> + Send + Sync>;

struct Shared {
    accepting: AtomicBool,
    dropped: AtomicU64,
    cancel: CancellationToken,
}

/// A bounded, never-blocking queue with one worker that flushes batches of `batch` items when
/// full or every `flush_every`, and drains in batch-size chunks on stop.
pub(crate) struct BatchQueue<T> {
    name: &'static str,
    tx: mpsc::Sender<T>,
    shared: Arc<Shared>,
    tracker: TaskTracker,
    capacity: usize,
}

impl<T: Send + 'static> BatchQueue<T> {
    /// Starts the worker. Must be called inside a Tokio runtime. Zero sizes become 1.
    pub(crate) fn start(
        name: &'static str,
        capacity: usize,
        batch: usize,
        flush_every: Duration,
        flush: FlushFn<T>,
    ) -> Self {
        let capacity = capacity.max(1);
        let (tx, rx) = mpsc::channel(capacity);
        let shared = Arc::new(Shared {
            accepting: AtomicBool::new(true),
            dropped: AtomicU64::new(0),
            cancel: CancellationToken::new(),
        });
        let tracker = TaskTracker::new();
        tracker.spawn(run_queue(
            name,
            rx,
            Arc::clone(&shared),
            batch.max(1),
            flush_every,
            flush,
        ));
        tracker.close();
        BatchQueue {
            name,
            tx,
            shared,
            tracker,
            capacity,
        }
    }

    /// Queues `item` without blocking. `id` names it in the drop warning. False when dropped
    /// (queue full: warned and counted) or refused (stopping: not counted).
    pub(crate) fn enqueue(&self, item: T, id: &str) -> bool {
        if !self.shared.accepting.load(Ordering::Acquire) {
            tracing::debug!(buffer = self.name, id, "buffer stopped; item ignored");
            return false;
        }
        match self.tx.try_send(item) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                let total = self.shared.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::warn!(
                    buffer = self.name,
                    id,
                    dropped_total = total,
                    capacity = self.capacity,
                    "{} buffer queue full; item dropped",
                    self.name
                );
                false
            }
            Err(TrySendError::Closed(_)) => {
                tracing::debug!(buffer = self.name, id, "buffer stopped; item ignored");
                false
            }
        }
    }

    pub(crate) fn dropped_count(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Refuses new items, drains and flushes the queue, waits for the worker. Idempotent.
    pub(crate) async fn shutdown(&self) {
        self.shared.accepting.store(false, Ordering::Release);
        self.shared.cancel.cancel();
        self.tracker.wait().await;
    }
}

impl<T> Drop for BatchQueue<T> {
    fn drop(&mut self) {
        // The worker drains and exits on its own; never blocks.
        self.shared.accepting.store(false, Ordering::Release);
        self.shared.cancel.cancel();
    }
}

async fn flush_batch<T>(name: &'static str, flush: &FlushFn<T>, batch: Vec<T>) {
    if batch.is_empty() {
        return;
    }
    let run = match std::panic::catch_unwind(AssertUnwindSafe(|| flush(batch))) {
        Ok(fut) => AssertUnwindSafe(fut).catch_unwind().await.is_ok(),
        Err(_) => false,
    };
    if !run {
        tracing::error!(buffer = name, "buffer flush panicked; batch skipped");
    }
}

async fn run_queue<T: Send + 'static>(
    name: &'static str,
    mut rx: mpsc::Receiver<T>,
    shared: Arc<Shared>,
    batch_size: usize,
    flush_every: Duration,
    flush: FlushFn<T>,
) {
    let mut batch = Vec::with_capacity(batch_size);
    let timer = tokio::time::sleep(flush_every);
    tokio::pin!(timer);
    loop {
        tokio::select! {
            biased;
            _ = shared.cancel.cancelled() => break,
            item = rx.recv() => {
                let Some(item) = item else { break };
                batch.push(item);
                if batch.len() >= batch_size {
                    flush_batch(name, &flush, std::mem::take(&mut batch)).await;
                    timer.as_mut().reset(tokio::time::Instant::now() + flush_every);
                }
            }
            _ = timer.as_mut() => {
                flush_batch(name, &flush, std::mem::take(&mut batch)).await;
                timer.as_mut().reset(tokio::time::Instant::now() + flush_every);
            }
        }
    }
    // Stop: no new items; drain what was accepted, in batch-size chunks.
    shared.accepting.store(false, Ordering::Release);
    rx.close();
    while let Some(item) = rx.recv().await {
        batch.push(item);
        if batch.len() >= batch_size {
            flush_batch(name, &flush, std::mem::take(&mut batch)).await;
        }
    }
    flush_batch(name, &flush, batch).await;
    tracing::debug!(buffer = name, "buffer worker stopped");
}

/// Embeds queued items in batches and saves their vectors.
pub struct EmbeddingBuffer {
    queue: BatchQueue<EmbedItem>,
    model: Arc<String>,
}

impl EmbeddingBuffer {
    /// Starts with the defaults (256 queued, batches of 32, every 2 s). `model` is recorded
    /// with each vector. Must be called inside a Tokio runtime.
    pub fn start(embedder: Arc<dyn Provider>, model: String, store: Store) -> Self {
        Self::start_with(
            embedder,
            model,
            store,
            DEFAULT_CAPACITY,
            DEFAULT_BATCH,
            DEFAULT_FLUSH_EVERY,
        )
    }

    /// Like [`start`](Self::start) with explicit sizes (tests use a short timer).
    pub fn start_with(
        embedder: Arc<dyn Provider>,
        model: String,
        store: Store,
        capacity: usize,
        batch: usize,
        flush_every: Duration,
    ) -> Self {
        let model = Arc::new(model);
        let flush_model = Arc::clone(&model);
        let flush: FlushFn<EmbedItem> = Arc::new(move |items: Vec<EmbedItem>| {
            let embedder = Arc::clone(&embedder);
            let model = Arc::clone(&flush_model);
            let store = store.clone();
            async move { embed_and_save(embedder.as_ref(), &model, &store, items).await }.boxed()
        });
        EmbeddingBuffer {
            queue: BatchQueue::start("embedding", capacity, batch, flush_every, flush),
            model,
        }
    }

    /// The model recorded with each vector.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Queues an item without blocking; false if it was dropped (full) or refused (stopping).
    pub fn enqueue(&self, item: EmbedItem) -> bool {
        let id = format!("{}:{}", item.collection, item.item_id);
        self.queue.enqueue(item, &id)
    }

    /// Items dropped because the queue was full.
    pub fn dropped_count(&self) -> u64 {
        self.queue.dropped_count()
    }

    /// Refuses new items, embeds and saves everything queued, then returns. Idempotent.
    pub async fn shutdown(&self) {
        self.queue.shutdown().await;
    }
}

impl std::fmt::Debug for EmbeddingBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingBuffer")
            .field("dropped", &self.dropped_count())
            .finish()
    }
}

async fn embed_and_save(
    embedder: &dyn Provider,
    model: &str,
    store: &Store,
    items: Vec<EmbedItem>,
) {
    let items: Vec<EmbedItem> = items
        .into_iter()
        .filter(|i| !i.text.trim().is_empty())
        .collect();
    if items.is_empty() {
        return;
    }
    let texts = items.iter().map(|i| i.text.clone()).collect();
    let vectors = match embedder.embed(texts).await {
        Ok(v) if v.len() == items.len() => v,
        Ok(v) => {
            tracing::warn!(
                expected = items.len(),
                got = v.len(),
                "embedding reply has the wrong number of vectors; batch skipped"
            );
            return;
        }
        Err(e) => {
            let ids: Vec<&str> = items.iter().map(|i| i.item_id.as_str()).collect();
            tracing::warn!(error = %e, ?ids, "embedding failed; items skipped");
            return;
        }
    };
    let rows: Vec<VectorRow> = items
        .into_iter()
        .zip(vectors)
        .map(|(i, vector)| VectorRow {
            session_key: i.session_key,
            collection: i.collection,
            item_id: i.item_id,
            model: model.to_string(),
            vector,
        })
        .collect();
    if let Err(e) = store.save_vectors(&rows).await {
        tracing::warn!(error = %e, count = rows.len(), "saving embeddings failed; items skipped");
    }
}
