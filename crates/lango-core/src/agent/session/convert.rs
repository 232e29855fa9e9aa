//! Message ⇄ event conversion (REFERENCE §2.3 rules 2–7 and §2.4).
//!
//! Owns how an event becomes a stored row (roles, tool-call JSON, base64 signatures) and how
//! stored rows become the merged events the model sees (role correction, author mapping,
//! parts per role with the legacy positional fallback). Pure functions: it must not touch the
//! store, truncate or cache (truncate.rs and events.rs do).

use serde_json::{Map, Value};

use crate::agent::types::{roles, Content, Event, Part, DEFAULT_AGENT_NAME};
use crate::store::{MessageStatus, NewMessage, ReplyInfo, StoredMessage, ToolCall};

/// `model` → `assistant`, `function` → `tool`; anything else verbatim (REFERENCE §2.3 rule 2).
pub fn normalise_role(role: &str) -> &str {
    match role {
        roles::MODEL => roles::ASSISTANT,
        roles::FUNCTION => roles::TOOL,
        other => other,
    }
}

/// The role a stored row is read with: a `user` row carrying a response (`output`) is a tool
/// row (responses may have been stored with the user role; REFERENCE §2.4 rule 1).
pub fn corrected_role(message: &StoredMessage) -> &str {
    if message.role == roles::USER && message.tool_calls.iter().any(|c| !c.output.is_empty()) {
        roles::TOOL
    } else {
        &message.role
    }
}

pub fn is_tool_role(role: &str) -> bool {
    role == roles::TOOL || role == roles::FUNCTION
}

fn is_assistant_role(role: &str) -> bool {
    role == roles::ASSISTANT || role == roles::MODEL
}

/// Whether the row carries a function call (a tool call with `input`).
pub fn has_function_call(message: &StoredMessage) -> bool {
    message.tool_calls.iter().any(|c| !c.input.is_empty())
}

/// The id stored for a call or response: its own, else `"call_" + name`.
pub fn call_id(id: &str, name: &str) -> String {
    if id.is_empty() {
        format!("call_{name}")
    } else {
        id.to_string()
    }
}

/// The root agent's name, or [`DEFAULT_AGENT_NAME`] when it has none.
pub fn agent_author(root_agent_name: &str) -> String {
    if root_agent_name.is_empty() {
        DEFAULT_AGENT_NAME.to_string()
    } else {
        root_agent_name.to_string()
    }
}

/// Whether `append_event` must skip the event: no content and a non-empty state delta
/// (REFERENCE §2.3 rule 1). Content with no parts counts as no content.
pub fn is_state_delta_only(event: &Event) -> bool {
    let no_content = event.content.as_ref().is_none_or(|c| c.parts.is_empty());
    no_content && !event.actions.state_delta.is_empty()
}

/// The row an event is stored as (REFERENCE §2.3 rules 2–7).
///
/// Thought text parts are not stored: thoughts are never shown or replayed as text.
pub fn event_to_message(event: &Event) -> NewMessage {
    let mut role = String::new();
    let mut content = String::new();
    let mut tool_calls = Vec::new();
    let mut attachments = Vec::new();
    if let Some(c) = &event.content {
        role = normalise_role(&c.role).to_string();
        for part in &c.parts {
            // An attached file is kept as its reference; its text is for the model only.
            if let Some(a) = &part.attachment {
                attachments.push(a.clone());
                continue;
            }
            if let Some(text) = &part.text {
                if !part.thought {
                    content.push_str(text);
                }
            }
            if let Some(fc) = &part.function_call {
                tool_calls.push(ToolCall {
                    id: call_id(&fc.id, &fc.name),
                    name: fc.name.clone(),
                    input: Value::Object(fc.args.clone()).to_string(),
                    output: String::new(),
                    thought: part.thought,
                    thought_signature: part
                        .thought_signature
                        .as_deref()
                        .map(crate::agent::signature::encode)
                        .unwrap_or_default(),
                    meta: None,
                });
            }
            if let Some(fr) = &part.function_response {
                let json = Value::Object(fr.response.clone()).to_string();
                content.push_str(&json);
                tool_calls.push(ToolCall {
                    id: call_id(&fr.id, &fr.name),
                    name: fr.name.clone(),
                    input: String::new(),
                    output: json,
                    thought: false,
                    thought_signature: String::new(),
                    meta: fr.meta.clone(),
                });
            }
        }
    }
    let has_output = tool_calls.iter().any(|c: &ToolCall| !c.output.is_empty());
    let has_input = tool_calls.iter().any(|c: &ToolCall| !c.input.is_empty());
    if has_output && !has_input {
        role = roles::TOOL.to_string();
    }
    if role.is_empty() {
        role = if event.author == roles::USER {
            roles::USER
        } else {
            roles::ASSISTANT
        }
        .to_string();
    }
    // A model reply carries who wrote it and the provider's token counts.
    let reply = event
        .model
        .as_ref()
        .filter(|_| role == roles::ASSISTANT)
        .map(|m| ReplyInfo {
            provider: m.provider.clone(),
            model: m.model.clone(),
            input_tokens: event.usage.map(|u| u.input_tokens),
            output_tokens: event.usage.map(|u| u.output_tokens),
            cost: None,
        });
    NewMessage {
        role,
        author: event.author.clone(),
        content,
        tool_calls,
        // An event carrying an error is a reply cut off mid-stream (provider failure, stop):
        // its text is kept, marked so the UI and exports can say so. A reply the output limit
        // cut is complete as far as the provider goes, but not as far as the user goes.
        status: if event.error.is_some() {
            MessageStatus::Interrupted
        } else if event.truncated {
            MessageStatus::Truncated
        } else {
            MessageStatus::Complete
        },
        created_at: (event.timestamp != 0).then_some(event.timestamp),
        reply,
        attachments,
    }
}

