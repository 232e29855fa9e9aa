//! Context assembly for each model call (REFERENCE §3.8; spec 002 "Context Assembly with
//! Observations", "Configurable memory context limits", "Memory token budgeting in context
//! assembly").
//!
//! [`assemble`] is a pure read: it computes exactly the request the model gets (the desktop's
//! "what the model sees" inspector and `lango memory inspect` call it directly).
//! [`ContextAwareModelAdapter`] is the `Llm` wrapper the runner talks to; it calls
//! [`assemble`] and forwards the result, so the two can never differ.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;

use super::knowledge::{self, DEFAULT_KNOWLEDGE_TOKEN_BUDGET};
use super::knowledge_index::KnowledgeIndex;
use super::runtime_context::RuntimeContext;
use super::settings::MemoryConfig;
use crate::agent::{roles, Content, Llm, LlmRequest, LlmStream, Part, RequestContext};
use crate::provider::Provider;
use crate::store::{MemoryState, Observation, Reflection, Store, StoreResult};
use crate::tokens::{MessageParts, TokenCounter, ToolCallParts};

/// Default memory section budget (spec 002 "Default memory token budget").
pub const DEFAULT_MEMORY_TOKEN_BUDGET: usize = 4000;
pub const MEMORY_HEADING: &str = "## Conversation Memory";

/// Section names in [`SectionInfo`].
pub const SECTION_BASE: &str = "base";
pub const SECTION_KNOWLEDGE: &str = "knowledge";
pub const SECTION_RUNTIME: &str = "runtime";
pub const SECTION_MEMORY: &str = "memory";

fn or_default(budget: usize, default: usize) -> usize {
    if budget == 0 {
        default
    } else {
        budget
    }
}

/// The memory section (REFERENCE §3.8, acceptance 54–55): reflections (oldest first) under
/// `### Summary`, then observations under `### Recent Observations` as `- <obs>` lines.
/// Reflections are walked first, then observations only if `used < budget`; each list stops
/// at the first item with `used + count(content) > budget`. Only contents count. Empty
/// headings are omitted; nothing fits → None. `budget` 0 → 4000.
pub fn memory_section<R: AsRef<str>, O: AsRef<str>>(
    reflections: &[R],
    observations: &[O],
    counter: &dyn TokenCounter,
    budget: usize,
) -> Option<(String, usize)> {
    let fit = fit_memory(reflections, observations, counter, budget);
    fit.text.map(|t| (t, fit.used))
}

struct MemoryFit {
    text: Option<String>,
    used: usize,
    reflections: usize,
    observations: usize,
}

fn fit_memory<R: AsRef<str>, O: AsRef<str>>(
    reflections: &[R],
    observations: &[O],
    counter: &dyn TokenCounter,
    budget: usize,
) -> MemoryFit {
    let budget = or_default(budget, DEFAULT_MEMORY_TOKEN_BUDGET);
    let mut used = 0usize;
    let take = |items: &[&str], used: &mut usize| -> usize {
        let mut n = 0;
        for item in items {
            let cost = counter.count(item);
            if *used + cost > budget {
                break;
            }
            *used += cost;
            n += 1;
        }
        n
    };
    let refl: Vec<&str> = reflections.iter().map(AsRef::as_ref).collect();
    let obs: Vec<&str> = observations.iter().map(AsRef::as_ref).collect();
    let n_refl = take(&refl, &mut used);
    let n_obs = if used < budget {
        take(&obs, &mut used)
    } else {
        0
    };
    if n_refl == 0 && n_obs == 0 {
        return MemoryFit {
            text: None,
            used: 0,
            reflections: 0,
            observations: 0,
        };
    }
    let mut s = format!("{MEMORY_HEADING}\n");
    if n_refl > 0 {
        s.push_str("\n### Summary\n");
        for r in &refl[..n_refl] {
            s.push_str(r);
            s.push('\n');
        }
    }
    if n_obs > 0 {
        s.push_str("\n### Recent Observations\n");
        for o in &obs[..n_obs] {
            s.push_str("- ");
            s.push_str(o);
            s.push('\n');
        }
    }
    MemoryFit {
        text: Some(s),
        used,
        reflections: n_refl,
        observations: n_obs,
    }
}

