//! One memory cycle for one session (REFERENCE §3.5 "per trigger"): observe, then reflect,
//! then meta-reflect, each only when its threshold is reached. Up to three sequential model
//! calls. Failures are logged and never reach the user's turn; the background buffer calls
//! [`MemoryCycle::run`] once per trigger. What a cycle hands to the embedding and graph
//! buffers is `feeds`'s.

mod feeds;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use super::embedding::EmbeddingBuffer;
use super::graph::GraphBuffer;
use super::observer::Observer;
use super::reflector::{Condensed, Reflector};
use super::{MemoryError, MemoryEvent, MemoryPhase, MemoryStatus};
use crate::store::{MemoryFailure, Observation, Store};
use feeds::EmbedProgress;

/// What one [`MemoryCycle::run`] did. Failures were logged; they are reported here for tests
/// and diagnostics only.
#[derive(Debug, Default)]
pub struct CycleReport {
    pub observation: Option<Observation>,
    pub reflection: Option<Condensed>,
    pub meta_reflection: Option<Condensed>,
    /// The observer failed (model error, empty reply, store error): the cycle ended there.
    pub observe_error: Option<String>,
    pub reflect_error: Option<String>,
    pub meta_reflect_error: Option<String>,
}

/// The observer and reflector of one store, with the compaction switch (spec 002
/// `SetCompactor`) and an optional event channel for the UI.
#[derive(Debug)]
pub struct MemoryCycle {
    observer: Observer,
    reflector: Reflector,
    store: Store,
    /// The "compactor": when on, the rows an observation covers move to the archive behind a
    /// summary in the observation's transaction. Off → every row stays in the history.
    compact: bool,
    events: Option<broadcast::Sender<MemoryEvent>>,
    /// Records the REFERENCE §3.9 triples of what this cycle saves (for the memory graph).
    graph: Option<GraphBuffer>,
    /// Embeds new messages, observations and reflections (hybrid knowledge retrieval).
    embeddings: Option<Arc<EmbeddingBuffer>>,
    /// Per session: what was handed to the embedding buffer and may not be saved yet.
    embedded: Mutex<HashMap<String, EmbedProgress>>,
    empty_replies: AtomicU64,
    /// Sessions with a cycle in progress and its phase.
    phases: Mutex<HashMap<String, MemoryPhase>>,
    /// Why the memory cannot run at all (its provider could not be built), and since when:
    /// every cycle is skipped and the status says so.
    problem: Option<MemoryFailure>,
}

impl MemoryCycle {
    /// Compaction off, no events.
    pub fn new(observer: Observer, reflector: Reflector, store: Store) -> Self {
        Self {
            observer,
            reflector,
            store,
            compact: false,
            events: None,
            graph: None,
            embeddings: None,
            embedded: Mutex::new(HashMap::new()),
            empty_replies: AtomicU64::new(0),
            phases: Mutex::new(HashMap::new()),
            problem: None,
        }
    }

    /// The memory cannot run (e.g. its provider has no API key): cycles do nothing but
    /// record `problem` as the session's failure, and the status reports it.
    pub fn with_problem(mut self, problem: impl Into<String>) -> Self {
        self.problem = Some(MemoryFailure {
            error: problem.into(),
            failed_at: chrono::Utc::now().timestamp_millis(),
        });
        self
    }

    /// Builder form of [`MemoryCycle::set_compactor`].
    pub fn with_compactor(mut self, compact: bool) -> Self {
        self.compact = compact;
        self
    }

    /// Spec 002 `SetCompactor`: on → observed rows are compacted (REFERENCE §3.6); off → rows
    /// stay and only the cursor moves.
    pub fn set_compactor(&mut self, compact: bool) {
        self.compact = compact;
    }

    pub fn compactor(&self) -> bool {
        self.compact
    }

    /// Records the triples of every saved observation and reflection in `graph`.
    pub fn with_graph(mut self, graph: GraphBuffer) -> Self {
        self.graph = Some(graph);
        self
    }

    /// Embeds what the session gains: at the start of every cycle its messages (and any
    /// observation or reflection) without a vector, and each observation and reflection as
    /// it is saved. The vectors feed hybrid knowledge retrieval.
    pub fn with_embeddings(mut self, embeddings: Arc<EmbeddingBuffer>) -> Self {
        self.embeddings = Some(embeddings);
        self
    }

    pub fn embeddings(&self) -> Option<&Arc<EmbeddingBuffer>> {
        self.embeddings.as_ref()
    }

