//! Conversation repairs applied just before a request is sent (REFERENCE §5.2): removing
//! Gemini thought calls and giving every unanswered tool call a synthetic result.
//!
//! Pure functions over provider-neutral [`Message`]s, shared by the OpenAI-compatible and
//! the Ollama clients. They must not do I/O or know any wire format.

use crate::provider::{Message, Role, ToolCallRequest};

/// The `content` of a synthetic result for a call that never got one.
pub use super::super::INTERRUPTED_CALL_RESULT;

/// The id a call is sent with: its own, else `call_<name>` (REFERENCE §1.4 [FIX]).
pub fn effective_call_id(call: &ToolCallRequest) -> String {
    if call.id.is_empty() {
        format!("call_{}", call.name)
    } else {
        call.id.clone()
    }
}

/// Everything the wire clients do to a conversation before sending it, in order: drop
/// nameless calls, fill missing call ids, remove thought calls, fold results without their
/// call into user lines, repair unanswered calls.
pub fn prepare_messages(messages: &[Message]) -> Vec<Message> {
    let normalised = messages
        .iter()
        .map(|m| {
            if m.tool_calls.is_empty() {
                return m.clone();
            }
            let mut m = m.clone();
            m.tool_calls.retain(|c| {
                if c.name.is_empty() {
                    tracing::warn!(id = %c.id, "tool call without a name; not sent");
                }
                !c.name.is_empty()
            });
            for call in &mut m.tool_calls {
                call.id = effective_call_id(call);
            }
            m
        })
        .collect::<Vec<_>>();
    let folded = crate::provider::orphans::fold_orphaned_results(&filter_thought_calls(normalised));
    repair_orphaned_calls(folded)
}

/// Removes thought calls (`thought == true`, from Gemini) from assistant messages, together
/// with the tool messages answering them (REFERENCE §5.2, acceptance 64).
pub fn filter_thought_calls(messages: Vec<Message>) -> Vec<Message> {
    let thought_ids: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls.iter())
        .filter(|c| c.thought)
        .map(effective_call_id)
        .collect();
    if thought_ids.is_empty() {
        return messages;
    }
    messages
        .into_iter()
        .filter(|m| !(m.role == Role::Tool && thought_ids.contains(&m.tool_call_id)))
        .map(|mut m| {
            if m.role == Role::Assistant {
                m.tool_calls.retain(|c| !c.thought);
            }
            m
        })
        .collect()
}

