//! The model adapter: the `Llm` wrapper the runner talks to when memory is on; it
//! assembles each call's prompt and prefetches the turn's reads when the turn starts.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;

use super::assembly::{
    additions, assemble_cached, extend_instruction, finish, suffix, AssembledRequest,
    AssemblyOptions,
};
use super::cache::MemoryCache;
use super::embedder::QueryEmbedder;
use super::or_default;
use super::repeats::without_carried;
use super::retrieval::{read, Reads};
use super::section::DEFAULT_MEMORY_TOKEN_BUDGET;
use crate::agent::{Llm, LlmRequest, LlmStream, RequestContext};
use crate::memory::knowledge::{self, DEFAULT_KNOWLEDGE_TOKEN_BUDGET};
use crate::memory::knowledge_index::KnowledgeIndex;
use crate::memory::runtime_context::RuntimeContext;
use crate::memory::settings::MemoryConfig;
use crate::store::Store;
use crate::tokens::TokenCounter;

/// The `Llm` the runner uses when memory is on: resolves the session key from each call's
/// context, assembles the prompt like [`assemble`] and forwards to the inner model.
///
/// On the send path it does only what changes the request: the memory section is kept per
/// session and reused until the session's memory version changes (an observation or
/// reflection saved, edited or deleted, messages archived — by any process), so a call costs
/// one small query when the session has nothing to retrieve, plus one search when it has.
#[derive(Debug)]
pub struct ContextAwareModelAdapter {
    inner: Arc<dyn Llm>,
    store: Store,
    counter: Arc<dyn TokenCounter>,
    config: MemoryConfig,
    options: AssemblyOptions,
    runtime: Arc<RuntimeContext>,
    failures: Arc<AtomicU64>,
    cache: Arc<MemoryCache>,
    /// Reads started by [`Llm::prefetch`] at the start of a turn, by session key.
    prefetches: Arc<Mutex<HashMap<String, Prefetch>>>,
}

/// Reads started when a turn began, for its first model call.
#[derive(Debug)]
struct Prefetch {
    /// The retrieval query they were started for (None: no knowledge search).
    query: Option<String>,
    started: std::time::Instant,
    task: tokio::task::JoinHandle<Reads>,
}

/// A prefetch older than this is not used (its turn never called the model).
const PREFETCH_TTL: Duration = Duration::from_secs(30);

