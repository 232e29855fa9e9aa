//! Fitting the newest turn when it alone exceeds the history budget (issue 14 item 16).
//!
//! Owns what the model sees when plain truncation (truncate.rs) would leave out the newest
//! user message — or leave nothing at all, when the newest row is a tool result bigger than
//! the budget and sequence safety then drops it. The user's newest message is always kept
//! whole, the newest exchange after it is kept with its calls and results together, and
//! oversized tool results and assistant texts are cut (marked) so the whole fits. Pure
//! functions over stored rows; token costs are estimated from each row's stored
//! `token_count` in proportion to the text kept (this module counts no tokens).

use serde_json::{json, Map, Value};

use crate::store::StoredMessage;

use super::convert::{corrected_role, has_function_call, is_tool_role};
use super::truncate::{cost, truncation_start};

/// Appended to a cut assistant text, and the `truncated` field of a cut tool result.
pub const CUT_MARKER: &str = "cut to fit the conversation's context";

/// Share of a row's proportional allowance actually kept: text cut by bytes costs a little
/// more than its share (JSON escaping, the marker).
const SAFETY: f64 = 0.85;

/// The model's view of `history` for `budget`: `None` means plain truncation's suffix
/// (`history[truncation_start..]`) already holds the newest user message; `Some(rows)` is the
/// fitted view otherwise. Never empty when `history` holds a message.
pub fn fitted_view(
    history: &[StoredMessage],
    budget: usize,
    older_cut: bool,
) -> (usize, Option<Vec<StoredMessage>>) {
    let start = truncation_start(history, budget, older_cut);
    let newest_user = history.iter().rposition(StoredMessage::is_user_turn);
    let first_after = match newest_user {
        Some(u) if start <= u => return (start, None),
        Some(u) => u + 1,
        None if start < history.len() => return (start, None),
        None => 0,
    };
    let budget_u64 = u64::try_from(budget).unwrap_or(u64::MAX);
    let user_cost = newest_user.map_or(0, |u| cost(&history[u]));
    let rest_budget = budget_u64.saturating_sub(user_cost);
    let after = &history[first_after..];
    // The newest rows after the user message that fit, cut at a clean exchange boundary.
    let rest_budget_usize = usize::try_from(rest_budget).unwrap_or(usize::MAX);
    let tail_start = truncation_start(after, rest_budget_usize, true);
    let mut view: Vec<StoredMessage> = newest_user
        .map(|u| history[u].clone())
        .into_iter()
        .collect();
    // When even the newest exchange does not fit, it is kept whole with its long texts cut.
    let tail = if tail_start < after.len() {
        &after[tail_start..]
    } else {
        &after[newest_exchange_start(after)..]
    };
    let tail_cost: u64 = tail.iter().map(cost).fold(0, u64::saturating_add);
    if tail_cost > rest_budget {
        view.extend(cut_to_fit(tail, rest_budget));
    } else {
        view.extend_from_slice(tail);
    }
    (start, Some(view))
}

/// Where the newest exchange of `rows` starts: the assistant row whose calls the trailing
/// tool rows answer, else the newest row.
fn newest_exchange_start(rows: &[StoredMessage]) -> usize {
    let Some(last) = rows.len().checked_sub(1) else {
        return 0;
    };
    let mut i = last;
    while i > 0 && is_tool_role(corrected_role(&rows[i])) {
        i -= 1;
    }
    if is_tool_role(corrected_role(&rows[i])) {
        // Results without their call anywhere before: keep them all (the provider folds them).
        return 0;
    }
    if i < last && !has_function_call(&rows[i]) {
        // The row before the results calls nothing: the results stand alone.
        return i + 1;
    }
    i
}

/// Whether a row's text may be cut: tool results and assistant texts. A call's arguments are
/// never cut (they must stay valid JSON the tool accepted).
fn cuttable(m: &StoredMessage) -> bool {
    let role = corrected_role(m);
    is_tool_role(role) || (matches!(role, "assistant" | "model") && !has_function_call(m))
}

/// `rows` with the largest cuttable rows cut to one common allowance so their estimated total
/// fits `budget` (water-filling: the smallest rows stay whole).
fn cut_to_fit(rows: &[StoredMessage], budget: u64) -> Vec<StoredMessage> {
    let fixed: u64 = rows.iter().filter(|m| !cuttable(m)).map(cost).sum();
    let room = budget.saturating_sub(fixed);
    let mut costs: Vec<u64> = rows.iter().filter(|m| cuttable(m)).map(cost).collect();
    costs.sort_unstable();
    // The allowance: the largest `cap` with Σ min(cost, cap) ≤ room.
    let mut cap = room;
    let mut spent = 0u64;
    for (k, &c) in costs.iter().enumerate() {
        let left = u64::try_from(costs.len() - k).unwrap_or(1);
        if spent.saturating_add(c.saturating_mul(left)) <= room {
            spent += c;
            continue;
        }
        cap = (room - spent) / left;
        break;
    }
    rows.iter()
        .map(|m| {
            if cuttable(m) && cost(m) > cap {
                cut_row(m, cap)
            } else {
                m.clone()
            }
        })
        .collect()
}

/// `m` with its text cut to about `allowance` tokens, marked.
fn cut_row(m: &StoredMessage, allowance: u64) -> StoredMessage {
    let total = cost(m).max(1);
    let ratio = (allowance as f64 / total as f64 * SAFETY).clamp(0.0, 1.0);
    let mut cut = m.clone();
    let omitted = total.saturating_sub(allowance);
    if is_tool_role(corrected_role(m)) {
        for call in cut.tool_calls.iter_mut().filter(|c| !c.output.is_empty()) {
            call.output = cut_output(&call.output, ratio, omitted);
        }
        if let Some(first) = cut.tool_calls.iter().find(|c| !c.output.is_empty()) {
            // The row's text mirrors its result (convert.rs stores the response JSON there).
            cut.content = first.output.clone();
        } else {
            cut.content = cut_text(&m.content, ratio, omitted);
        }
    } else {
        cut.content = cut_text(&m.content, ratio, omitted);
    }
    cut.token_count = i64::try_from(allowance).unwrap_or(i64::MAX);
    tracing::info!(
        seq = m.seq,
        tokens = total,
        kept = allowance,
        "the newest exchange does not fit the history budget; a long row is cut for this request"
    );
    cut
}

fn prefix(text: &str, ratio: f64) -> &str {
    let mut at = ((text.len() as f64) * ratio) as usize;
    at = at.min(text.len());
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

fn marker(omitted: u64) -> String {
    format!("{CUT_MARKER}: about {omitted} tokens left out (the whole text is stored)")
}

fn cut_text(text: &str, ratio: f64, omitted: u64) -> String {
    format!("{}\n[… {}]", prefix(text, ratio), marker(omitted))
}

/// A result's JSON cut: a `{"result": text}` or `{"content": text}` keeps the start of its
/// text, anything else the start of its JSON text; either way with a `truncated` field.
fn cut_output(output: &str, ratio: f64, omitted: u64) -> String {
    let text = match serde_json::from_str::<Value>(output) {
        Ok(Value::Object(map)) => match map.get("result").or_else(|| map.get("content")) {
            Some(Value::String(s)) => prefix(s, ratio).to_string(),
            _ => prefix(output, ratio).to_string(),
        },
        _ => prefix(output, ratio).to_string(),
    };
    let mut cut = Map::new();
    cut.insert("result".into(), json!(text));
    cut.insert("truncated".into(), json!(marker(omitted)));
    Value::Object(cut).to_string()
}
