//! Start-up wiring: from the settings file to a ready agent runner. The one place that
//! decides how the configured pieces fit together, shared by the desktop shell and the CLI.
//!
//! Owns only assembly (spec 000 "Agent Initialization"): settings → provider (with its key)
//! → model adapter → root agent with the built-in tools → session service with the history
//! budget (`model_token_budget`, or `min(maxMessageTokenBudget, that)` with memory on,
//! REFERENCE §2.5 [FIX]). It must not contain behaviour of its own.

mod models;
mod tool_definitions;

use std::sync::Arc;

use crate::agent::model_adapter::ModelAdapter;
use crate::agent::runner::{Agent, Runner};
use crate::agent::session::{history_token_budget, SessionServiceAdapter};
use crate::agent::tools::{builtin_tools, OutputCap};
use crate::agent::Toolset;
use crate::agent::DEFAULT_AGENT_NAME;
use crate::config::{self, ConfigError, Settings};
use crate::memory::buffer::MemoryBuffer;
use crate::memory::context::{
    ContextAwareModelAdapter, QueryEmbedder, DEFAULT_QUERY_EMBEDDING_TIMEOUT,
};
use crate::memory::cycle::MemoryCycle;
use crate::memory::embedding::EmbeddingBuffer;
use crate::memory::graph::GraphBuffer;
use crate::memory::knowledge_index::KnowledgeIndex;
use crate::memory::observer::Observer;
use crate::memory::reflector::Reflector;
use crate::memory::{MemoryConfig, MemoryEvent};
use crate::paths::AppPaths;
use crate::provider::http::HttpSettings;
use crate::provider::{registry, ProviderError};
use crate::secrets::SecretStore;
use crate::store::{Store, StoreError};
use crate::tools::mcp::{McpHub, ServerOptions};
use models::{chat_router, embedder, memory_provider_problem, observer_llm, secret_store};
pub use models::{check_images, turn_settings};
pub use tool_definitions::ToolDefinitions;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// First run: nothing to talk to yet. Not a failure of the user's data.
    #[error("no provider is configured yet: add one under \"providers\" in {settings} (or in the desktop app's Settings) and select it as agent.provider")]
    NoProvider { settings: String },
}

/// Everything a conversation needs, built once at start-up.
#[derive(Debug)]
pub struct Engine {
    pub settings: Settings,
    pub store: Store,
    pub sessions: Arc<SessionServiceAdapter>,
    pub runner: Runner,
    pub provider_id: String,
    /// The model in use ("" = the provider's default).
    pub model: String,
    /// Tokens of history each model call may carry.
    pub history_budget: usize,
    /// The observational memory, when `observationalMemory.enabled` is on.
    pub memory: Option<Memory>,
}

/// The longest [`Engine::stop_memory`] waits for the memory's work in progress (each of its
/// two stages): a hung memory model never holds an exit back for longer.
pub const MEMORY_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// The running memory: the cycle (observer → reflector), the background buffer that runs it
/// after turns, and the channel its status and "memory updated" events go out on.
#[derive(Debug)]
pub struct Memory {
    pub cycle: Arc<MemoryCycle>,
    pub buffer: MemoryBuffer,
    pub events: tokio::sync::broadcast::Sender<MemoryEvent>,
    pub config: MemoryConfig,
    /// Embeds new messages, observations and reflections when
    /// `observationalMemory.embeddingModel` is set and the memory's provider can embed (the
    /// cycle feeds it; also reachable as `cycle.embeddings()`).
    pub embeddings: Option<Arc<EmbeddingBuffer>>,
    /// Embeds each retrieval query (hybrid retrieval), with the same model.
    pub query_embedder: Option<QueryEmbedder>,
    /// Knowledge retrieval's per-session statistics, shared by the model adapter and the
    /// inspector ([`Engine::inspect`] shows exactly what the next call sends).
    pub knowledge_index: KnowledgeIndex,
}

impl Engine {
    /// Loads the settings, opens the store and builds the agent.
    pub async fn start(paths: &AppPaths) -> Result<Self, EngineError> {
        let settings = config::load(paths)?.settings;
        let store = Store::open_app(paths).await?;
        Self::from_parts(paths, settings, store)
    }

