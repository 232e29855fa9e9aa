//! Building the memory of imported conversations: what it would cost first (the tokens the
//! memory model would be sent), then the observer and reflector over each conversation until
//! nothing is left to observe — in the background, with progress, stoppable at any point.
//!
//! Imported messages are ordinary messages, so this is the same memory cycle a chat turn
//! triggers, run repeatedly: each cycle observes at most `maxMessageTokenBudget` tokens, and
//! the newest exchange stays verbatim as always. Stopping drops the call in flight; what was
//! saved stays (each note is saved in one transaction with what it covers).

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::memory::cycle::MemoryCycle;
use crate::memory::observer::{render_messages, Observer};
use crate::memory::MemoryError;
use crate::store::Store;

/// Most output tokens one memory call may write (`memory::prompts::MAX_OUTPUT_TOKENS`).
const NOTE_TOKENS_MAX: usize = 1024;

/// What building the memory of some conversations would send to the memory model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryEstimate {
    /// Conversations with something to observe.
    pub sessions: usize,
    /// Observer calls (one per `maxMessageTokenBudget` of messages).
    pub observer_calls: usize,
    /// Tokens the observer would be sent: the messages as it renders them, plus its prompt
    /// once per call.
    pub observer_tokens: usize,
    /// At most this many more for the reflections (they read the observations, each at most
    /// one memory reply long).
    pub reflector_tokens_at_most: usize,
    /// `observer_tokens + reflector_tokens_at_most`.
    pub tokens: usize,
}

/// The estimate for `keys`, from what each conversation has not had observed yet, batched the
/// way the observer batches it.
pub async fn estimate(
    observer: &Observer,
    store: &Store,
    keys: &[String],
) -> Result<MemoryEstimate, MemoryError> {
    let config = &observer.config;
    let prompt = observer
        .counter
        .count(crate::memory::observer::prompt_text());
    let mut out = MemoryEstimate::default();
    for key in keys {
        let unobserved = observer.unobserved(store, key).await?;
        if unobserved.tokens < config.message_token_threshold {
            continue;
        }
        let costs: Vec<usize> = unobserved
            .messages
            .iter()
            .map(|m| {
                observer
                    .counter
                    .count(&render_messages(std::slice::from_ref(m)))
            })
            .collect();
        let (calls, tokens) = batches(&costs, config.max_message_token_budget);
        out.sessions += 1;
        out.observer_calls += calls;
        out.observer_tokens += tokens + calls * prompt;
    }
    out.reflector_tokens_at_most = out.observer_calls * NOTE_TOKENS_MAX;
    out.tokens = out.observer_tokens + out.reflector_tokens_at_most;
    Ok(out)
}

/// Calls and tokens to observe messages costing `costs` in batches of at most `budget` (at
/// least one message a batch, as the observer takes them).
fn batches(costs: &[usize], budget: usize) -> (usize, usize) {
    let (mut calls, mut used) = (0, 0);
    for &cost in costs {
        if calls == 0 || (used > 0 && used + cost > budget) {
            calls += 1;
            used = 0;
        }
        used += cost;
    }
    (calls, costs.iter().sum())
}

/// How far building the memory is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildProgress {
    /// Conversations finished, of `total`.
    pub done: usize,
    pub total: usize,
    /// Notes saved so far (observations and reflections).
    pub notes: usize,
}

/// What building the memory did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildReport {
    pub sessions: usize,
    pub observations: usize,
    pub reflections: usize,
    /// Memory calls that failed, with the conversation (each stops that conversation; its
    /// memory is tried again after its next turn).
    pub failures: Vec<(String, String)>,
    pub cancelled: bool,
}

/// Runs memory cycles over each conversation until one observes nothing more.
pub async fn build(
    cycle: &MemoryCycle,
    keys: &[String],
    progress: &(dyn Fn(BuildProgress) + Send + Sync),
    cancel: &CancellationToken,
) -> BuildReport {
    let mut report = BuildReport {
        sessions: keys.len(),
        ..BuildReport::default()
    };
    let notes = |r: &BuildReport| r.observations + r.reflections;
    progress(BuildProgress {
        done: 0,
        total: keys.len(),
        notes: 0,
    });
    'sessions: for (i, key) in keys.iter().enumerate() {
        loop {
            let cycle_report = tokio::select! {
                () = cancel.cancelled() => {
                    report.cancelled = true;
                    break 'sessions;
                }
                r = cycle.run(key) => r,
            };
            report.reflections += usize::from(cycle_report.reflection.is_some())
                + usize::from(cycle_report.meta_reflection.is_some());
            if let Some(error) = cycle_report.observe_error {
                report.failures.push((key.clone(), error));
                break;
            }
            if cycle_report.observation.is_none() {
                break;
            }
            report.observations += 1;
            progress(BuildProgress {
                done: i,
                total: keys.len(),
                notes: notes(&report),
            });
        }
        progress(BuildProgress {
            done: i + 1,
            total: keys.len(),
            notes: notes(&report),
        });
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_batched_by_the_observer_budget() {
        assert_eq!(batches(&[], 100), (0, 0));
        assert_eq!(batches(&[60, 60, 60], 100), (3, 180));
        assert_eq!(batches(&[40, 40, 40], 100), (2, 120));
        // A message above the budget is still observed, alone.
        assert_eq!(batches(&[500, 10], 100), (2, 510));
    }
}
