//! Runtime shapes → provider request (REFERENCE §1.2 system instruction, §1.4 contents →
//! messages, tool declarations) and the way back for assembled calls (provider
//! `ToolCallRequest` → `FunctionCall` part).
//!
//! Owns only pure conversions: no I/O, no streams. It must not repair the conversation
//! (orphaned calls, thought-call filtering, merging): that is each provider's job (§5), and
//! it must not reorder or drop contents beyond what §1.4 says.

use serde_json::{Map, Value};

use crate::agent::types::{roles, Content, FunctionCall, GenerateConfig, Part};
use crate::provider::{ImageInput, Message, Role, ToolCallRequest, ToolSpec};

/// The id a call or response without one gets: `"call_" + name` (REFERENCE §1.4 [FIX]).
pub fn fallback_call_id(id: &str, name: &str) -> String {
    if id.is_empty() {
        format!("call_{name}")
    } else {
        id.to_string()
    }
}

/// The ONE system message for `config.system_instruction`: its non-empty, non-thought text
/// parts joined with `"\n"`. None when the instruction is absent, empty or has no text.
pub fn system_message(config: &GenerateConfig) -> Option<Message> {
    let instruction = config.system_instruction.as_ref()?;
    let text = instruction
        .parts
        .iter()
        .filter(|p| !p.thought)
        .filter_map(|p| p.text.as_deref())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (!text.is_empty()).then(|| Message::system(text))
}

/// The tool declarations to send, in declaration order, without empty names.
pub fn tool_specs(config: &GenerateConfig) -> Vec<ToolSpec> {
    config
        .tools
        .iter()
        .filter(|t| {
            if t.name.is_empty() {
                tracing::warn!("tool declaration without a name; not sent");
            }
            !t.name.is_empty()
        })
        .cloned()
        .collect()
}

/// A content role as a provider role: `model`/`assistant` → assistant, `function`/`tool` →
/// tool, `system`, `user`; anything else (including "") is sent as user.
pub fn provider_role(role: &str) -> Role {
    match role {
        roles::MODEL | roles::ASSISTANT => Role::Assistant,
        roles::FUNCTION | roles::TOOL => Role::Tool,
        roles::SYSTEM => Role::System,
        roles::USER => Role::User,
        other => {
            tracing::debug!(role = other, "unknown content role; sent as user");
            Role::User
        }
    }
}

/// Contents → provider messages (REFERENCE §1.4), one message per content except a tool
/// content with two or more function responses, which becomes one tool message per response.
/// A `user` content holding only function responses is a tool content (§2.3 rule 5).
pub fn contents_to_messages(contents: &[Content]) -> Vec<Message> {
    let mut out = Vec::with_capacity(contents.len());
    for content in contents {
        convert_content(content, &mut out);
    }
    out
}

fn convert_content(content: &Content, out: &mut Vec<Message>) {
    let responses = content
        .parts
        .iter()
        .filter(|p| p.function_response.is_some())
        .count();
    let only_responses = responses > 0 && responses == content.parts.len();
    let mut role = provider_role(&content.role);
    if role == Role::User && only_responses {
        role = Role::Tool;
    }

    if role == Role::Tool && responses >= 2 {
        for part in &content.parts {
            if let Some(r) = &part.function_response {
                out.push(Message::tool_result(
                    fallback_call_id(&r.id, &r.name),
                    r.name.clone(),
                    json_text(&r.response),
                ));
            }
        }
        return;
    }

    let mut message = Message::new(role, "");
    let mut pieces: Vec<String> = Vec::new();
    for part in &content.parts {
        if let Some(text) = &part.text {
            if !part.thought && !text.is_empty() {
                pieces.push(text.clone());
            }
        }
        if let Some(call) = &part.function_call {
            if call.name.is_empty() {
                tracing::warn!(id = %call.id, "function call without a name; not sent");
            } else {
                message.tool_calls.push(ToolCallRequest {
                    id: fallback_call_id(&call.id, &call.name),
                    name: call.name.clone(),
                    arguments: json_text(&call.args),
                    thought: part.thought,
                    thought_signature: part
                        .thought_signature
                        .as_deref()
                        .map(crate::agent::signature::encode)
                        .unwrap_or_default(),
                });
            }
        }
        if let Some(r) = &part.function_response {
            pieces.push(json_text(&r.response));
            message.tool_call_id = fallback_call_id(&r.id, &r.name);
            message.tool_call_name.clone_from(&r.name);
        }
        // An attached image: only a user message carries images in every wire format.
        if let Some(data) = &part.inline_data {
            if role == Role::User {
                message.images.push(ImageInput {
                    mime_type: data.mime_type.clone(),
                    data: data.data.clone(),
                });
            } else {
                tracing::warn!(role = ?role, "an image outside a user message; not sent");
            }
        }
    }
    message.content = pieces.join("\n");
    out.push(message);
}

fn json_text(object: &Map<String, Value>) -> String {
    Value::Object(object.clone()).to_string()
}

/// An assembled provider call as a `FunctionCall` part: arguments parsed (an object, else
/// `{}`), id fallback `"call_" + name`, thought flag and signature (base64 → bytes) kept.
pub fn call_part(call: &ToolCallRequest) -> Part {
    let args = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    Part {
        function_call: Some(FunctionCall {
            id: fallback_call_id(&call.id, &call.name),
            name: call.name.clone(),
            args,
        }),
        thought: call.thought,
        thought_signature: signature_bytes(&call.thought_signature),
        ..Part::default()
    }
}

/// A provider signature (base64 text) as the bytes a `Part` holds. Text that is not standard
/// base64 is kept as its UTF-8 bytes (with a warning) rather than lost.
pub fn signature_bytes(signature: &str) -> Option<Vec<u8>> {
    if signature.is_empty() {
        return None;
    }
    Some(
        crate::agent::signature::decode(signature).unwrap_or_else(|| {
            tracing::warn!("thought signature is not base64; kept as text bytes");
            signature.as_bytes().to_vec()
        }),
    )
}

/// The final content of a model call: `[Text(all) if non-empty] + calls`, role `model`.
pub fn final_content(text: &str, calls: &[ToolCallRequest]) -> Content {
    let mut parts = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        parts.push(Part::text(text));
    }
    parts.extend(calls.iter().map(call_part));
    Content::new(roles::MODEL, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_base64_signature_is_kept_as_text_bytes() {
        assert_eq!(signature_bytes("sig-data"), Some(b"sig-data".to_vec()));
        assert_eq!(signature_bytes(""), None);
    }
}