    /// Stops the graph and embedding buffers (flushing what they hold), if there are any.
    pub async fn shutdown(&self) {
        if let Some(graph) = &self.graph {
            graph.shutdown().await;
        }
        if let Some(embeddings) = &self.embeddings {
            embeddings.shutdown().await;
        }
    }

    /// Where `Status`, `ObservationAdded` and `ReflectionAdded` events go.
    pub fn with_events(mut self, events: broadcast::Sender<MemoryEvent>) -> Self {
        self.events = Some(events);
        self
    }

    pub fn set_events(&mut self, events: Option<broadcast::Sender<MemoryEvent>>) {
        self.events = events;
    }

    pub fn observer(&self) -> &Observer {
        &self.observer
    }

    pub fn reflector(&self) -> &Reflector {
        &self.reflector
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// How many observer replies were empty (nothing saved, retried next trigger).
    pub fn empty_replies(&self) -> u64 {
        self.empty_replies.load(Ordering::Relaxed)
    }

    /// One trigger for `key` (REFERENCE §3.5):
    /// 1. un-observed cost ≥ `messageTokenThreshold` → observe; a failure is logged and ends
    ///    the cycle (retried on the next trigger);
    /// 2. Σ observation tokens ≥ `observationTokenThreshold` → reflect (errors logged);
    /// 3. reflection count ≥ `reflectionConsolidationThreshold` (at least 2) → meta-reflect
    ///    (errors logged, non-fatal).
    ///
    /// With embeddings on, it first queues the session's texts that have no vector yet
    /// (cheap: one read, never a model call).
    pub async fn run(&self, key: &str) -> CycleReport {
        let mut report = CycleReport::default();
        if let Some(problem) = &self.problem {
            report.observe_error = Some(problem.error.clone());
            if let Err(e) = self.store.record_memory_failure(key, &problem.error).await {
                tracing::debug!(session = key, error = %e, "memory: could not keep the failure");
            }
            self.emit_status(key).await;
            return report;
        }
        self.embed_pending(key).await;
        self.steps(key, &mut report).await;
        self.remember_outcome(key, &report).await;
        // Keeps knowledge retrieval (a full-text search before every model call) fast: the
        // turn just added messages; the notes' indexes change only when a note was saved.
        let notes = report.observation.is_some()
            || report.reflection.is_some()
            || report.meta_reflection.is_some();
        if let Err(e) = self.store.tidy_search_index(notes).await {
            tracing::debug!(error = %e, "memory: tidying the search index failed");
        }
        self.set_phase(key, None);
        self.emit_status(key).await;
        report
    }

    async fn steps(&self, key: &str, report: &mut CycleReport) {
        let config = &self.observer.config;

        // 1. Observe.
        match self.observer.unobserved(&self.store, key).await {
            Err(e) => {
                tracing::warn!(session = key, error = %e, "memory: could not load the messages; cycle skipped");
                report.observe_error = Some(e.to_string());
                return;
            }
            Ok(u) if !u.messages.is_empty() && u.tokens >= config.message_token_threshold => {
                self.set_phase(key, Some(MemoryPhase::Observing));
                self.emit_status(key).await;
                match self.observer.observe(&self.store, key, self.compact).await {
                    Ok(Some(observation)) => {
                        self.graph_observation(key, &observation).await;
                        self.embed_saved(key, "observation", &observation.id, &observation.content);
                        self.emit(MemoryEvent::ObservationAdded(observation.clone()));
                        report.observation = Some(observation);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        if matches!(e, MemoryError::EmptyReply) {
                            let total = self.empty_replies.fetch_add(1, Ordering::Relaxed) + 1;
                            tracing::warn!(session = key, empty_replies = total,
                                "memory: the observer returned an empty reply; nothing saved, retrying on the next trigger");
                        } else {
                            tracing::warn!(session = key, error = %e,
                                "memory: observation failed; continuing with the raw history, retrying on the next trigger");
                        }
                        report.observe_error = Some(e.to_string());
                        return;
                    }
                }
            }
            Ok(_) => {}
        }

        // 2. Reflect.
        match self.store.list_observations(key).await {
            Err(e) => {
                tracing::warn!(session = key, error = %e, "memory: could not list observations");
                report.reflect_error = Some(e.to_string());
            }
            Ok(observations) => {
                let total: i64 = observations.iter().map(|o| o.token_count.max(0)).sum();
                let total = usize::try_from(total).unwrap_or(usize::MAX);
                if !observations.is_empty() && total >= config.observation_token_threshold {
                    self.set_phase(key, Some(MemoryPhase::Reflecting));
                    self.emit_status(key).await;
                    match self.reflector.reflect(&self.store, key).await {
                        Ok(Some(done)) => {
                            self.reflection_saved(key, &done, false);
                            report.reflection = Some(done);
                        }
                        Ok(None) => {}
                        Err(e) => {
                            tracing::warn!(session = key, error = %e, "memory: reflection failed");
                            report.reflect_error = Some(e.to_string());
                        }
                    }
                }
            }
        }

        // 3. Meta-reflect.
        let threshold = config.reflection_consolidation_threshold.max(2);
        match self.store.list_reflections(key).await {
            Err(e) => {
                tracing::warn!(session = key, error = %e, "memory: could not list reflections");
                report.meta_reflect_error = Some(e.to_string());
            }
            Ok(reflections) if reflections.len() >= threshold => {
                self.set_phase(key, Some(MemoryPhase::Reflecting));
                self.emit_status(key).await;
                match self.reflector.meta_reflect(&self.store, key).await {
                    Ok(Some(done)) => {
                        self.reflection_saved(key, &done, true);
                        report.meta_reflection = Some(done);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!(session = key, error = %e,
                            "memory: meta-reflection failed; the reflections stay as they are");
                        report.meta_reflect_error = Some(e.to_string());
                    }
                }
            }
            Ok(_) => {}
        }
    }

    /// A reflection (or meta-reflection) was saved: its triples to the graph, its text to the
    /// embedding queue, and the event to the UI.
    fn reflection_saved(&self, key: &str, done: &Condensed, meta: bool) {
        self.graph_reflection(key, done, meta);
        self.embed_saved(
            key,
            "reflection",
            &done.reflection.id,
            &done.reflection.content,
        );
        self.emit(MemoryEvent::ReflectionAdded {
            reflection: done.reflection.clone(),
            condensed: done.condensed(),
        });
    }

    /// Keeps the cycle's first failure in the store for `memory status` (any process), or
    /// forgets an earlier one when this cycle failed nowhere.
    async fn remember_outcome(&self, key: &str, report: &CycleReport) {
        let failed = [
            ("observing", &report.observe_error),
            ("reflecting", &report.reflect_error),
            ("condensing reflections", &report.meta_reflect_error),
        ]
        .into_iter()
        .find_map(|(what, e)| e.as_ref().map(|e| format!("{what}: {e}")));
        let outcome = match failed {
            Some(error) => self.store.record_memory_failure(key, &error).await,
            None => match self.store.memory_failure(key).await {
                Ok(Some(_)) => self.store.clear_memory_failure(key).await,
                other => other.map(|_| ()),
            },
        };
        if let Err(e) = outcome {
            tracing::debug!(session = key, error = %e, "memory: could not keep the cycle's outcome");
        }
    }

    /// The session's memory progress, computed from the store; the phase is the running
    /// cycle's, else idle.
    pub async fn status(&self, key: &str) -> Result<MemoryStatus, MemoryError> {
        let unobserved = self.observer.unobserved(&self.store, key).await?;
        let observations = self.store.list_observations(key).await?;
        let reflections = self.store.list_reflections(key).await?;
        let last_error = match &self.problem {
            Some(problem) => Some(problem.clone()),
            None => self.store.memory_failure(key).await?,
        };
        let observation_tokens: i64 = observations.iter().map(|o| o.token_count.max(0)).sum();
        let phase = self
            .phases
            .lock()
            .map(|p| p.get(key).copied())
            .unwrap_or(None)
            .unwrap_or(MemoryPhase::Idle);
        Ok(MemoryStatus {
            session_key: key.to_string(),
            phase,
            unobserved_tokens: unobserved.tokens,
            message_token_threshold: self.observer.config.message_token_threshold,
            observation_tokens: usize::try_from(observation_tokens).unwrap_or(usize::MAX),
            observation_token_threshold: self.observer.config.observation_token_threshold,
            observations: observations.len(),
            reflections: reflections.len(),
            last_error,
        })
    }

    fn set_phase(&self, key: &str, phase: Option<MemoryPhase>) {
        if let Ok(mut phases) = self.phases.lock() {
            match phase {
                Some(p) => {
                    phases.insert(key.to_string(), p);
                }
                None => {
                    phases.remove(key);
                }
            }
        }
    }

    async fn emit_status(&self, key: &str) {
        if self.events.is_none() {
            return;
        }
        match self.status(key).await {
            Ok(status) => self.emit(MemoryEvent::Status(status)),
            Err(e) => tracing::debug!(session = key, error = %e, "memory: no status to report"),
        }
    }

    fn emit(&self, event: MemoryEvent) {
        if let Some(events) = &self.events {
            // No receiver is fine: nobody is watching.
            let _ = events.send(event);
        }
    }
}