/// What [`assemble`] may add besides the memory section.
#[derive(Debug, Clone)]
pub struct AssemblyOptions {
    /// Memory section budget in tokens; 0 → 4000.
    pub memory_token_budget: usize,
    /// Add the `## Semantic Context (RAG)` section (and the runtime context, if given).
    pub knowledge: bool,
    /// Knowledge section budget in tokens; 0 → [`DEFAULT_KNOWLEDGE_TOKEN_BUDGET`].
    pub knowledge_token_budget: usize,
    /// Rendered after the knowledge section when `knowledge` is on (the reference served the
    /// runtime context as a knowledge layer).
    pub runtime_context: Option<Arc<RuntimeContext>>,
    /// Embeds the query for hybrid (BM25 + cosine) retrieval; None → BM25 only.
    pub embedder: Option<QueryEmbedder>,
    /// The knowledge ranking's per-session statistics, kept between calls (cheap to clone,
    /// shared by clones): an adapter and the inspector that should show exactly what it
    /// sends use the same one.
    pub knowledge_index: KnowledgeIndex,
}

impl Default for AssemblyOptions {
    fn default() -> Self {
        Self {
            memory_token_budget: DEFAULT_MEMORY_TOKEN_BUDGET,
            knowledge: false,
            knowledge_token_budget: DEFAULT_KNOWLEDGE_TOKEN_BUDGET,
            runtime_context: None,
            embedder: None,
            knowledge_index: KnowledgeIndex::default(),
        }
    }
}

impl AssemblyOptions {
    pub fn with_memory_token_budget(budget: usize) -> Self {
        Self {
            memory_token_budget: budget,
            ..Self::default()
        }
    }
}

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

/// One part of the system prompt as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// `base`, `knowledge`, `runtime` or `memory`.
    pub name: String,
    /// Base/runtime: tokens of the text. Knowledge/memory: the tokens charged against the
    /// budget (item contents/blocks; headings are not charged).
    pub tokens: usize,
    pub budget: Option<usize>,
}

/// Exactly what goes to the model for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledRequest {
    /// The session key resolved from the call context (None → nothing was read).
    pub session_key: Option<String>,
    /// The system instruction as sent (the request's own, possibly extended).
    pub system_instruction: Option<Content>,
    /// Its text as the providers see it (text parts joined with `\n`).
    pub system_prompt: String,
    /// Base first, then each added section in prompt order.
    pub sections: Vec<SectionInfo>,
    /// The recent messages, unchanged.
    pub contents: Vec<Content>,
    /// Σ message cost of `contents` (REFERENCE §3.2).
    pub history_tokens: usize,
    /// True when a section was added; false → the request goes out byte for byte unchanged.
    pub changed: bool,
    /// Retrieval failures (logged, not fatal; the inspector shows them).
    pub errors: Vec<String>,
}

impl AssembledRequest {
    /// `request` with the assembled system instruction (untouched when nothing was added).
    pub fn apply(&self, mut request: LlmRequest) -> LlmRequest {
        if self.changed {
            request.config.system_instruction = self.system_instruction.clone();
        }
        request
    }
}

/// The instruction text as providers see it: non-thought, non-empty text parts joined by `\n`.
fn instruction_text(instruction: Option<&Content>) -> String {
    instruction
        .map(|c| {
            c.parts
                .iter()
                .filter(|p| !p.thought)
                .filter_map(|p| p.text.as_deref())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Appends `added` to the request's OWN instruction (REFERENCE §3.8 [FIX]): onto its last
/// text part, else as a new part, else as a new system instruction.
fn extend_instruction(instruction: Option<&Content>, added: &str) -> Content {
    let mut content = instruction
        .cloned()
        .unwrap_or_else(|| Content::new(roles::SYSTEM, Vec::new()));
    let last_text = content
        .parts
        .iter_mut()
        .rev()
        .find(|p| !p.thought && p.text.as_deref().is_some_and(|t| !t.is_empty()));
    match last_text {
        Some(part) => part.text.get_or_insert_with(String::new).push_str(added),
        None => content
            .parts
            .push(Part::text(added.trim_start_matches('\n'))),
    }
    content
}

fn history_tokens(contents: &[Content], counter: &dyn TokenCounter) -> usize {
    contents
        .iter()
        .map(|c| {
            let text = c.text();
            let calls: Vec<(String, String, String, String)> = c
                .parts
                .iter()
                .filter_map(|p| {
                    if let Some(fc) = &p.function_call {
                        Some((
                            fc.id.clone(),
                            fc.name.clone(),
                            serde_json::Value::Object(fc.args.clone()).to_string(),
                            String::new(),
                        ))
                    } else {
                        p.function_response.as_ref().map(|fr| {
                            (
                                fr.id.clone(),
                                fr.name.clone(),
                                String::new(),
                                serde_json::Value::Object(fr.response.clone()).to_string(),
                            )
                        })
                    }
                })
                .collect();
            counter.message_cost(&MessageParts {
                content: &text,
                tool_calls: calls
                    .iter()
                    .map(|(id, name, input, output)| ToolCallParts {
                        id,
                        name,
                        input,
                        output,
                    })
                    .collect(),
            })
        })
        .sum()
}

/// The memory section of one session as assembled from the store. Depends only on the
/// session's observations and reflections (and the adapter's fixed limits, budget and
/// counter), so it is reused while the session's memory version is unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
struct MemorySnapshot {
    text: Option<String>,
    used: usize,
    /// Ids of the items in the section: the knowledge section does not repeat them.
    shown: HashSet<String>,
}

/// Memory sections by session, each valid for one memory version (`Store::memory_state`).
#[derive(Debug, Default)]
struct MemoryCache {
    entries: Mutex<HashMap<String, (i64, Arc<MemorySnapshot>)>>,
}

/// Sessions kept in a [`MemoryCache`]; beyond that it starts over (a desktop has a handful of
/// conversations open at most).
const MEMORY_CACHE_SESSIONS: usize = 256;

impl MemoryCache {
    fn get(&self, key: &str, version: i64) -> Option<Arc<MemorySnapshot>> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(key)
            .filter(|(v, _)| *v == version)
            .map(|(_, snapshot)| Arc::clone(snapshot))
    }

    fn put(&self, key: &str, version: i64, snapshot: Arc<MemorySnapshot>) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MEMORY_CACHE_SESSIONS && !entries.contains_key(key) {
                entries.clear();
            }
            entries.insert(key.to_owned(), (version, snapshot));
        }
    }
}

