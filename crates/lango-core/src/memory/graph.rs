//! Graph buffer and the memory triples (REFERENCE §3.9).
//!
//! Triples describing saved observations and reflections are queued here and written to the
//! store (`memory_triples`) in batches, off the send path. Same queue discipline as the
//! embedding buffer: 256 queued requests, batches of 64, flushed when full or every 2 s; a
//! full queue drops the request with a warn-level log (its id and the total) and counts it;
//! [`GraphBuffer::shutdown`] drains in batch-size chunks.
//!
//! Triples: `observation:<id> --in_session--> session:<key>`,
//! `observation:<id> --follows--> observation:<previous>`,
//! `reflection:<id> --in_session--> session:<key>`,
//! `reflection:<id> --reflects_on--> observation:<id>` per condensed observation
//! (**[FIX]** a meta-reflection links to the reflections it condensed), and
//! `<collection>:<id> --contains--> collection:<collection>`.

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::FutureExt;

use super::embedding::{BatchQueue, FlushFn};
use crate::store::Store;

pub use crate::store::Triple;

/// Queue capacity (REFERENCE §3.9 [KEEP]).
pub const DEFAULT_CAPACITY: usize = 256;
/// Requests per store write.
pub const DEFAULT_BATCH: usize = 64;
/// Longest wait before a partial batch is written.
pub const DEFAULT_FLUSH_EVERY: Duration = Duration::from_secs(2);

pub const IN_SESSION: &str = "in_session";
pub const FOLLOWS: &str = "follows";
pub const REFLECTS_ON: &str = "reflects_on";
pub const CONTAINS: &str = "contains";

fn node(kind: &str, id: &str) -> String {
    format!("{kind}:{id}")
}

/// An observation's triples: in its session, and following the previous observation of the
/// session (read from the store by the caller), if any.
pub fn observation_triples(
    obs_id: &str,
    session_key: &str,
    previous_observation_id: Option<&str>,
) -> Vec<Triple> {
    let me = node("observation", obs_id);
    let mut out = vec![Triple::new(
        me.clone(),
        IN_SESSION,
        node("session", session_key),
    )];
    if let Some(prev) = previous_observation_id.filter(|p| !p.is_empty() && *p != obs_id) {
        out.push(Triple::new(me, FOLLOWS, node("observation", prev)));
    }
    out
}

/// A reflection's triples: in its session, and reflecting on each observation it condensed.
pub fn reflection_triples(
    refl_id: &str,
    session_key: &str,
    condensed_ids: &[String],
) -> Vec<Triple> {
    reflection_over(refl_id, session_key, "observation", condensed_ids)
}

/// A meta-reflection's triples: in its session, and reflecting on each reflection it
/// condensed (**[FIX]** the reference linked it to the current observations).
pub fn meta_reflection_triples(
    refl_id: &str,
    session_key: &str,
    condensed_reflection_ids: &[String],
) -> Vec<Triple> {
    reflection_over(refl_id, session_key, "reflection", condensed_reflection_ids)
}

fn reflection_over(refl_id: &str, session_key: &str, kind: &str, ids: &[String]) -> Vec<Triple> {
    let me = node("reflection", refl_id);
    let mut out = vec![Triple::new(
        me.clone(),
        IN_SESSION,
        node("session", session_key),
    )];
    out.extend(
        ids.iter()
            .map(|id| Triple::new(me.clone(), REFLECTS_ON, node(kind, id))),
    );
    out
}

/// `<collection>:<id> --contains--> collection:<collection>` (the "content saved" edge).
pub fn contains_triple(collection: &str, id: &str) -> Triple {
    Triple::new(
        node(collection, id),
        CONTAINS,
        node("collection", collection),
    )
}

struct GraphRequest {
    session_key: String,
    triples: Vec<Triple>,
}

/// Writes queued triples to the store in batches.
pub struct GraphBuffer {
    queue: BatchQueue<GraphRequest>,
}

impl GraphBuffer {
    /// Starts with the defaults (256 queued, batches of 64, every 2 s). Must be called inside
    /// a Tokio runtime.
    pub fn start(store: Store) -> Self {
        Self::start_with(store, DEFAULT_CAPACITY, DEFAULT_BATCH, DEFAULT_FLUSH_EVERY)
    }

    /// Like [`start`](Self::start) with explicit sizes (tests use a short timer).
    pub fn start_with(store: Store, capacity: usize, batch: usize, flush_every: Duration) -> Self {
        let flush: FlushFn<GraphRequest> = std::sync::Arc::new(move |reqs: Vec<GraphRequest>| {
            let store = store.clone();
            async move { save(&store, reqs).await }.boxed()
        });
        GraphBuffer {
            queue: BatchQueue::start("graph", capacity, batch, flush_every, flush),
        }
    }

    /// Queues a session's triples without blocking; false if dropped (full) or refused.
    pub fn enqueue(&self, session_key: impl Into<String>, triples: Vec<Triple>) -> bool {
        let session_key = session_key.into();
        let id = triples
            .first()
            .map(|t| t.subject.clone())
            .unwrap_or_else(|| format!("session:{session_key}"));
        self.queue.enqueue(
            GraphRequest {
                session_key,
                triples,
            },
            &id,
        )
    }

    /// Requests dropped because the queue was full.
    pub fn dropped_count(&self) -> u64 {
        self.queue.dropped_count()
    }

    /// Refuses new requests, writes everything queued, then returns. Idempotent.
    pub async fn shutdown(&self) {
        self.queue.shutdown().await;
    }
}

impl std::fmt::Debug for GraphBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphBuffer")
            .field("dropped", &self.dropped_count())
            .finish()
    }
}

async fn save(store: &Store, reqs: Vec<GraphRequest>) {
    let mut by_session: BTreeMap<String, Vec<Triple>> = BTreeMap::new();
    for r in reqs {
        by_session
            .entry(r.session_key)
            .or_default()
            .extend(r.triples);
    }
    for (key, triples) in by_session {
        if let Err(e) = store.add_triples(&key, &triples).await {
            tracing::warn!(error = %e, session_key = %key, count = triples.len(), "saving triples failed; skipped");
        }
    }
}