/// The author an event of this row gets (REFERENCE §2.4 rule 2); `role` is the corrected role.
fn author_for(message: &StoredMessage, role: &str, root_agent_name: &str) -> String {
    if !message.author.is_empty() {
        return message.author.clone();
    }
    match role {
        roles::USER => roles::USER.to_string(),
        roles::TOOL | roles::FUNCTION => "tool".to_string(),
        // assistant/model and any other role (system, unknown) speak for the agent.
        _ => agent_author(root_agent_name),
    }
}

/// A JSON text as an object; anything else (invalid, array, scalar) → `{}`.
fn json_object(text: &str) -> Map<String, Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

fn function_call_part(call: &ToolCall) -> Part {
    let mut part = Part::function_call(
        call_id(&call.id, &call.name),
        call.name.clone(),
        json_object(&call.input),
    );
    part.thought = call.thought;
    part.thought_signature =
        crate::agent::signature::decode(&call.thought_signature).filter(|s| !s.is_empty());
    part
}

/// The parts and content role of one row (REFERENCE §2.4 rule 3). `remembered` holds the calls
/// of the last assistant row, consumed one per legacy tool row.
fn parts_for(
    message: &StoredMessage,
    role: &str,
    remembered: &mut Vec<ToolCall>,
) -> (Vec<Part>, String) {
    let mut parts = Vec::new();
    if is_assistant_role(role) {
        if !message.content.is_empty() {
            parts.push(Part::text(message.content.clone()));
        }
        // A legacy call may lack its id: it gets "call_" + name, as its response will.
        let calls: Vec<ToolCall> = message
            .tool_calls
            .iter()
            .filter(|c| !c.input.is_empty())
            .map(|c| ToolCall {
                id: call_id(&c.id, &c.name),
                ..c.clone()
            })
            .collect();
        parts.extend(calls.iter().map(function_call_part));
        *remembered = calls;
        return (parts, roles::ASSISTANT.to_string());
    }
    if is_tool_role(role) {
        let responses: Vec<Part> = message
            .tool_calls
            .iter()
            .filter(|c| !c.output.is_empty())
            .filter_map(|c| {
                let (id, name) = response_identity(c, remembered)?;
                Some(Part::function_response(id, name, json_object(&c.output)))
            })
            .collect();
        if !responses.is_empty() {
            return (responses, roles::FUNCTION.to_string());
        }
        if !remembered.is_empty() {
            let call = remembered.remove(0);
            let response = if message.content.is_empty() {
                Map::new()
            } else {
                match serde_json::from_str::<Value>(&message.content) {
                    Ok(Value::Object(map)) if !map.is_empty() => map,
                    _ => Map::from_iter([(
                        "result".to_string(),
                        Value::String(message.content.clone()),
                    )]),
                }
            };
            parts.push(Part::function_response(call.id, call.name, response));
            return (parts, roles::FUNCTION.to_string());
        }
    }
    if !message.content.is_empty() {
        parts.push(Part::text(message.content.clone()));
    }
    parts.extend(message.attachments.iter().cloned().map(Part::attachment));
    (parts, role.to_string())
}

/// The call a stored response answers: its own id and name when it has both; a legacy one
/// missing either takes them from the remembered call of that name, else positionally from the
/// first remembered call (which is then used up), else keeps what it has (a missing id becomes
/// `"call_" + name`). None when nothing identifies it: its row is then read as text.
fn response_identity(
    response: &ToolCall,
    remembered: &mut Vec<ToolCall>,
) -> Option<(String, String)> {
    if !response.id.is_empty() && !response.name.is_empty() {
        return Some((response.id.clone(), response.name.clone()));
    }
    let by_name = remembered
        .iter()
        .position(|c| !response.name.is_empty() && c.name == response.name);
    let by_id = remembered
        .iter()
        .position(|c| !response.id.is_empty() && c.id == response.id);
    let first = (!remembered.is_empty()).then_some(0);
    if let Some(at) = by_id.or(by_name).or(first) {
        let call = remembered.remove(at);
        return Some((call.id, call.name));
    }
    if response.id.is_empty() && response.name.is_empty() {
        tracing::warn!("a stored tool response names no call and follows none; read as text");
        return None;
    }
    Some((call_id(&response.id, &response.name), response.name.clone()))
}

/// The events of rows already truncated (REFERENCE §2.4): rows without parts are skipped and
/// consecutive events of the same content role are merged into the first (its author, id and
/// timestamp are kept).
pub fn messages_to_events(messages: &[StoredMessage], root_agent_name: &str) -> Vec<Event> {
    let mut events: Vec<Event> = Vec::new();
    let mut remembered: Vec<ToolCall> = Vec::new();
    for message in messages {
        let role = corrected_role(message);
        let author = author_for(message, role, root_agent_name);
        let (parts, role) = parts_for(message, role, &mut remembered);
        if parts.is_empty() {
            continue;
        }
        if let Some(previous) = events.last_mut().and_then(|e| e.content.as_mut()) {
            if previous.role == role {
                previous.parts.extend(parts);
                continue;
            }
        }
        events.push(Event {
            id: uuid::Uuid::new_v4().to_string(),
            author,
            timestamp: message.created_at,
            content: Some(Content::new(role, parts)),
            ..Event::default()
        });
    }
    events
}
