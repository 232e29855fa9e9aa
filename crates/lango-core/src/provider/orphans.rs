//! The last line of defence against tool results without their call (issue 14 item 7).
//!
//! Every wire format rejects a tool result that answers no call of the assistant message
//! right before it (OpenAI and Anthropic answer 400). History rows can still arrive that way
//! — a database compacted by an older Lango, a row edited by hand — so each client folds such
//! a result into a user text line before building its request: the model keeps what the tool
//! said, and the request stays valid. Unanswered calls are each client's own repair (a
//! synthetic "interrupted" / "no response" result).
//!
//! Owns only that fold, over provider-neutral [`Message`]s: no wire format, no I/O.

use super::{Message, Role};

/// `messages` with every orphaned tool result turned into a user line
/// `[tool result for <name>: <content>]`. A result is paired when it sits in the run of tool
/// messages right after an assistant message with calls and answers one of them (by id; by
/// name when it has no id, or by id when it has no name), each call answered once.
pub fn fold_orphaned_results(messages: &[Message]) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    // The calls of the assistant message the current run of tool messages follows.
    let mut open: Vec<(String, String)> = Vec::new();
    for m in messages {
        if m.role != Role::Tool {
            open = if m.role == Role::Assistant {
                m.tool_calls
                    .iter()
                    .map(|c| (effective_id(&c.id, &c.name), c.name.clone()))
                    .collect()
            } else {
                Vec::new()
            };
            out.push(m.clone());
            continue;
        }
        let (id, name) = (&m.tool_call_id, &m.tool_call_name);
        let answered = open.iter().position(|(cid, cname)| {
            (!id.is_empty() && (cid == id || effective_id(id, name) == *cid))
                || (id.is_empty() && !name.is_empty() && cname == name)
        });
        match answered {
            Some(k) => {
                open.remove(k);
                out.push(m.clone());
            }
            None => {
                let shown = if name.is_empty() { id } else { name };
                tracing::warn!(tool_call_id = %id, tool = %name, "tool result without its call; sent as a user text line");
                out.push(Message::user(format!(
                    "[tool result for {shown}: {}]",
                    m.content
                )));
            }
        }
    }
    out
}

fn effective_id(id: &str, name: &str) -> String {
    if id.is_empty() {
        format!("call_{name}")
    } else {
        id.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCallRequest;

    fn calling(id: &str, name: &str) -> Message {
        Message {
            tool_calls: vec![ToolCallRequest {
                id: id.into(),
                name: name.into(),
                arguments: "{}".into(),
                ..Default::default()
            }],
            ..Message::assistant("")
        }
    }

    #[test]
    fn a_result_at_the_head_or_after_a_user_message_becomes_a_user_line() {
        let out = fold_orphaned_results(&[
            Message::tool_result("c0", "grep", r#"{"result":"3 hits"}"#),
            Message::user("and now?"),
            Message::tool_result("c9", "ls", "x"),
        ]);
        assert_eq!(
            out[0],
            Message::user(r#"[tool result for grep: {"result":"3 hits"}]"#)
        );
        assert_eq!(out[2], Message::user("[tool result for ls: x]"));
    }

    #[test]
    fn paired_results_are_kept_and_a_second_answer_to_one_call_is_folded() {
        let input = [
            calling("c1", "exec"),
            Message::tool_result("c1", "exec", "ok"),
            Message::tool_result("c1", "exec", "again"),
            calling("", "read"),
            Message::tool_result("", "read", "by name"),
        ];
        let out = fold_orphaned_results(&input);
        assert_eq!(out[1], input[1]);
        assert_eq!(out[2], Message::user("[tool result for exec: again]"));
        assert_eq!(out[4], input[4]);
    }
}