/// Reads the session's recent reflections and observations and fits the memory section.
/// Failures are logged, recorded in `errors` and leave their list out.
async fn load_memory(
    store: &Store,
    key: &str,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    budget: usize,
    errors: &mut Vec<String>,
) -> MemorySnapshot {
    let (reflections, observations) = tokio::join!(
        store.list_recent_reflections(key, config.max_reflections_in_context),
        store.list_recent_observations(key, config.max_observations_in_context),
    );
    let reflections: Vec<Reflection> = reflections.unwrap_or_else(|e| {
        tracing::warn!(session = %key, error = %e, "loading reflections for the prompt failed");
        errors.push(format!("reflections: {e}"));
        Vec::new()
    });
    let observations: Vec<Observation> = observations.unwrap_or_else(|e| {
        tracing::warn!(session = %key, error = %e, "loading observations for the prompt failed");
        errors.push(format!("observations: {e}"));
        Vec::new()
    });
    let refl_texts: Vec<&str> = reflections.iter().map(|r| r.content.as_str()).collect();
    let obs_texts: Vec<&str> = observations.iter().map(|o| o.content.as_str()).collect();
    let fit = fit_memory(&refl_texts, &obs_texts, counter, budget);
    MemorySnapshot {
        shown: reflections[..fit.reflections]
            .iter()
            .map(|r| r.id.clone())
            .chain(
                observations[..fit.observations]
                    .iter()
                    .map(|o| o.id.clone()),
            )
            .collect(),
        text: fit.text,
        used: fit.used,
    }
}

