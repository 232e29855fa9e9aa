//! The Chat Completions request body (REFERENCE §5.2 "Request" and "Messages").
//!
//! Owns the JSON shape only: messages, tools with `strict`, sampling options. It must not
//! repair conversations (that is `repair`, applied by the caller first) or do I/O.

use serde_json::{json, Map, Value};

use crate::provider::{GenerateParams, Message, Role, ToolSpec};

/// The whole `POST /chat/completions` body for already prepared `messages`.
pub fn build_body(params: &GenerateParams, model: &str, messages: &[Message]) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "messages".into(),
        Value::Array(messages.iter().map(message_json).collect()),
    );
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    let tools: Vec<Value> = params.tools.iter().filter_map(tool_json).collect();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = params.temperature {
        body.insert("temperature".into(), json!(round_f32(t)));
    }
    if let Some(n) = params.max_tokens {
        let key = if is_reasoning_model(model) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(key.into(), json!(n));
    }
    Value::Object(body)
}

/// OpenAI's reasoning models reject `max_tokens` and need `max_completion_tokens`.
pub fn is_reasoning_model(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    m.starts_with("gpt-5")
        || ["o1", "o3", "o4"]
            .iter()
            .any(|p| m == *p || m.starts_with(&format!("{p}-")))
}

/// `0.7f32` as the JSON number `0.7` rather than `0.699999988079071`.
fn round_f32(v: f32) -> f64 {
    let parsed: Option<f64> = v.to_string().parse().ok();
    parsed.unwrap_or(f64::from(v))
}

/// One message in wire form. Assistant content is always a string (llama-cpp-python rejects
/// `null`); `tool_calls` only when there are calls.
pub fn message_json(m: &Message) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User if m.images.is_empty() => json!({"role": "user", "content": m.content}),
        Role::User => json!({"role": "user", "content": user_parts(m)}),
        Role::Assistant => {
            let mut v = json!({"role": "assistant", "content": m.content});
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .filter(|c| !c.name.is_empty())
                .map(|c| {
                    let id = if c.id.is_empty() { format!("call_{}", c.name) } else { c.id.clone() };
                    let arguments = if c.arguments.trim().is_empty() { "{}".to_string() } else { c.arguments.clone() };
                    json!({"id": id, "type": "function", "function": {"name": c.name, "arguments": arguments}})
                })
                .collect();
            if !calls.is_empty() {
                v["tool_calls"] = Value::Array(calls);
            }
            v
        }
        Role::Tool => {
            let id = if m.tool_call_id.is_empty() && !m.tool_call_name.is_empty() {
                format!("call_{}", m.tool_call_name)
            } else {
                m.tool_call_id.clone()
            };
            json!({"role": "tool", "tool_call_id": id, "content": m.content})
        }
    }
}

/// A user message with images as content parts: its text first (when there is any), then
/// each image as a `data:` URL, as the Chat Completions vision guide shows. Only used when
/// there are images, so text-only requests keep the plain-string `content`.
fn user_parts(m: &Message) -> Value {
    let mut parts = Vec::with_capacity(m.images.len() + 1);
    if !m.content.is_empty() {
        parts.push(json!({"type": "text", "text": m.content}));
    }
    for image in &m.images {
        parts.push(json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
        }));
    }
    Value::Array(parts)
}

/// A tool declaration; None for a nameless one.
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
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": parameters,
            "strict": is_strict(&tool.parameters),
        }
    }))
}

/// REFERENCE §5.2: strict when `additionalProperties` is boolean false AND there are no (or
/// empty) properties or every property is listed in `required`.
pub fn is_strict(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    if obj.get("additionalProperties") != Some(&Value::Bool(false)) {
        return false;
    }
    let properties = match obj.get("properties") {
        None | Some(Value::Null) => return true,
        Some(Value::Object(p)) => p,
        Some(_) => return false,
    };
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties.keys().all(|k| required.contains(&k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Acceptance 65.
    #[test]
    fn acceptance_65_strict_only_for_closed_schemas_with_everything_required() {
        let all_required = json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false});
        assert!(is_strict(&all_required));
        let optional = json!({"type":"object","properties":{"a":{},"b":{}},"required":["a"],"additionalProperties":false});
        assert!(!is_strict(&optional));
        let missing_ap = json!({"type":"object","properties":{"a":{}},"required":["a"]});
        assert!(!is_strict(&missing_ap));
        let true_ap = json!({"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":true});
        assert!(!is_strict(&true_ap));
        assert!(!is_strict(&Value::Null));
        assert!(is_strict(
            &json!({"type":"object","additionalProperties":false})
        ));
        assert!(is_strict(
            &json!({"type":"object","properties":{},"additionalProperties":false})
        ));
    }

    #[test]
    fn acceptance_65_nameless_tools_are_skipped() {
        let tool = |name: &str| ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({}),
        };
        let params = GenerateParams {
            tools: vec![tool("a"), tool(""), tool("b")],
            ..Default::default()
        };
        let body = build_body(&params, "m", &[]);
        let names: Vec<&str> = body["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["function"]["name"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens() {
        let params = GenerateParams {
            max_tokens: Some(100),
            ..Default::default()
        };
        assert_eq!(
            build_body(&params, "o3-mini", &[])["max_completion_tokens"],
            100
        );
        assert_eq!(
            build_body(&params, "gpt-5", &[])["max_completion_tokens"],
            100
        );
        assert!(build_body(&params, "gpt-5", &[])
            .get("max_tokens")
            .is_none());
        assert_eq!(build_body(&params, "gpt-4o", &[])["max_tokens"], 100);
        assert_eq!(build_body(&params, "llama3.1", &[])["max_tokens"], 100);
    }

    #[test]
    fn temperature_is_sent_as_the_decimal_the_user_chose() {
        let params = GenerateParams {
            temperature: Some(0.7),
            ..Default::default()
        };
        assert_eq!(
            build_body(&params, "m", &[])["temperature"].to_string(),
            "0.7"
        );
    }
}
