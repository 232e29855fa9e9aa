//! Building the memory of imported conversations: the estimate counts the observer calls the
//! build then makes, imported messages are observed like any others (the newest exchange
//! stays verbatim), and a cancelled build stops.

use std::sync::atomic::{AtomicUsize, Ordering};

use lango_core::agent::{Llm, LlmRequest, LlmResponse, LlmStream, RequestContext};
use lango_core::import::memory::{build, estimate};
use lango_core::memory::cycle::MemoryCycle;
use lango_core::memory::observer::Observer;
use lango_core::memory::reflector::Reflector;
use lango_core::memory::MemoryConfig;

use super::*;

/// Answers every call with a short note and counts the calls.
#[derive(Debug, Default)]
struct Notes {
    calls: AtomicUsize,
}

impl Llm for Notes {
    fn name(&self) -> &str {
        "notes"
    }

    fn generate_content(&self, _: &RequestContext, _: LlmRequest, _: bool) -> LlmStream {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        Box::pin(futures_util::stream::once(async move {
            Ok(LlmResponse::complete_text(format!("note {n}")))
        }))
    }
}

fn cycle(store: &Store, llm: &Arc<Notes>) -> MemoryCycle {
    let config = MemoryConfig {
        message_token_threshold: 10,
        max_message_token_budget: 40,
        // No reflections: the test counts observer calls.
        observation_token_threshold: 1_000_000,
        ..MemoryConfig::default()
    };
    let counter = store.counter().clone();
    MemoryCycle::new(
        Observer::new(llm.clone(), counter.clone(), config.clone()),
        Reflector::new(llm.clone(), counter, config),
        store.clone(),
    )
    .with_compactor(true)
}

#[tokio::test]
async fn the_estimate_counts_the_calls_the_build_then_makes() {
    let (_dir, store) = store().await;
    let summary = import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    let llm = Arc::new(Notes::default());
    let cycle = cycle(&store, &llm);
    let before = estimate(cycle.observer(), &store, &summary.sessions)
        .await
        .unwrap();
    assert!(before.observer_calls > 0 && before.tokens > before.observer_tokens);
    assert_eq!(
        llm.calls.load(Ordering::SeqCst),
        0,
        "estimating calls no model"
    );

    let report = build(
        &cycle,
        &summary.sessions,
        &|_| {},
        &CancellationToken::new(),
    )
    .await;
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.observations, before.observer_calls);
    assert_eq!(llm.calls.load(Ordering::SeqCst), before.observer_calls);

    // Imported messages were observed like any others; the newest exchange stays verbatim.
    for key in &summary.sessions {
        let session = store.get_session(key).await.unwrap();
        let last_user = messages(&store, key)
            .await
            .into_iter()
            .filter(|m| m.role == "user")
            .map(|m| m.seq)
            .max()
            .unwrap();
        assert!(session.observed_through_seq > 0, "{key} observed");
        assert!(
            session.observed_through_seq < last_user,
            "{key}: newest exchange kept"
        );
    }
    let after = estimate(cycle.observer(), &store, &summary.sessions)
        .await
        .unwrap();
    assert_eq!(after.observer_calls, 0, "nothing left to observe");
}

#[tokio::test]
async fn a_cancelled_build_makes_no_call() {
    let (_dir, store) = store().await;
    let summary = import(&store, &fixture("chatgpt.json")).await.0.unwrap();
    let llm = Arc::new(Notes::default());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let report = build(&cycle(&store, &llm), &summary.sessions, &|_| {}, &cancel).await;
    assert!(report.cancelled);
    assert_eq!(llm.calls.load(Ordering::SeqCst), 0);
}