impl ContextAwareModelAdapter {
    /// Memory budget = `config.memory_token_budget` (0 → 4000, the default config's value);
    /// knowledge off.
    pub fn new(
        inner: Arc<dyn Llm>,
        store: Store,
        counter: Arc<dyn TokenCounter>,
        config: MemoryConfig,
    ) -> Self {
        let runtime = Arc::new(RuntimeContext::new(false, false, true));
        Self {
            inner,
            store,
            counter,
            options: AssemblyOptions {
                memory_token_budget: or_default(
                    config.memory_token_budget,
                    DEFAULT_MEMORY_TOKEN_BUDGET,
                ),
                runtime_context: Some(Arc::clone(&runtime)),
                ..AssemblyOptions::default()
            },
            config,
            runtime,
            failures: Arc::new(AtomicU64::new(0)),
            cache: Arc::new(MemoryCache::default()),
            prefetches: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// A positive budget replaces the default 4000; 0 keeps the default.
    pub fn with_memory_token_budget(mut self, budget: usize) -> Self {
        self.options.memory_token_budget = or_default(budget, DEFAULT_MEMORY_TOKEN_BUDGET);
        self.cache = Arc::new(MemoryCache::default());
        self
    }

    /// Adds the knowledge (RAG) section and the runtime context to every prompt.
    pub fn with_knowledge(mut self, on: bool) -> Self {
        self.options.knowledge = on;
        self.runtime.set_knowledge(on);
        self
    }

    /// 0 → [`DEFAULT_KNOWLEDGE_TOKEN_BUDGET`].
    pub fn with_knowledge_token_budget(mut self, budget: usize) -> Self {
        self.options.knowledge_token_budget = or_default(budget, DEFAULT_KNOWLEDGE_TOKEN_BUDGET);
        self
    }

    /// Makes knowledge retrieval hybrid (BM25 + cosine over the session's vectors): each
    /// query is embedded with `embedder`, within its timeout, else BM25 alone.
    pub fn with_embedder(mut self, embedder: QueryEmbedder) -> Self {
        self.options.embedder = Some(embedder);
        self
    }

    /// Shares the knowledge ranking's statistics (e.g. with the inspector) instead of the
    /// adapter's own.
    pub fn with_knowledge_index(mut self, index: KnowledgeIndex) -> Self {
        self.options.knowledge_index = index;
        self
    }

    /// Shares a runtime context (e.g. with tools or the UI) instead of the adapter's own.
    pub fn with_runtime_context(mut self, runtime: Arc<RuntimeContext>) -> Self {
        runtime.set_knowledge(self.options.knowledge);
        runtime.set_memory(true);
        self.options.runtime_context = Some(Arc::clone(&runtime));
        self.runtime = runtime;
        self
    }

    pub fn runtime_context(&self) -> &Arc<RuntimeContext> {
        &self.runtime
    }

    pub fn memory_token_budget(&self) -> usize {
        self.options.memory_token_budget
    }

    pub fn options(&self) -> &AssemblyOptions {
        &self.options
    }

    pub fn config(&self) -> &MemoryConfig {
        &self.config
    }

    /// Retrievals that failed so far (each was logged; the call went on without it).
    pub fn retrieval_failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    /// Queries whose embedding failed or timed out, so retrieval used BM25 alone.
    pub fn embedding_fallbacks(&self) -> u64 {
        self.options
            .embedder
            .as_ref()
            .map_or(0, QueryEmbedder::fallbacks)
    }

    /// The prefetch of session `key` if it was started for `query` and is recent; any other
    /// prefetch of the session is dropped (a prefetch serves one call).
    fn take_prefetch(&self, key: &str, query: Option<&str>) -> Option<Prefetch> {
        let found = self.prefetches.lock().ok()?.remove(key)?;
        if found.query.as_deref() == query && found.started.elapsed() < PREFETCH_TTL {
            Some(found)
        } else {
            found.task.abort();
            None
        }
    }

    /// What [`Llm::generate_content`] would send for this call, without sending it.
    pub async fn assemble(&self, ctx: &RequestContext, request: &LlmRequest) -> AssembledRequest {
        assemble_cached(
            &self.store,
            ctx.session_key(),
            request,
            self.counter.as_ref(),
            &self.config,
            &self.options,
            Some(&self.cache),
        )
        .await
    }
}

impl Llm for ContextAwareModelAdapter {
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Starts the turn's reads (memory state, memory section, knowledge search and the
    /// query's embedding) while the runner loads the session and stores the user's message;
    /// the turn's first call uses them. The search then cannot see the user's message itself,
    /// which it would leave out anyway (the model already has it).
    fn prefetch(&self, ctx: &RequestContext, user_text: &str) {
        let Some(key) = ctx.session_key().map(str::to_owned) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // The query the first call will have: the text of the user's new message.
        let query =
            (self.options.knowledge && !user_text.trim().is_empty()).then(|| user_text.to_owned());
        let store = self.store.clone();
        let counter = Arc::clone(&self.counter);
        let config = self.config.clone();
        let options = self.options.clone();
        let cache = Arc::clone(&self.cache);
        let task_key = key.clone();
        let task_query = query.clone();
        let task = runtime.spawn(async move {
            let mut reads = read(
                &store,
                &task_key,
                task_query.as_deref(),
                None,
                1,
                counter.as_ref(),
                &config,
                &options,
                Some(&cache),
            )
            .await;
            reads.count_blocks(counter.as_ref());
            reads
        });
        let prefetch = Prefetch {
            query,
            started: std::time::Instant::now(),
            task,
        };
        if let Ok(mut prefetches) = self.prefetches.lock() {
            if let Some(old) = prefetches.insert(key, prefetch) {
                old.task.abort();
            }
        }
    }

    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream {
        let Some(key) = ctx.session_key().map(str::to_owned) else {
            return self.inner.generate_content(ctx, request, stream);
        };
        self.runtime.set_session(&key);
        self.runtime.set_tool_count(request.config.tools.len());
        let query = if self.options.knowledge {
            knowledge::rag_query(&request.contents)
        } else {
            None
        };
        let prefetched = self.take_prefetch(&key, query);

        let inner = Arc::clone(&self.inner);
        let store = self.store.clone();
        let counter = Arc::clone(&self.counter);
        let config = self.config.clone();
        let options = self.options.clone();
        let failures = Arc::clone(&self.failures);
        let cache = Arc::clone(&self.cache);
        let ctx = ctx.clone();
        Box::pin(
            futures_util::stream::once(async move {
                let reads = match prefetched {
                    Some(p) => p.task.await.ok(),
                    None => None,
                };
                let added = match reads {
                    Some(reads) => {
                        finish(
                            &store,
                            &key,
                            &request,
                            reads,
                            counter.as_ref(),
                            &options,
                            false,
                        )
                        .await
                    }
                    None => {
                        additions(
                            &store,
                            &key,
                            &request,
                            counter.as_ref(),
                            &config,
                            &options,
                            Some(&cache),
                            false,
                        )
                        .await
                    }
                };
                if !added.errors.is_empty() {
                    failures.fetch_add(added.errors.len() as u64, Ordering::Relaxed);
                }
                let mut request = request;
                if let Some((contents, _)) = without_carried(
                    &request.contents,
                    &added.carried_summaries,
                    counter.as_ref(),
                ) {
                    request.contents = contents;
                }
                if !added.sections.is_empty() {
                    request.config.system_instruction = Some(extend_instruction(
                        request.config.system_instruction.as_ref(),
                        &suffix(&added),
                    ));
                }
                inner.generate_content(&ctx, request, stream)
            })
            .flatten(),
        )
    }
}
