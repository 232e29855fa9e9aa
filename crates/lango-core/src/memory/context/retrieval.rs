//! Retrieval for one call: the session's memory state, its memory section (cached) and the
//! knowledge candidates, read concurrently.

use std::collections::HashMap;
use std::sync::Arc;

use super::assembly::AssemblyOptions;
use super::cache::{load_memory, MemoryCache, MemorySnapshot};
use super::or_default;
use super::section::DEFAULT_MEMORY_TOKEN_BUDGET;
use crate::memory::knowledge;
use crate::memory::settings::MemoryConfig;
use crate::store::{MemoryState, Store, StoreResult};
use crate::tokens::TokenCounter;

/// What context assembly read from the store for one call of session `key`.
#[derive(Debug)]
pub(super) struct Reads {
    /// None: unknown (the read failed) → everything was read, nothing cached.
    pub(super) state: Option<Option<MemoryState>>,
    /// History rows appended after `state` was read (1 when read at the start of the turn,
    /// before the user's message was stored).
    pub(super) appended: i64,
    pub(super) memory: Arc<MemorySnapshot>,
    /// The ranked knowledge candidates; None = not searched.
    pub(super) candidates: Option<StoreResult<Vec<knowledge::Candidate>>>,
    /// Tokens of candidates' knowledge blocks ([`knowledge::knowledge_block`]), by block,
    /// counted ahead ([`Reads::count_blocks`]); the others are counted when formatted.
    pub(super) block_tokens: HashMap<String, usize>,
    pub(super) errors: Vec<String>,
}

impl Reads {
    /// Counts the tokens of every candidate's knowledge block that may be shown (not in the
    /// memory section). The prefetch does it while the runner still loads the session, so
    /// the model call does not wait for the counting.
    pub(super) fn count_blocks(&mut self, counter: &dyn TokenCounter) {
        let Some(Ok(found)) = &self.candidates else {
            return;
        };
        for c in found.iter().filter(|c| !self.memory.shown.contains(&c.id)) {
            let block = knowledge::knowledge_block(c.kind.name(), &c.id, &c.content);
            let tokens = counter.count(&block);
            self.block_tokens.insert(block, tokens);
        }
    }
}

/// Whether knowledge retrieval can find anything the request does not carry: archived
/// messages, observations, reflections, or history rows beyond the request's own contents
/// (`history_rows`; None = not known yet → only the first three count). An unknown state
/// (failed read) searches; an unknown session does not.
pub(super) fn worth_searching(
    state: Option<Option<MemoryState>>,
    appended: i64,
    history_rows: Option<usize>,
) -> bool {
    match state {
        None => true,
        Some(None) => false,
        Some(Some(st)) => {
            st.has_memory()
                || history_rows.is_some_and(|rows| {
                    st.live_messages + appended > i64::try_from(rows).unwrap_or(i64::MAX)
                })
        }
    }
}

/// The ranked knowledge candidates for `query`: BM25 (the memory's statistics through
/// `options.knowledge_index`), fused with the vector ranking when an embedder is set and the session has
/// vectors (the query is embedded, within its timeout, while the BM25 search runs).
pub(super) async fn search(
    store: &Store,
    key: &str,
    query: &str,
    options: &AssemblyOptions,
    state: Option<Option<MemoryState>>,
) -> StoreResult<Vec<knowledge::Candidate>> {
    let has_vectors = match state {
        Some(Some(st)) => st.vectors > 0,
        Some(None) => false,
        None => true,
    };
    let embed = async {
        match &options.embedder {
            Some(embedder) if has_vectors => embedder.embed(key, query).await,
            _ => None,
        }
    };
    let bm25 = async {
        match state {
            Some(Some(st)) => {
                let index = &options.knowledge_index;
                knowledge::bm25_candidates_in(index, store, key, &st, query).await
            }
            Some(None) => Ok(Vec::new()),
            // The state could not be read: read it again and rank afresh.
            None => knowledge::bm25_candidates(store, key, query).await,
        }
    };
    let (bm25, vector) = tokio::join!(bm25, embed);
    match vector {
        Some(v) => knowledge::with_vector_ranking(store, key, bm25?, &v).await,
        None => bm25,
    }
}

/// Reads what the prompt of session `key` needs:
///
/// 1. the session's memory state (one query: version, history length, what exists);
/// 2. the memory section — from `cache` while the version is unchanged, else read (nothing
///    to read when the session has no observation or reflection);
/// 3. when there is a `query`: the knowledge candidates, only when something outside the
///    request's own contents can be found ([`worth_searching`]).
///
/// The memory section and the search run concurrently.
#[allow(clippy::too_many_arguments)]
pub(super) async fn read(
    store: &Store,
    key: &str,
    query: Option<&str>,
    history_rows: Option<usize>,
    appended: i64,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
    cache: Option<&MemoryCache>,
) -> Reads {
    let mut errors = Vec::new();
    let memory_budget = or_default(options.memory_token_budget, DEFAULT_MEMORY_TOKEN_BUDGET);
    let state: Option<Option<MemoryState>> = match store.memory_state(key).await {
        Ok(state) => Some(state),
        Err(e) => {
            tracing::warn!(session = %key, error = %e, "reading the session's memory state failed");
            errors.push(format!("memory state: {e}"));
            None
        }
    };

    let mut memory_errors = Vec::new();
    let memory = async {
        match state {
            Some(None) => Arc::new(MemorySnapshot::default()),
            Some(Some(st)) if !st.observations && !st.reflections => {
                Arc::new(MemorySnapshot::default())
            }
            Some(Some(st)) => {
                if let Some(hit) = cache.and_then(|c| c.get(key, st.version)) {
                    return hit;
                }
                let snapshot = Arc::new(
                    load_memory(
                        store,
                        key,
                        counter,
                        config,
                        memory_budget,
                        &mut memory_errors,
                    )
                    .await,
                );
                if memory_errors.is_empty() {
                    if let Some(cache) = cache {
                        cache.put(key, st.version, Arc::clone(&snapshot));
                    }
                }
                snapshot
            }
            None => Arc::new(
                load_memory(
                    store,
                    key,
                    counter,
                    config,
                    memory_budget,
                    &mut memory_errors,
                )
                .await,
            ),
        }
    };
    let candidates = async {
        match query {
            Some(q) if worth_searching(state, appended, history_rows) => {
                Some(search(store, key, q, options, state).await)
            }
            _ => None,
        }
    };
    let (memory, candidates) = tokio::join!(memory, candidates);
    errors.append(&mut memory_errors);
    Reads {
        state,
        appended,
        memory,
        candidates,
        block_tokens: HashMap::new(),
        errors,
    }
}
