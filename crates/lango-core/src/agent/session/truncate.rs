//! Token-budget truncation with sequence safety (REFERENCE §2.5, spec 003/004).
//!
//! Owns which suffix of a session's in-memory history reaches the model. Pure functions over
//! stored rows: no store access, no event building (events.rs does that).

use crate::store::StoredMessage;
use crate::tokens::DEFAULT_TOKEN_BUDGET;

use super::convert::{corrected_role, has_function_call, is_tool_role};

/// A configured budget, with `<= 0` meaning the default (spec 003 "Default token budget").
pub fn resolve_budget(budget: i64) -> usize {
    if budget <= 0 {
        DEFAULT_TOKEN_BUDGET
    } else {
        usize::try_from(budget).unwrap_or(usize::MAX)
    }
}

/// What a message costs: the `token_count` the store computed with its counter at append time.
pub(super) fn cost(message: &StoredMessage) -> u64 {
    u64::try_from(message.token_count).unwrap_or(0)
}

/// The index where the model's view of `history` starts.
///
/// Walks from the newest message back, keeping messages while they fit `budget` (the newest is
/// always kept). When something was cut — here, or earlier when the store loaded only a tail
/// (`older_cut`) — leading tool/function rows and a leading assistant call whose response is
/// not next are dropped too, so the view never starts mid-exchange. Without a cut a trailing
/// unanswered call is kept: its response is pending.
pub fn truncation_start(history: &[StoredMessage], budget: usize, older_cut: bool) -> usize {
    if history.is_empty() {
        return 0;
    }
    let budget = u64::try_from(budget).unwrap_or(u64::MAX);
    let len = history.len();
    let mut total: u64 = 0;
    let mut start = len;
    for i in (0..len).rev() {
        let t = cost(&history[i]);
        if total.saturating_add(t) > budget && start < len {
            break;
        }
        total = total.saturating_add(t);
        start = i;
    }
    if start > 0 || older_cut {
        while start < len {
            let first = &history[start];
            let role = corrected_role(first);
            if is_tool_role(role) {
                start += 1;
                continue;
            }
            if matches!(role, "assistant" | "model") && has_function_call(first) {
                let answered = history
                    .get(start + 1)
                    .is_some_and(|next| is_tool_role(corrected_role(next)));
                if !answered {
                    start += 1;
                    continue;
                }
            }
            break;
        }
    }
    start
}

/// The history budget for a model (REFERENCE §2.5 [FIX]): with observational memory on,
/// `min(maxMessageTokenBudget, model_token_budget(model))`; with it off (`None`), the model's.
/// A memory budget of 0 counts as unset.
pub fn history_token_budget(model: &str, om_max_message_budget: Option<usize>) -> usize {
    let model_budget = crate::tokens::model_token_budget(model);
    match om_max_message_budget {
        Some(b) if b > 0 => b.min(model_budget),
        _ => model_budget,
    }
}