    /// [`Engine::start`] with the configured MCP servers started (in the background) and
    /// offered as tools. Stop the hub when done (dropping it does too).
    pub async fn start_with_tools(paths: &AppPaths) -> Result<(Self, McpHub), EngineError> {
        let settings = config::load(paths)?.settings;
        let store = Store::open_app(paths).await?;
        let hub = mcp_hub(paths, &settings);
        let (events, _) = tokio::sync::broadcast::channel(256);
        let toolset: Arc<dyn Toolset> = Arc::new(hub.clone());
        let engine = Self::assemble(paths, settings, store, events, Some(toolset))?;
        Ok((engine, hub))
    }

    /// Builds the agent from loaded settings and an open store.
    pub fn from_parts(
        paths: &AppPaths,
        settings: Settings,
        store: Store,
    ) -> Result<Self, EngineError> {
        let (events, _) = tokio::sync::broadcast::channel(256);
        Self::with_memory_events(paths, settings, store, events)
    }

    /// As [`Engine::from_parts`], with the memory's status and "memory updated" events sent on
    /// `events`: a long-lived app keeps one channel across engines rebuilt after a settings
    /// change, so its listeners never need to re-subscribe.
    pub fn with_memory_events(
        paths: &AppPaths,
        settings: Settings,
        store: Store,
        events: tokio::sync::broadcast::Sender<MemoryEvent>,
    ) -> Result<Self, EngineError> {
        Self::assemble(paths, settings, store, events, None)
    }

