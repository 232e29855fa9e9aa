//! Closing dangling tool calls after a failed run (REFERENCE §2.6, acceptance 42).
//!
//! Owns finding the calls no tool row answered and appending one interrupted-error response
//! per call. It must not touch the in-memory history of loaded sessions (the next turn loads a
//! fresh one) nor delete or rewrite any row.

use crate::agent::error::AgentError;
use crate::agent::types::roles;
use crate::store::{MessageStatus, NewMessage, Store, ToolCall};

use super::convert::{agent_author, call_id, corrected_role, is_tool_role};

/// The response content and output of a closed call.
pub const INTERRUPTED_TOOL_OUTPUT: &str =
    r#"{"error":"tool call was interrupted and did not complete"}"#;

struct OpenCall {
    id: String,
    name: String,
    author: String,
}

/// Appends a tool row `{"error":"tool call was interrupted and did not complete"}` for every
/// function call of the session that no later tool row answered, in first-seen order, authored
/// by the call's author (else the root agent, else "lango-agent"). Idempotent: a second run
/// finds every call answered. Returns how many rows it appended.
pub async fn close_dangling_calls(
    store: &Store,
    key: &str,
    root_agent_name: &str,
) -> Result<usize, AgentError> {
    let messages = store.list_messages(key).await?;
    let mut open: Vec<OpenCall> = Vec::new();
    for message in &messages {
        let role = corrected_role(message);
        if role == roles::ASSISTANT || role == roles::MODEL {
            for call in message.tool_calls.iter().filter(|c| !c.input.is_empty()) {
                let id = call_id(&call.id, &call.name);
                if !open.iter().any(|o| o.id == id) {
                    open.push(OpenCall {
                        id,
                        name: call.name.clone(),
                        author: message.author.clone(),
                    });
                }
            }
        } else if is_tool_role(role) {
            for answer in message.tool_calls.iter().filter(|c| !c.output.is_empty()) {
                let id = call_id(&answer.id, &answer.name);
                open.retain(|o| o.id != id);
            }
        }
    }
    for call in &open {
        let author = if call.author.is_empty() {
            agent_author(root_agent_name)
        } else {
            call.author.clone()
        };
        store
            .append_message(
                key,
                NewMessage {
                    role: roles::TOOL.to_string(),
                    author,
                    content: INTERRUPTED_TOOL_OUTPUT.to_string(),
                    tool_calls: vec![ToolCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        output: INTERRUPTED_TOOL_OUTPUT.to_string(),
                        ..ToolCall::default()
                    }],
                    status: MessageStatus::Complete,
                    created_at: None,
                    reply: None,
                    attachments: Vec::new(),
                },
            )
            .await?;
    }
    Ok(open.len())
}
