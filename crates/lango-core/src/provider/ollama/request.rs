//! The native `POST /api/chat` request body.
//!
//! Owns the JSON shape only (messages with object arguments, tools, `options`). It must not
//! repair conversations (the caller applies `openai::repair` first) or do I/O.

use serde_json::{json, Map, Value};

use crate::provider::{GenerateParams, Message, Role, ToolSpec};

pub fn build_body(params: &GenerateParams, model: &str, messages: &[Message]) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "messages".into(),
        Value::Array(messages.iter().map(message_json).collect()),
    );
    body.insert("stream".into(), json!(true));
    let tools: Vec<Value> = params.tools.iter().filter_map(tool_json).collect();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut options = Map::new();
    if let Some(t) = params.temperature {
        let t: f64 = t.to_string().parse().unwrap_or(f64::from(t));
        options.insert("temperature".into(), json!(t));
    }
    if let Some(n) = params.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    Value::Object(body)
}

/// One message: assistant calls carry their arguments as a JSON object (invalid text → `{}`);
/// tool results carry `tool_name` when known.
pub fn message_json(m: &Message) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User => {
            let mut v = json!({"role": "user", "content": m.content});
            if !m.images.is_empty() {
                // Ollama's /api/chat: bare base64 strings, no mime type (it sniffs the bytes).
                let images: Vec<&str> = m.images.iter().map(|i| i.data.as_str()).collect();
                v["images"] = json!(images);
            }
            v
        }
        Role::Assistant => {
            let mut v = json!({"role": "assistant", "content": m.content});
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .filter(|c| !c.name.is_empty())
                .map(|c| {
                    let arguments = match serde_json::from_str::<Value>(&c.arguments) {
                        Ok(a @ Value::Object(_)) => a,
                        _ => json!({}),
                    };
                    json!({"function": {"name": c.name, "arguments": arguments}})
                })
                .collect();
            if !calls.is_empty() {
                v["tool_calls"] = Value::Array(calls);
            }
            v
        }
        Role::Tool => {
            let mut v = json!({"role": "tool", "content": m.content});
            if !m.tool_call_name.is_empty() {
                v["tool_name"] = json!(m.tool_call_name);
            }
            v
        }
    }
}

pub fn tool_json(tool: &ToolSpec) -> Option<Value> {
    if tool.name.is_empty() {
        tracing::warn!("tool declaration without a name; skipped");
        return None;
    }
    let parameters = if tool.parameters.is_object() {
        tool.parameters.clone()
    } else {
        json!({"type": "object", "properties": {}})
    };
    Some(json!({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": parameters}
    }))
}