    /// As [`Engine::with_memory_events`], with tools that come and go (the MCP servers'
    /// hub, which outlives engines) offered to the agent and its sub-agents.
    pub fn assemble(
        paths: &AppPaths,
        settings: Settings,
        store: Store,
        events: tokio::sync::broadcast::Sender<MemoryEvent>,
        toolset: Option<Arc<dyn Toolset>>,
    ) -> Result<Self, EngineError> {
        let Some(provider_id) = settings.agent_provider_id().map(str::to_owned) else {
            return Err(EngineError::NoProvider {
                settings: paths.settings_file().display().to_string(),
            });
        };
        let secrets = secret_store(paths, &settings);
        let provider = registry::from_settings(
            &settings,
            &provider_id,
            &secrets,
            HttpSettings::from_agent(&settings.agent),
        )?;
        let (_, model) = settings.effective_agent();
        let model = model.to_owned();
        if let Some(p) = settings.provider(&provider_id) {
            registry::check_model(p.kind, &model)?;
        }
        let base_llm = chat_router(
            paths,
            &settings,
            &provider_id,
            Arc::new(ModelAdapter::new(provider, model.clone())),
        );

        let om = &settings.observational_memory;
        // Memory off: the model is used as is, so requests are byte-for-byte what they were.
        let (llm, memory): (Arc<dyn crate::agent::Llm>, Option<Memory>) = if om.enabled {
            let config = MemoryConfig::from(om);
            let counter = store.counter().clone();
            // A memory provider that cannot be built never stops the chat: the memory
            // reports the problem instead (status), and retrieval stays full-text.
            let embedder = embedder(paths, &settings, &provider_id, &secrets).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the embedding provider cannot be used; knowledge retrieval stays full-text only");
                None
            });
            let query_embedder = embedder
                .clone()
                .map(|e| QueryEmbedder::new(e, DEFAULT_QUERY_EMBEDDING_TIMEOUT));
            let embeddings = embedder.map(|e| {
                Arc::new(EmbeddingBuffer::start(
                    e,
                    om.embedding_model.clone(),
                    store.clone(),
                ))
            });
            let knowledge_index = KnowledgeIndex::default();
            let mut context = ContextAwareModelAdapter::new(
                base_llm.clone(),
                store.clone(),
                counter.clone(),
                config.clone(),
            )
            .with_knowledge(true)
            .with_knowledge_index(knowledge_index.clone());
            if let Some(q) = &query_embedder {
                context = context.with_embedder(q.clone());
            }
            let (observer_llm, problem) = match observer_llm(
                paths,
                &settings,
                &provider_id,
                &model,
                base_llm.clone(),
            ) {
                Ok(llm) => (llm, None),
                Err(e) => {
                    let problem = memory_provider_problem(&settings, &e);
                    tracing::warn!(error = %problem, "the memory is paused; chat goes on without it");
                    (base_llm.clone(), Some(problem))
                }
            };
            let mut cycle = MemoryCycle::new(
                Observer::new(observer_llm.clone(), counter.clone(), config.clone()),
                Reflector::new(observer_llm, counter, config.clone()),
                store.clone(),
            )
            // spec 002 "Wire compactor during app initialization".
            .with_compactor(true)
            .with_events(events.clone())
            .with_graph(GraphBuffer::start(store.clone()));
            if let Some(e) = &embeddings {
                cycle = cycle.with_embeddings(Arc::clone(e));
            }
            if let Some(problem) = problem {
                cycle = cycle.with_problem(problem);
            }
            let cycle = Arc::new(cycle);
            let runner_cycle = Arc::clone(&cycle);
            let (cycle_index, cycle_store) = (knowledge_index.clone(), store.clone());
            let buffer = MemoryBuffer::start(
                move |key: String| {
                    let cycle = Arc::clone(&runner_cycle);
                    let (index, store) = (cycle_index.clone(), cycle_store.clone());
                    async move {
                        cycle.run(&key).await;
                        // The cycle may have changed the memory: rebuild retrieval's cache
                        // here, off the send path, rather than in the next model call.
                        if let Err(e) = index.refresh(&store, &key).await {
                            tracing::warn!(session = %key, error = %e, "refreshing the retrieval cache failed");
                        }
                    }
                },
                0,
            );
            (
                Arc::new(context),
                Some(Memory {
                    cycle,
                    buffer,
                    events,
                    config,
                    embeddings,
                    query_embedder,
                    knowledge_index,
                }),
            )
        } else {
            (base_llm, None)
        };
        let om_budget = om
            .enabled
            .then(|| usize::try_from(om.max_message_token_budget).unwrap_or(usize::MAX));
        let history_budget = history_token_budget(&model, om_budget);
        let sessions = Arc::new(
            SessionServiceAdapter::new(store.clone(), DEFAULT_AGENT_NAME)
                .with_token_budget(i64::try_from(history_budget).unwrap_or(i64::MAX)),
        );
        let tools = builtin_tools(Some(store.clone()));
        // Sub-agents share the agent's model and tools, with their own instruction.
        let sub_agents: Vec<Agent> = settings
            .agent
            .sub_agents
            .iter()
            .map(|s| {
                with_toolset(
                    Agent::from_settings(
                        s.name.clone(),
                        &settings.agent,
                        llm.clone(),
                        tools.clone(),
                    ),
                    &toolset,
                )
                .with_instruction(s.instruction.clone())
            })
            .collect();
        let root = with_toolset(
            Agent::from_settings(DEFAULT_AGENT_NAME, &settings.agent, llm, tools),
            &toolset,
        )
        .with_sub_agents(sub_agents);
        let runner = Runner::with_store_sessions(root, Arc::clone(&sessions))
            .with_settings(&settings.agent)
            .with_output_cap(OutputCap::new(
                store.counter().clone(),
                settings.tools.max_output_tokens as usize,
            ))
            .with_max_tool_calls(settings.tools.max_calls_per_turn);
        Ok(Self {
            settings,
            store,
            sessions,
            runner,
            provider_id,
            model,
            history_budget,
            memory,
        })
    }
}

impl Engine {
    /// Call after every turn, success or failure (REFERENCE §3.5): queues the session for the
    /// memory without waiting.
    pub fn after_turn(&self, session_key: &str) {
        if let Some(memory) = &self.memory {
            memory.buffer.trigger(session_key);
        }
    }

    /// The settings a turn of `session_key` runs with: the conversation's own over the
    /// defaults (a conversation not created yet has none of its own).
    pub async fn turn(&self, session_key: &str) -> Result<crate::agent::TurnSettings, EngineError> {
        let own = self
            .store
            .find_session(session_key)
            .await?
            .map(|s| s.chat_settings)
            .unwrap_or_default();
        Ok(turn_settings(&self.settings, &own))
    }

