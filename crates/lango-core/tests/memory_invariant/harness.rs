//! What every case of the invariant runs on: low memory thresholds, a model answering
//! scripted replies (then "note N"), a store with a fixed token cost, the memory cycle, and
//! appending an exchange.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use lango_core::agent::{AgentError, Llm, LlmRequest, LlmResponse, LlmStream, RequestContext};
use lango_core::memory::cycle::MemoryCycle;
use lango_core::memory::observer::Observer;
use lango_core::memory::reflector::Reflector;
use lango_core::memory::MemoryConfig;
use lango_core::store::{NewMessage, Store};
use lango_core::tokens::{FixedCostCounter, TokenCounter};

pub const KEY: &str = "invariant";
/// Cost of every message and every note (FixedCostCounter).
pub const COST: usize = 10;

/// Low thresholds so observations, reflections and meta-reflections happen within a few
/// turns: observe at 3 un-observed rows (at most 6 per observation), reflect at 4
/// observations, meta-reflect at 2 reflections.
pub fn config() -> MemoryConfig {
    MemoryConfig {
        message_token_threshold: 30,
        observation_token_threshold: 40,
        max_message_token_budget: 60,
        reflection_consolidation_threshold: 2,
        ..MemoryConfig::default()
    }
}

#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    Fail,
}

#[derive(Debug, Default)]
pub struct FakeLlm {
    replies: Mutex<VecDeque<Reply>>,
    calls: AtomicUsize,
}

impl FakeLlm {
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        let mut q = self.replies.lock().unwrap();
        q.clear();
        q.extend(replies);
    }

    pub fn clear(&self) {
        self.replies.lock().unwrap().clear();
    }
}

impl Llm for FakeLlm {
    fn name(&self) -> &str {
        "fake"
    }

    fn generate_content(
        &self,
        _ctx: &RequestContext,
        _request: LlmRequest,
        _stream: bool,
    ) -> LlmStream {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let reply = self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Reply::Text(format!("note {n}")));
        Box::pin(futures_util::stream::once(async move {
            match reply {
                Reply::Text(text) => Ok(LlmResponse::complete_text(text)),
                Reply::Fail => Err(AgentError::Other("scripted model failure".into())),
            }
        }))
    }
}

pub fn counter() -> Arc<dyn TokenCounter> {
    Arc::new(FixedCostCounter { cost: COST })
}

pub async fn open_store(path: &Path) -> Store {
    Store::open_with(path, &path.parent().unwrap().join("backups"), counter())
        .await
        .expect("open store")
}

pub fn build_cycle(store: &Store, llm: &Arc<FakeLlm>, compact: bool) -> MemoryCycle {
    let config = config();
    let llm: Arc<dyn Llm> = llm.clone();
    MemoryCycle::new(
        Observer::new(llm.clone(), counter(), config.clone()),
        Reflector::new(llm, counter(), config),
        store.clone(),
    )
    .with_compactor(compact)
}

/// One user message and `answers` assistant messages of `len` characters.
pub async fn append_exchange(store: &Store, n: usize, answers: usize, len: usize) {
    let text = |prefix: &str| format!("{prefix}{n} {}", "x".repeat(len));
    store
        .append_message(KEY, NewMessage::new("user", text("u")))
        .await
        .expect("append user");
    for _ in 0..answers {
        store
            .append_message(KEY, NewMessage::new("assistant", text("a")))
            .await
            .expect("append assistant");
    }
}
