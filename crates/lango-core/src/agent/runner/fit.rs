//! Fitting a model call to the model's real context window. History budgets come from the
//! model's name (spec 004), but a local server may run a model with a smaller window than
//! its family's (llama.cpp's default 4,096 tokens against the 32,000 of an unknown model).
//! When the provider refuses a prompt as too long (provider::overflow), the call is made
//! again with the newest history that fits what the refusal said, and the budget that worked
//! is remembered per model for the rest of the run, so later calls fit the first time.
//!
//! Owns the start of one model call (its retries) and the learned budgets. What a request
//! carries is request.rs's; which rows fit a budget is the session's (truncate.rs, fit.rs).

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::StreamExt;

use super::{or_cancel, Agent, Runner};
use crate::agent::context::{RequestContext, TurnSettings};
use crate::agent::error::AgentError;
use crate::agent::tools::ToolAdapter;
use crate::agent::traits::{LlmStream, Session};
use crate::agent::types::LlmResponse;
use crate::provider::{ContextLimit, ProviderError};

/// Tries after the first refusal: each sends less, so a few reach any window that can hold
/// the newest message at all.
const MAX_REFITS: usize = 4;

/// Our token counts are not the provider's tokenizer's: a cut is made this much larger.
const TOKENIZER_MARGIN: f64 = 1.2;

/// The first item of a model call's stream, as `or_cancel(…, stream.next())` gives it.
pub(super) type FirstItem = Result<Option<Result<LlmResponse, AgentError>>, AgentError>;

/// History budgets that a model's context held, learned from its refusals, by model.
#[derive(Debug, Default)]
pub(super) struct LearnedBudgets(Mutex<HashMap<String, usize>>);

impl LearnedBudgets {
    /// The budget learned for `model`, if it refused a longer history in this run.
    pub fn get(&self, model: &str) -> Option<usize> {
        self.lock().get(model).copied()
    }