    /// Exactly what the next model call of a session would send: the system prompt with its
    /// sections and token counts, and the history (the "what the model sees" inspector).
    pub async fn inspect(
        &self,
        session_key: &str,
    ) -> Result<crate::memory::context::AssembledRequest, EngineError> {
        let turn = self.turn(session_key).await?;
        self.inspect_turn(session_key, &turn).await
    }

    /// [`Engine::inspect`] with the conversation's turn settings already read.
    pub async fn inspect_turn(
        &self,
        session_key: &str,
        turn: &crate::agent::TurnSettings,
    ) -> Result<crate::memory::context::AssembledRequest, EngineError> {
        use crate::memory::context::{assemble, AssemblyOptions};
        let request = self
            .runner
            .next_request(session_key, Some(turn))
            .await
            .map_err(|e| match e {
                crate::agent::AgentError::Store(s) => EngineError::Store(s),
                other => EngineError::Store(StoreError::Database(other.to_string())),
            })?;
        let (config, options, key) = match &self.memory {
            Some(m) => (
                m.config.clone(),
                AssemblyOptions {
                    knowledge: true,
                    memory_token_budget: m.config.memory_token_budget,
                    embedder: m.query_embedder.clone(),
                    knowledge_index: m.knowledge_index.clone(),
                    ..AssemblyOptions::default()
                },
                Some(session_key),
            ),
            // Memory off: no memory or knowledge section, the request as it is.
            None => (MemoryConfig::default(), AssemblyOptions::default(), None),
        };
        Ok(assemble(
            &self.store,
            key,
            &request,
            self.store.counter().as_ref(),
            &config,
            &options,
        )
        .await)
    }

    /// Stops the memory: refuses new work, lets the cycle in progress and what is queued
    /// finish for at most [`MEMORY_SHUTDOWN_GRACE`], then cancels the cycle (its model
    /// request is dropped) and leaves the rest: those messages stay unobserved and the next
    /// turn triggers them again. The cancellation is kept as the session's memory failure
    /// (`memory status`). Then writes the triples and embeds the texts still queued, again
    /// for at most the grace. The store stays open (an app replacing this engine keeps using
    /// it).
    pub async fn stop_memory(&self) {
        let Some(memory) = &self.memory else {
            return;
        };
        if let Some(key) = memory.buffer.shutdown_within(MEMORY_SHUTDOWN_GRACE).await {
            let error = format!(
                "the memory's model did not answer within {} s before Lango stopped; it will try again after the next turn",
                MEMORY_SHUTDOWN_GRACE.as_secs()
            );
            if let Err(e) = self.store.record_memory_failure(&key, &error).await {
                tracing::debug!(session = %key, error = %e, "could not keep the memory's cancellation");
            }
        }
        if tokio::time::timeout(MEMORY_SHUTDOWN_GRACE, memory.cycle.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("the memory's graph and embedding writes did not finish in time; what is left is redone after the next turn");
        }
    }

    /// [`Engine::stop_memory`], then closes the store: the last call before exiting.
    pub async fn shutdown(&self) {
        self.stop_memory().await;
        self.store.close().await;
    }
}

/// The MCP servers of `settings`, starting; `keychain:` references read from the key store.
pub fn mcp_hub(paths: &AppPaths, settings: &Settings) -> McpHub {
    // Building the store asks the keychain nothing: a `keychain:` value is read when its
    // server starts.
    let secrets = Some(SecretStore::probing_when_needed(
        settings.secrets.allow_file_store,
        &paths.config_dir,
    ));
    let hub = McpHub::new(ServerOptions {
        secrets,
        ..ServerOptions::default()
    });
    hub.apply(&settings.mcp_servers);
    hub
}

fn with_toolset(agent: Agent, toolset: &Option<Arc<dyn Toolset>>) -> Agent {
    match toolset {
        Some(set) => agent.with_toolset(Arc::clone(set)),
        None => agent,
    }
}
