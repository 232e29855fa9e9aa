//! Provider-neutral messages → the `streamGenerateContent` request body (REFERENCE §5.4
//! "Request", then [`sanitize`](super::sanitize::sanitize)).
//!
//! Owns the message conversion, `systemInstruction`, tool declarations and
//! `generationConfig`. It must not do HTTP nor parse responses.

use serde_json::{json, Map, Value};

use super::sanitize::{sanitize, Content, GeminiRole, Part};
use crate::provider::{GenerateParams, Message, Role};

/// The whole request body.
pub fn build_body(params: &GenerateParams) -> Value {
    let mut body = Map::new();
    let messages = crate::provider::orphans::fold_orphaned_results(&params.messages);
    let contents = sanitize(to_contents(&messages));
    body.insert(
        "contents".into(),
        Value::Array(contents.iter().map(Content::to_json).collect()),
    );

    // Every system message, wherever it is (a compaction summary is a second one).
    let system: Vec<Value> = params
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.trim().is_empty())
        .map(|m| json!({"text": m.content}))
        .collect();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": system}));
    }

    let declarations: Vec<Value> = params
        .tools
        .iter()
        .filter(|t| !t.name.is_empty())
        .map(|t| {
            // [FIX] parametersJsonSchema takes full JSON Schema (additionalProperties etc.).
            let schema = if t.parameters.is_object() {
                t.parameters.clone()
            } else {
                json!({"type": "object", "properties": {}})
            };
            json!({"name": t.name, "description": t.description, "parametersJsonSchema": schema})
        })
        .collect();
    if !declarations.is_empty() {
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }

    let mut generation = Map::new();
    if let Some(t) = params.temperature {
        generation.insert("temperature".into(), number_from_f32(t));
    }
    if let Some(max) = params.max_tokens.filter(|&m| m >= 1) {
        generation.insert("maxOutputTokens".into(), json!(max));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

/// An f32 as the JSON number a person would write (0.7, not 0.699999988079071).
fn number_from_f32(v: f32) -> Value {
    format!("{v}")
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// A tool message's content as the `response` object: its JSON if that is an object, else
/// `{"result": content}`.
fn response_object(content: &str) -> Value {
    match serde_json::from_str::<Value>(content) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({"result": content}),
    }
}

fn args_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({}),
    }
}