/// Gives every unanswered call a synthetic "interrupted" result (REFERENCE §5.2 [KEEP],
/// acceptance 63). For each assistant message with calls, the ids answered by the directly
/// following tool messages are collected; if a non-tool message follows (the turn is not
/// pending at the end), one synthetic tool message per unanswered id is inserted right after
/// the assistant message, before the existing replies.
pub fn repair_orphaned_calls(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        out.push(message.clone());
        if message.role != Role::Assistant || message.tool_calls.is_empty() {
            continue;
        }
        let replies: Vec<&Message> = messages[i + 1..]
            .iter()
            .take_while(|m| m.role == Role::Tool)
            .collect();
        let pending_at_end = i + 1 + replies.len() == messages.len();
        if pending_at_end {
            continue;
        }
        for call in &message.tool_calls {
            if call.id.is_empty() || replies.iter().any(|r| r.tool_call_id == call.id) {
                continue;
            }
            tracing::warn!(call_id = %call.id, tool = %call.name, "tool call has no result; sending a synthetic 'interrupted' result");
            out.push(Message::tool_result(
                call.id.clone(),
                call.name.clone(),
                INTERRUPTED_CALL_RESULT,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, thought: bool) -> ToolCallRequest {
        ToolCallRequest {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
            thought,
            ..Default::default()
        }
    }

    fn assistant_calling(calls: Vec<ToolCallRequest>) -> Message {
        Message {
            tool_calls: calls,
            ..Message::assistant("")
        }
    }

    fn shape(messages: &[Message]) -> Vec<String> {
        messages
            .iter()
            .map(|m| match m.role {
                Role::Tool => format!("T:{}", m.tool_call_id),
                Role::Assistant => {
                    format!(
                        "A:{}",
                        m.tool_calls
                            .iter()
                            .map(|c| c.id.as_str())
                            .collect::<Vec<_>>()
                            .join("+")
                    )
                }
                Role::User => "U".into(),
                Role::System => "S".into(),
            })
            .collect()
    }

    // Acceptance 63, first case.
    #[test]
    fn acceptance_63_orphaned_call_followed_by_user_gets_an_interrupted_result() {
        let out = repair_orphaned_calls(vec![
            assistant_calling(vec![call("call_orphan", "exec", false)]),
            Message::user("next"),
        ]);
        assert_eq!(shape(&out), ["A:call_orphan", "T:call_orphan", "U"]);
        assert_eq!(out[1].tool_call_name, "exec");
        let body: serde_json::Value =
            serde_json::from_str(&out[1].content).expect("synthetic result is JSON");
        let error = body["error"].as_str().expect("an error field");
        assert!(error.contains("interrupted"), "{error}");
        assert!(error.contains("Do not retry"), "{error}");
    }

    // Acceptance 63, second case: the synthetic result goes before the existing replies.
    #[test]
    fn acceptance_63_partially_answered_turn_gets_synthetic_results_before_existing_replies() {
        let out = repair_orphaned_calls(vec![
            assistant_calling(vec![
                call("call_a", "exec", false),
                call("call_b", "read", false),
            ]),
            Message::tool_result("call_a", "exec", "ok"),
            Message::user("next"),
        ]);
        assert_eq!(
            shape(&out),
            ["A:call_a+call_b", "T:call_b", "T:call_a", "U"]
        );
        assert_eq!(out[1].content, INTERRUPTED_CALL_RESULT);
        assert_eq!(out[2].content, "ok");
    }

    // Acceptance 63, third case: pending at the end, or fully answered → unchanged.
    #[test]
    fn acceptance_63_pending_or_matched_calls_are_unchanged() {
        let pending = vec![
            Message::user("go"),
            assistant_calling(vec![call("call_1", "exec", false)]),
        ];
        assert_eq!(repair_orphaned_calls(pending.clone()), pending);
        let pending_partial = vec![
            Message::user("go"),
            assistant_calling(vec![
                call("call_1", "exec", false),
                call("call_2", "exec", false),
            ]),
            Message::tool_result("call_1", "exec", "ok"),
        ];
        assert_eq!(
            repair_orphaned_calls(pending_partial.clone()),
            pending_partial
        );
        let matched = vec![
            assistant_calling(vec![call("call_1", "exec", false)]),
            Message::tool_result("call_1", "exec", "ok"),
            Message::user("next"),
        ];
        assert_eq!(repair_orphaned_calls(matched.clone()), matched);
    }

    // Acceptance 64.
    #[test]
    fn acceptance_64_thought_calls_and_their_results_are_removed() {
        let out = filter_thought_calls(vec![
            Message::user("q"),
            assistant_calling(vec![
                call("call_thought", "think", true),
                call("call_real", "exec", false),
            ]),
            Message::tool_result("call_thought", "think", "t"),
            Message::tool_result("call_real", "exec", "r"),
            Message::user("next"),
        ]);
        assert_eq!(shape(&out), ["U", "A:call_real", "T:call_real", "U"]);
    }

    #[test]
    fn acceptance_64_all_thought_calls_leave_an_assistant_without_calls() {
        let out = filter_thought_calls(vec![
            Message::user("q"),
            assistant_calling(vec![call("call_thought", "think", true)]),
            Message::tool_result("call_thought", "think", "t"),
            Message::user("next"),
        ]);
        assert_eq!(shape(&out), ["U", "A:", "U"]);
        assert!(out[1].tool_calls.is_empty());
    }

    #[test]
    fn prepare_drops_nameless_calls_and_fills_missing_ids_before_repairing() {
        let out = prepare_messages(&[
            assistant_calling(vec![call("", "exec", false), call("call_x", "", false)]),
            Message::user("next"),
        ]);
        assert_eq!(shape(&out), ["A:call_exec", "T:call_exec", "U"]);
    }
}
