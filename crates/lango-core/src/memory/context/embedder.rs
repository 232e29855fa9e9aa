//! The query embedder: embeds the retrieval query within a short timeout so hybrid
//! retrieval never holds a reply back; failures fall back to BM25.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::provider::Provider;

/// The longest wait for the query's embedding on the send path before retrieval falls back
/// to BM25 alone.
pub const DEFAULT_QUERY_EMBEDDING_TIMEOUT: Duration = Duration::from_millis(300);

/// Embeds the retrieval query (one network call per model call) within a short timeout. A
/// failure or a timeout is logged, counted ([`QueryEmbedder::fallbacks`]) and leaves the
/// retrieval to BM25: a slow embedder never holds a reply back for longer than the timeout.
#[derive(Debug, Clone)]
pub struct QueryEmbedder {
    provider: Arc<dyn Provider>,
    timeout: Duration,
    fallbacks: Arc<AtomicU64>,
}

impl QueryEmbedder {
    /// `provider` must embed with the model the stored vectors were made with.
    pub fn new(provider: Arc<dyn Provider>, timeout: Duration) -> Self {
        Self {
            provider,
            timeout,
            fallbacks: Arc::new(AtomicU64::new(0)),
        }
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Queries that fell back to BM25 because embedding them failed or took too long.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// The query's vector, or None (logged and counted) on error or timeout.
    pub async fn embed(&self, session_key: &str, query: &str) -> Option<Vec<f32>> {
        let started = std::time::Instant::now();
        let outcome =
            tokio::time::timeout(self.timeout, self.provider.embed(vec![query.to_owned()])).await;
        let failure = match outcome {
            Ok(Ok(mut vectors)) if vectors.len() == 1 && !vectors[0].is_empty() => {
                return vectors.pop();
            }
            Ok(Ok(vectors)) => format!(
                "the embedder returned {} vector(s), none usable, for 1 text",
                vectors.len()
            ),
            Ok(Err(e)) => e.to_string(),
            Err(_) => {
                let total = self.fallbacks.fetch_add(1, Ordering::Relaxed) + 1;
                let timeout_ms = self.timeout.as_millis() as u64;
                // A slow embedder is slow every time: warn once in a while, not on every call.
                if total == 1 || total.is_multiple_of(100) {
                    tracing::warn!(session = %session_key, timeout_ms, fallbacks = total,
                        "query embedding timed out; knowledge retrieval uses BM25 only");
                } else {
                    tracing::debug!(session = %session_key, timeout_ms, fallbacks = total,
                        "query embedding timed out; knowledge retrieval uses BM25 only");
                }
                return None;
            }
        };
        let total = self.fallbacks.fetch_add(1, Ordering::Relaxed) + 1;
        tracing::warn!(session = %session_key, error = %failure, fallbacks = total,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "query embedding failed; knowledge retrieval uses BM25 only");
        None
    }
}