/// Messages → contents, before sanitising. System messages are left out (they go to
/// `systemInstruction`).
pub fn to_contents(messages: &[Message]) -> Vec<Content> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            Role::System => {}
            Role::User => {
                // Images first, then the text, as Gemini's image-understanding guide does.
                let mut parts: Vec<Part> = m
                    .images
                    .iter()
                    .map(|i| Part::Image {
                        mime_type: i.mime_type.clone(),
                        data: i.data.clone(),
                    })
                    .collect();
                if !m.content.is_empty() {
                    parts.push(Part::Text(m.content.clone()));
                }
                if !parts.is_empty() {
                    out.push(Content::new(GeminiRole::User, parts));
                }
            }
            Role::Assistant => {
                let mut parts = Vec::new();
                if !m.content.is_empty() {
                    parts.push(Part::Text(m.content.clone()));
                }
                for call in &m.tool_calls {
                    if call.name.is_empty() {
                        tracing::warn!(id = %call.id, "tool call without a name; not sent");
                        continue;
                    }
                    if call.thought && call.thought_signature.is_empty() {
                        tracing::warn!(id = %call.id, name = %call.name, "thought call without a signature; not sent");
                        continue;
                    }
                    parts.push(Part::Call {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        args: args_object(&call.arguments),
                        thought: call.thought,
                        signature: call.thought_signature.clone(),
                    });
                }
                if !parts.is_empty() {
                    out.push(Content::new(GeminiRole::Model, parts));
                }
            }
            Role::Tool => {
                let mut name = m.tool_call_name.clone();
                if name.is_empty() && !m.tool_call_id.is_empty() {
                    // Only the NEAREST preceding assistant message may name it.
                    name = messages[..i]
                        .iter()
                        .rev()
                        .find(|p| p.role == Role::Assistant)
                        .and_then(|a| a.tool_calls.iter().find(|c| c.id == m.tool_call_id))
                        .map(|c| c.name.clone())
                        .unwrap_or_default();
                }
                if name.is_empty() {
                    tracing::warn!(tool_call_id = %m.tool_call_id, "tool result whose tool cannot be named; dropped");
                    continue;
                }
                // Same fallback id as the rest of the engine (REFERENCE §1.4 [FIX]).
                let id = if m.tool_call_id.is_empty() {
                    format!("call_{name}")
                } else {
                    m.tool_call_id.clone()
                };
                out.push(Content::new(
                    GeminiRole::User,
                    vec![Part::Response {
                        id,
                        name,
                        response: response_object(&m.content),
                    }],
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCallRequest;

    fn call(id: &str, name: &str) -> ToolCallRequest {
        ToolCallRequest {
            id: id.into(),
            name: name.into(),
            arguments: "{\"a\":1}".into(),
            ..Default::default()
        }
    }

    fn assistant_with(calls: Vec<ToolCallRequest>) -> Message {
        Message {
            tool_calls: calls,
            ..Message::assistant("")
        }
    }

    /// The (id, name) of every function response in the sanitised contents.
    fn responses(contents: &[Content]) -> Vec<(String, String)> {
        contents
            .iter()
            .flat_map(|c| &c.parts)
            .filter_map(|p| match p {
                Part::Response { id, name, .. } => Some((id.clone(), name.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn acceptance_69_a_response_to_a_dropped_call_is_removed_with_its_content() {
        // The thought call without a signature is dropped, so its result answers nothing.
        let thought = ToolCallRequest {
            thought: true,
            ..call("call_t", "think")
        };
        let msgs = vec![
            Message::user("hi"),
            Message {
                tool_calls: vec![thought],
                ..Message::assistant("let me see")
            },
            Message::tool_result("call_t", "think", "{\"x\":1}"),
            Message::user("go on"),
        ];
        let out = sanitize(to_contents(&msgs));
        assert!(responses(&out).is_empty());
        assert_eq!(
            out.iter().map(|c| c.role).collect::<Vec<_>>(),
            [GeminiRole::User, GeminiRole::Model, GeminiRole::User]
        );
        // And a call answered by nothing gets a synthetic response that keeps its id.
        let msgs = vec![
            Message::user("hi"),
            assistant_with(vec![call("call_1", "exec")]),
            Message::user("next"),
        ];
        assert_eq!(
            responses(&sanitize(to_contents(&msgs))),
            [("call_1".to_string(), "exec".to_string())]
        );
    }

    #[test]
    fn acceptance_70_names_come_from_the_nearest_assistant_and_unsigned_thought_calls_are_dropped()
    {
        let nameless = Message::tool_result("call_1", "", "ok");
        // Nearest assistant has call_1 → named "exec".
        let msgs = vec![
            Message::user("u"),
            assistant_with(vec![call("call_1", "exec")]),
            nameless.clone(),
        ];
        assert_eq!(
            responses(&to_contents(&msgs)),
            [("call_1".to_string(), "exec".to_string())]
        );
        // Only an older assistant has it → dropped.
        let msgs = vec![
            Message::user("u"),
            assistant_with(vec![call("call_1", "exec")]),
            Message::tool_result("call_1", "exec", "ok"),
            Message::assistant("between"),
            nameless,
        ];
        assert_eq!(
            responses(&to_contents(&msgs)),
            [("call_1".to_string(), "exec".to_string())],
            "only the first, named, result remains"
        );

        let unsigned = ToolCallRequest {
            thought: true,
            ..call("call_t", "think")
        };
        let signed = ToolCallRequest {
            thought: true,
            thought_signature: "c2ln".into(),
            ..call("call_s", "think")
        };
        let out = to_contents(&[assistant_with(vec![unsigned, signed])]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].parts.len(), 1);
        assert!(
            matches!(&out[0].parts[0], Part::Call { id, thought: true, signature, .. } if id == "call_s" && signature == "c2ln")
        );
    }

    #[test]
    fn acceptance_71_the_call_name_id_is_echoed_in_function_call_and_response() {
        // The assembler named Gemini's id-less get_country call "call_get_country".
        let call = ToolCallRequest {
            id: "call_get_country".into(),
            name: "get_country".into(),
            arguments: "{}".into(),
            thought_signature: "c2ln".into(),
            ..Default::default()
        };
        let msgs = vec![
            Message::user("capital?"),
            assistant_with(vec![call]),
            Message::tool_result(
                "call_get_country",
                "get_country",
                "{\"return_value\":\"Mexico\"}",
            ),
        ];
        let body = build_body(&GenerateParams {
            messages: msgs,
            ..Default::default()
        });
        assert_eq!(
            body["contents"][1]["parts"][0],
            json!({"functionCall": {"id": "call_get_country", "name": "get_country", "args": {}}, "thoughtSignature": "c2ln"})
        );
        assert_eq!(
            body["contents"][2]["parts"][0],
            json!({"functionResponse": {"id": "call_get_country", "name": "get_country", "response": {"return_value": "Mexico"}}})
        );
    }

    #[test]
    fn tool_results_become_response_objects() {
        assert_eq!(response_object("{\"temp\":21}"), json!({"temp": 21}));
        assert_eq!(response_object("[1]"), json!({"result": "[1]"}));
        assert_eq!(response_object("plain"), json!({"result": "plain"}));
        let out = to_contents(&[Message::tool_result("", "exec", "x")]);
        assert!(matches!(&out[0].parts[0], Part::Response { id, .. } if id == "call_exec"));
    }
}
