//! Memory engine tests (spec 002 Observer / Reflector / compaction / meta-reflection,
//! REFERENCE §3.3–§3.6, §3.10, acceptance 45–49, 51–52) against real SQLite files, with a
//! scripted `Llm` fake that records every request.

mod acceptance;
mod cycle;
mod observer;
mod reflector;

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use lango_core::agent::{
    AgentError, Content, Llm, LlmRequest, LlmResponse, LlmStream, RequestContext,
};
use lango_core::memory::cycle::MemoryCycle;
use lango_core::memory::observer::Observer;
use lango_core::memory::reflector::Reflector;
use lango_core::memory::MemoryConfig;
use lango_core::provider::{ContextLimit, ProviderError};
use lango_core::store::{NewMessage, Observation, Reflection, Store, StoredMessage, ToolCall};
use lango_core::tokens::{FixedCostCounter, TokenCounter};
use tempfile::TempDir;

pub const KEY: &str = "session-1";

type Hook = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    Fail(String),
    /// The provider's refusal of a prompt longer than the model's context window.
    TooLong,
}

/// A recorded call.
#[derive(Debug, Clone)]
pub struct Call {
    pub ctx: RequestContext,
    pub request: LlmRequest,
    pub stream: bool,
}

impl Call {
    pub fn system(&self) -> String {
        self.request
            .config
            .system_instruction
            .as_ref()
            .map(Content::text)
            .unwrap_or_default()
    }

    pub fn input(&self) -> String {
        self.request.contents.iter().map(Content::text).collect()
    }
}

/// Answers with the scripted replies in order, then with `"note N"` (N = call number).
/// A hook, if set, runs inside the call before the answer (a write racing the model call).
pub struct ScriptedLlm {
    name: String,
    replies: Mutex<VecDeque<Reply>>,
    calls: Mutex<Vec<Call>>,
    hook: Mutex<Option<Hook>>,
}

impl std::fmt::Debug for ScriptedLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedLlm")
            .field("name", &self.name)
            .finish()
    }
}

impl ScriptedLlm {
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Arc<Self> {
        Self::named("scripted", replies)
    }

    pub fn named(name: &str, replies: impl IntoIterator<Item = Reply>) -> Arc<Self> {
        Arc::new(Self {
            name: name.to_string(),
            replies: Mutex::new(replies.into_iter().collect()),
            calls: Mutex::new(Vec::new()),
            hook: Mutex::new(None),
        })
    }

    pub fn texts<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Arc<Self> {
        Self::new(texts.into_iter().map(|t| Reply::Text(t.into())))
    }

    pub fn push(&self, reply: Reply) {
        self.replies.lock().unwrap().push_back(reply);
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    pub fn call_count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }

    pub fn set_hook<F, Fut>(&self, hook: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        *self.hook.lock().unwrap() = Some(Arc::new(move || Box::pin(hook())));
    }

    pub fn clear_hook(&self) {
        *self.hook.lock().unwrap() = None;
    }
}

impl Llm for ScriptedLlm {
    fn name(&self) -> &str {
        &self.name
    }

    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push(Call {
                ctx: ctx.clone(),
                request,
                stream,
            });
            calls.len()
        };
        let reply = self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Reply::Text(format!("note {n}")));
        let hook = self.hook.lock().unwrap().clone();
        Box::pin(futures_util::stream::once(async move {
            if let Some(hook) = hook {
                hook().await;
            }
            match reply {
                Reply::Text(text) => Ok(LlmResponse::complete_text(text)),
                Reply::Fail(message) => Err(AgentError::Other(message)),
                Reply::TooLong => Err(AgentError::Provider(ProviderError::ContextExceeded {
                    limit: ContextLimit {
                        window: Some(4096),
                        sent: Some(6010),
                    },
                    message:
                        "request (6010 tokens) exceeds the available context size (4096 tokens)"
                            .into(),
                })),
            }
        }))
    }
}

/// A store in a temp folder whose counter charges `cost` per text and per message, and that
/// counter (for the observer and reflector).
pub async fn store_with_cost(cost: usize) -> (TempDir, Store, Arc<dyn TokenCounter>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let counter: Arc<dyn TokenCounter> = Arc::new(FixedCostCounter { cost });
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        counter.clone(),
    )
    .await
    .expect("open store");
    store.create_session(KEY, "test").await.expect("session");
    (dir, store, counter)
}

/// A store with the real tiktoken counter.
pub async fn store_tiktoken() -> (TempDir, Store, Arc<dyn TokenCounter>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    store.create_session(KEY, "test").await.expect("session");
    let counter = store.counter().clone();
    (dir, store, counter)
}

/// Thresholds: observe at `message`, reflect at `observation`; the rest default.
pub fn config(message: usize, observation: usize) -> MemoryConfig {
    MemoryConfig {
        message_token_threshold: message,
        observation_token_threshold: observation,
        ..MemoryConfig::default()
    }
}

pub fn observer(
    llm: &Arc<ScriptedLlm>,
    counter: &Arc<dyn TokenCounter>,
    config: &MemoryConfig,
) -> Observer {
    Observer::new(llm.clone(), counter.clone(), config.clone())
}

pub fn reflector(
    llm: &Arc<ScriptedLlm>,
    counter: &Arc<dyn TokenCounter>,
    config: &MemoryConfig,
) -> Reflector {
    Reflector::new(llm.clone(), counter.clone(), config.clone())
}

pub fn cycle(
    store: &Store,
    llm: &Arc<ScriptedLlm>,
    counter: &Arc<dyn TokenCounter>,
    config: &MemoryConfig,
) -> MemoryCycle {
    MemoryCycle::new(
        observer(llm, counter, config),
        reflector(llm, counter, config),
        store.clone(),
    )
}

pub async fn append(store: &Store, role: &str, content: &str) -> StoredMessage {
    store
        .append_message(KEY, NewMessage::new(role, content))
        .await
        .expect("append")
}

pub async fn append_calls(
    store: &Store,
    role: &str,
    content: &str,
    calls: Vec<ToolCall>,
) -> StoredMessage {
    store
        .append_message(
            KEY,
            NewMessage {
                tool_calls: calls,
                ..NewMessage::new(role, content)
            },
        )
        .await
        .expect("append")
}

/// Appends user "u{i}" and assistant "a{i}" for `i` in `range`.
pub async fn pairs(store: &Store, range: std::ops::Range<usize>) {
    for i in range {
        append(store, "user", &format!("u{i}")).await;
        append(store, "assistant", &format!("a{i}")).await;
    }
}

pub fn call(name: &str, input: &str, output: &str) -> ToolCall {
    ToolCall {
        id: format!("call_{name}"),
        name: name.to_string(),
        input: input.to_string(),
        output: output.to_string(),
        ..ToolCall::default()
    }
}

pub async fn save_observation(
    store: &Store,
    content: &str,
    tokens: i64,
    seq: (i64, i64),
) -> Observation {
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: KEY.to_string(),
            content: content.to_string(),
            token_count: tokens,
            seq_start: seq.0,
            seq_end: seq.1,
            created_at: 0,
        })
        .await
        .expect("save observation")
}

pub async fn save_reflection(store: &Store, content: &str, generation: i64) -> Reflection {
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: KEY.to_string(),
            content: content.to_string(),
            token_count: 10,
            generation,
            seq_start: 1,
            seq_end: 2,
            source_token_count: 20,
            created_at: 0,
        })
        .await
        .expect("save reflection")
}

pub fn contents(messages: &[StoredMessage]) -> Vec<String> {
    messages.iter().map(|m| m.content.clone()).collect()
}