/// What context assembly adds to one request's system instruction, in prompt order, with
/// the retrieval failures (logged, not fatal).
#[derive(Debug, Default)]
struct Additions {
    /// `(section name, text, tokens, budget)`.
    sections: Vec<(&'static str, String, usize, Option<usize>)>,
    errors: Vec<String>,
}

/// What context assembly read from the store for one call of session `key`.
#[derive(Debug)]
struct Reads {
    /// None: unknown (the read failed) → everything was read, nothing cached.
    state: Option<Option<MemoryState>>,
    /// History rows appended after `state` was read (1 when read at the start of the turn,
    /// before the user's message was stored).
    appended: i64,
    memory: Arc<MemorySnapshot>,
    /// The ranked knowledge candidates; None = not searched.
    candidates: Option<StoreResult<Vec<knowledge::Candidate>>>,
    errors: Vec<String>,
}

/// Whether knowledge retrieval can find anything the request does not carry: archived
/// messages, observations, reflections, or history rows beyond the request's own contents
/// (`history_rows`; None = not known yet → only the first three count). An unknown state
/// (failed read) searches; an unknown session does not.
fn worth_searching(
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
async fn search(
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
async fn read(
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
        errors,
    }
}

/// Turns what was read into the sections added to `request`'s instruction, in prompt order.
/// A search the reads skipped but the request needs (history rows beyond its contents, only
/// known now) is done here. `count_runtime` → the runtime section's tokens are counted (the
/// inspector shows them).
async fn finish(
    store: &Store,
    key: &str,
    request: &LlmRequest,
    reads: Reads,
    counter: &dyn TokenCounter,
    options: &AssemblyOptions,
    count_runtime: bool,
) -> Additions {
    let mut out = Additions {
        sections: Vec::new(),
        errors: reads.errors,
    };
    let memory_budget = or_default(options.memory_token_budget, DEFAULT_MEMORY_TOKEN_BUDGET);
    if options.knowledge {
        let knowledge_budget = or_default(
            options.knowledge_token_budget,
            DEFAULT_KNOWLEDGE_TOKEN_BUDGET,
        );
        let candidates = match reads.candidates {
            Some(found) => Some(found),
            None => match knowledge::rag_query(&request.contents) {
                Some(q)
                    if worth_searching(
                        reads.state,
                        reads.appended,
                        Some(request.contents.len()),
                    ) =>
                {
                    Some(search(store, key, q, options, reads.state).await)
                }
                _ => None,
            },
        };
        let candidates = match candidates {
            Some(Ok(found)) => found,
            Some(Err(e)) => {
                tracing::warn!(session = %key, error = %e, "knowledge retrieval failed");
                out.errors.push(format!("knowledge: {e}"));
                Vec::new()
            }
            None => Vec::new(),
        };
        if !candidates.is_empty() {
            let visible: Vec<String> = request.contents.iter().map(Content::text).collect();
            // Items already in the memory section are not repeated.
            let items: Vec<_> = knowledge::select(&candidates, &visible, &HashSet::new())
                .into_iter()
                .filter(|i| !reads.memory.shown.contains(&i.id))
                .collect();
            if let Some((text, used)) =
                knowledge::format_knowledge(&items, counter, knowledge_budget)
            {
                out.sections
                    .push((SECTION_KNOWLEDGE, text, used, Some(knowledge_budget)));
            }
        }
        if let Some(rc) = &options.runtime_context {
            let text = rc.render();
            let tokens = if count_runtime {
                counter.count(&text)
            } else {
                0
            };
            out.sections.push((SECTION_RUNTIME, text, tokens, None));
        }
    }
    if let Some(text) = &reads.memory.text {
        out.sections.push((
            SECTION_MEMORY,
            text.clone(),
            reads.memory.used,
            Some(memory_budget),
        ));
    }
    out
}

/// [`read`] then [`finish`] for one request, nothing prefetched.
#[allow(clippy::too_many_arguments)]
async fn additions(
    store: &Store,
    key: &str,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
    cache: Option<&MemoryCache>,
    count_runtime: bool,
) -> Additions {
    let query = if options.knowledge {
        knowledge::rag_query(&request.contents)
    } else {
        None
    };
    let reads = read(
        store,
        key,
        query,
        Some(request.contents.len()),
        0,
        counter,
        config,
        options,
        cache,
    )
    .await;
    finish(store, key, request, reads, counter, options, count_runtime).await
}

/// The sections joined as appended to the instruction: `"\n\n" + section` each.
fn suffix(additions: &Additions) -> String {
    let mut suffix = String::new();
    for (_, text, _, _) in &additions.sections {
        suffix.push_str("\n\n");
        suffix.push_str(text);
    }
    suffix
}

/// Computes what the model gets for `request` in session `key` without sending anything:
/// base prompt → knowledge/RAG (+ runtime context) → memory section, each appended as
/// `"\n\n" + section` onto the request's own instruction. No key → no store access and the
/// request unchanged. The memory section and the knowledge retrieval are read concurrently;
/// failures are logged and leave their section out.
pub async fn assemble(
    store: &Store,
    key: Option<&str>,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
) -> AssembledRequest {
    assemble_cached(store, key, request, counter, config, options, None).await
}

async fn assemble_cached(
    store: &Store,
    key: Option<&str>,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
    cache: Option<&MemoryCache>,
) -> AssembledRequest {
    let instruction = request.config.system_instruction.as_ref();
    let base = instruction_text(instruction);
    let mut assembled = AssembledRequest {
        session_key: key.map(str::to_owned),
        system_instruction: instruction.cloned(),
        system_prompt: base.clone(),
        sections: vec![SectionInfo {
            name: SECTION_BASE.to_owned(),
            tokens: counter.count(&base),
            budget: None,
        }],
        contents: request.contents.clone(),
        history_tokens: history_tokens(&request.contents, counter),
        changed: false,
        errors: Vec::new(),
    };
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return assembled;
    };
    let added = additions(store, key, request, counter, config, options, cache, true).await;
    assembled.errors = added.errors.clone();
    if added.sections.is_empty() {
        return assembled;
    }
    let extended = extend_instruction(instruction, &suffix(&added));
    for (name, _, tokens, budget) in added.sections {
        assembled.sections.push(SectionInfo {
            name: name.to_owned(),
            tokens,
            budget,
        });
    }
    assembled.system_prompt = instruction_text(Some(&extended));
    assembled.system_instruction = Some(extended);
    assembled.changed = true;
    assembled
}

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
            read(
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
            .await
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