    /// Remembers that `model`'s context held `budget` tokens of history (only ever smaller).
    fn learn(&self, model: &str, budget: usize) {
        let mut budgets = self.lock();
        let known = budgets.entry(model.to_owned()).or_insert(budget);
        *known = (*known).min(budget);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The history budget for the next try after a refusal of a request whose history cost
/// `history_tokens`, or `None` when there is nothing left to cut. With the window and the
/// size sent known, the prompt is cut to leave the reply its room (`reply_room`, at most a
/// quarter of the window); otherwise the history is halved.
pub(super) fn smaller_budget(
    history_tokens: usize,
    limit: &ContextLimit,
    reply_room: Option<u32>,
) -> Option<usize> {
    if history_tokens == 0 {
        return None;
    }
    let history = history_tokens as f64;
    let next = match (limit.window, limit.sent) {
        (Some(window), Some(sent)) if window > 0 && sent > 0 => {
            let quarter = window / 4;
            let room = reply_room.map_or(quarter, |r| u64::from(r).min(quarter));
            let target = window.saturating_sub(room);
            let over = sent.saturating_add(room).saturating_sub(window);
            if over == 0 {
                // The prompt fits with room for a reply: what did not fit is the reply length
                // asked for (vLLM counts it in), which less history cannot help.
                return None;
            }
            let cut = over as f64 * TOKENIZER_MARGIN;
            if history - cut >= 1.0 {
                // At least a tenth each time, so a wrong guess still moves.
                (history - cut).min(history * 0.9)
            } else {
                // The provider counts far more than we do (text our tokenizer packs tightly):
                // the cut in its tokens would take all of ours, so shrink in proportion.
                history * target as f64 / sent as f64
            }
        }
        _ => history / 2.0,
    };
    (next >= 1.0).then_some(next as usize)
}

/// Who the learned budget belongs to: the conversation's provider and model, else the
/// agent's model.
fn model_key(turn: Option<&TurnSettings>, agent: &Agent) -> String {
    match turn {
        Some(turn) => format!("{}/{}", turn.provider, turn.model),
        None => agent.model.name().to_owned(),
    }
}

impl Runner {
    /// The budget learned for the model of `turn` (else the root agent's), if it refused a
    /// longer history in this run.
    pub fn learned_budget(&self, turn: Option<&TurnSettings>) -> Option<usize> {
        self.learned.get(&model_key(turn, &self.root))
    }

    /// Starts `active`'s model call and reads its first item. A refusal of the prompt as too
    /// long for the model's context is answered by the same call with less history, until it
    /// fits or nothing more can be cut (then the refusal is the first item).
    pub(super) async fn start_call(
        &self,
        active: &Agent,
        session: &dyn Session,
        tools: &[ToolAdapter],
        ctx: &RequestContext,
        call_ctx: &RequestContext,
        stream: bool,
    ) -> Result<(LlmStream, FirstItem), AgentError> {
        let cancel = &ctx.cancel;
        let turn = ctx.turn.as_deref();
        let key = model_key(turn, active);
        let mut budget = self.learned.get(&key);
        let mut refits = 0;
        loop {
            let request = self.request(active, session, tools, turn, budget);
            let reply_room = request.config.max_output_tokens;
            let request = or_cancel(cancel, self.resolve(request, turn)).await??;
            let mut responses = active.model.generate_content(call_ctx, request, stream);
            let first = or_cancel(cancel, responses.next()).await;
            let Ok(Some(Err(AgentError::Provider(ProviderError::ContextExceeded {
                limit, ..
            })))) = &first
            else {
                // Learned only from an answer: any other failure proves nothing about the fit.
                if let (Some(fitted), Ok(Some(Ok(_)))) = (budget.filter(|_| refits > 0), &first) {
                    self.learned.learn(&key, fitted);
                }
                return Ok((responses, first));
            };
            // No history over the window can ever fit: a bound already, answer or not.
            if let Some(window) = limit.window {
                self.learned
                    .learn(&key, usize::try_from(window).unwrap_or(usize::MAX));
            }
            let sent = session.events_within(budget.unwrap_or(usize::MAX)).1;
            let next = smaller_budget(sent, limit, reply_room)
                .filter(|b| session.events_within(*b).1 < sent);
            match next {
                Some(next) if refits < MAX_REFITS => {
                    tracing::info!(
                        model = %key, window = ?limit.window, sent = ?limit.sent,
                        history_tokens = sent, next_budget = next,
                        "the model's context is smaller than its history budget: sending less history"
                    );
                    budget = Some(next);
                    refits += 1;
                }
                _ => return Ok((responses, first)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(window: u64, sent: u64) -> ContextLimit {
        ContextLimit {
            window: Some(window),
            sent: Some(sent),
        }
    }

    #[test]
    fn the_cut_leaves_the_reply_room_within_the_window() {
        // llama.cpp: 6,010 sent to a 4,096 window, the reply may take 512: the history is cut
        // by the 2,426 over, × 1.2 for the tokenizers' difference (2,911.2).
        let next = smaller_budget(5_500, &limit(4096, 6010), Some(512));
        assert_eq!(next, Some(2_588));
        // Without a reply length, a quarter of the window is kept for it: (2,938 × 1.2).
        assert_eq!(smaller_budget(5_500, &limit(4096, 6010), None), Some(1_974));
    }

    #[test]
    fn each_try_cuts_at_least_a_tenth() {
        // vLLM's refusal counts the messages (4,000) under the window: only the reply's room
        // was missing; the cut still moves by at least a tenth of the history.
        assert_eq!(
            smaller_budget(3_000, &limit(4096, 4000), Some(100)),
            Some(2_700)
        );
    }

    #[test]
    fn a_prompt_that_fits_with_room_for_a_reply_is_not_cut() {
        // vLLM: "you requested 5000 tokens (1000 in the messages, 4000 in the completion)":
        // the reply length is what does not fit.
        assert_eq!(smaller_budget(900, &limit(4096, 1000), Some(4000)), None);
    }

    #[test]
    fn without_numbers_the_history_is_halved_and_nothing_left_stops() {
        assert_eq!(
            smaller_budget(1_000, &ContextLimit::default(), None),
            Some(500)
        );
        assert_eq!(smaller_budget(0, &ContextLimit::default(), None), None);
    }

    #[test]
    fn a_provider_counting_far_more_than_we_do_shrinks_the_history_in_proportion() {
        // 9,000 of the provider's tokens for what we count as 3,000 (e.g. "xxxx…", which our
        // tokenizer packs tightly): cutting 9,900 of ours would leave nothing; the history
        // is shrunk to the share of the window left after the reply's room, 750 / 9,000.
        assert_eq!(smaller_budget(3_000, &limit(1000, 9000), None), Some(250));
    }

    #[test]
    fn a_learned_budget_only_shrinks() {
        let learned = LearnedBudgets::default();
        assert_eq!(learned.get("local/smollm2"), None);
        learned.learn("local/smollm2", 2_000);
        learned.learn("local/smollm2", 3_000);
        assert_eq!(learned.get("local/smollm2"), Some(2_000));
        learned.learn("local/smollm2", 1_500);
        assert_eq!(learned.get("local/smollm2"), Some(1_500));
    }
}
