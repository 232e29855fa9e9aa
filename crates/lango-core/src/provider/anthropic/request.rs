//! Provider-neutral messages → the Messages API request body (REFERENCE §5.3 "Ours").
//!
//! Owns the conversion only: system texts, content blocks, tool-result grouping, turn
//! merging and the synthetic results for unanswered calls. It must not do HTTP.

use serde_json::{json, Map, Value};

use crate::provider::{GenerateParams, ImageInput, Message, Role, ToolCallRequest};

/// `max_tokens` when the caller set none (the API requires ≥ 1).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The result sent for a call that never got one (REFERENCE §5.2: interrupted, do not retry;
/// the same text as the OpenAI client's `INTERRUPTED_CALL_RESULT`).
pub use super::super::INTERRUPTED_CALL_RESULT as INTERRUPTED_RESULT;

/// The whole request body for `model`.
pub fn build_body(params: &GenerateParams, model: &str) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let max_tokens = params
        .max_tokens
        .filter(|&m| m >= 1)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    let system = system_text(&params.messages);
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    body.insert(
        "messages".into(),
        Value::Array(convert_messages(&params.messages)),
    );
    if let Some(t) = params.temperature {
        body.insert("temperature".into(), number_from_f32(t));
    }
    let tools: Vec<Value> = params
        .tools
        .iter()
        .filter(|t| !t.name.is_empty())
        .map(|t| {
            let schema = if t.parameters.is_object() {
                t.parameters.clone()
            } else {
                json!({"type": "object", "properties": {}})
            };
            json!({"name": t.name, "description": t.description, "input_schema": schema})
        })
        .collect();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// Every system message's text, wherever it is (a compaction summary arrives as a second
/// system message, REFERENCE §3.6 [FIX]), joined with a blank line.
pub fn system_text(messages: &[Message]) -> String {
    messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
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

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn image_block(image: &ImageInput) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    })
}

fn call_id(call: &ToolCallRequest) -> String {
    if call.id.is_empty() {
        format!("call_{}", call.name)
    } else {
        call.id.clone()
    }
}

fn args_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({}),
    }
}

/// A result is an error when its JSON is an object with an `error` key.
fn is_error_result(content: &str) -> bool {
    serde_json::from_str::<Value>(content).is_ok_and(|v| v.get("error").is_some())
}

/// The `messages` array: user/assistant turns with content blocks, no system messages.
pub fn convert_messages(messages: &[Message]) -> Vec<Value> {
    let messages = &crate::provider::orphans::fold_orphaned_results(messages)[..];
    // (role, blocks) before merging.
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        i += 1;
        match m.role {
            Role::System => {}
            Role::User => {
                // Images first, then the text: Anthropic's vision guide puts the image
                // before the question about it.
                let mut blocks: Vec<Value> = m.images.iter().map(image_block).collect();
                if !m.content.is_empty() {
                    blocks.push(text_block(&m.content));
                }
                if !blocks.is_empty() {
                    turns.push(("user", blocks));
                }
            }
            Role::Tool => {
                // Results not directly after an assistant turn with calls: nothing to pair with.
                tracing::warn!(tool_call_id = %m.tool_call_id, "tool result without a preceding tool call; dropped");
            }
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(text_block(&m.content));
                }
                let calls: Vec<&ToolCallRequest> =
                    m.tool_calls.iter().filter(|c| !c.name.is_empty()).collect();
                if calls.len() < m.tool_calls.len() {
                    tracing::warn!("tool call without a name; not sent");
                }
                for call in &calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call_id(call),
                        "name": call.name,
                        "input": args_object(&call.arguments),
                    }));
                }
                if !blocks.is_empty() {
                    turns.push(("assistant", blocks));
                }
                if calls.is_empty() {
                    continue;
                }
                // The tool messages directly after this turn answer it.
                let start = i;
                while i < messages.len() && messages[i].role == Role::Tool {
                    i += 1;
                }
                turns.push(("user", tool_results(&calls, &messages[start..i])));
            }
        }
    }

    // The conversation must start with the user (a compacted history may start with a call).
    if turns.first().is_some_and(|(role, _)| *role == "assistant") {
        turns.insert(0, ("user", vec![text_block("[continue]")]));
    }
    let mut merged: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (role, blocks) in turns {
        match merged.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => merged.push((role, blocks)),
        }
    }
    merged
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

/// One `tool_result` per call, in call order: the matching reply (by id, else by name), or
/// the synthetic "interrupted" error when there is none.
fn tool_results(calls: &[&ToolCallRequest], replies: &[Message]) -> Vec<Value> {
    let mut used = vec![false; replies.len()];
    let mut blocks = Vec::with_capacity(calls.len());
    for call in calls {
        let id = call_id(call);
        let found = replies
            .iter()
            .enumerate()
            .position(|(k, r)| !used[k] && !r.tool_call_id.is_empty() && r.tool_call_id == id)
            .or_else(|| {
                replies.iter().enumerate().position(|(k, r)| {
                    !used[k] && r.tool_call_id.is_empty() && r.tool_call_name == call.name
                })
            });
        let (content, is_error) = match found {
            Some(k) => {
                used[k] = true;
                (
                    replies[k].content.clone(),
                    is_error_result(&replies[k].content),
                )
            }
            None => {
                tracing::warn!(tool_call_id = %id, tool = %call.name, "tool call has no result; sending an 'interrupted' error result");
                (INTERRUPTED_RESULT.to_string(), true)
            }
        };
        let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": content});
        if is_error {
            block["is_error"] = json!(true);
        }
        blocks.push(block);
    }
    for (k, r) in replies.iter().enumerate() {
        if !used[k] {
            tracing::warn!(tool_call_id = %r.tool_call_id, "tool result matches no call of the preceding turn; dropped");
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, args: &str) -> ToolCallRequest {
        ToolCallRequest {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
            ..Default::default()
        }
    }

    fn assistant_with(text: &str, calls: Vec<ToolCallRequest>) -> Message {
        Message {
            tool_calls: calls,
            ..Message::assistant(text)
        }
    }

    #[test]
    fn results_are_grouped_in_call_order_and_missing_ones_are_synthesised() {
        let msgs = vec![
            Message::user("go"),
            assistant_with(
                "",
                vec![
                    call("a", "x", "{}"),
                    call("b", "y", "{\"k\":1}"),
                    call("c", "z", ""),
                ],
            ),
            Message::tool_result("b", "y", "{\"error\":\"boom\"}"),
            Message::tool_result("a", "x", "ok"),
            Message::user("next"),
        ];
        let out = convert_messages(&msgs);
        assert_eq!(out.len(), 3);
        let results = out[2]["content"].as_array().unwrap();
        assert_eq!(results.len(), 4, "3 results then the merged user text");
        assert_eq!(
            results[0],
            json!({"type":"tool_result","tool_use_id":"a","content":"ok"})
        );
        assert_eq!(
            results[1],
            json!({"type":"tool_result","tool_use_id":"b","content":"{\"error\":\"boom\"}","is_error":true})
        );
        assert_eq!(results[2]["tool_use_id"], "c");
        assert_eq!(results[2]["is_error"], true);
        assert!(results[2]["content"]
            .as_str()
            .unwrap()
            .contains("interrupted"));
        assert_eq!(results[3], json!({"type":"text","text":"next"}));
        assert_eq!(out[1]["content"][2]["input"], json!({}));
    }

    #[test]
    fn empty_texts_are_never_sent_and_same_role_turns_merge() {
        let msgs = vec![
            Message::user("a"),
            Message::user(""),
            Message::user("b"),
            Message::assistant(""),
            Message::assistant("c"),
        ];
        let out = convert_messages(&msgs);
        assert_eq!(
            out,
            vec![
                json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}),
                json!({"role":"assistant","content":[{"type":"text","text":"c"}]}),
            ]
        );
    }

    #[test]
    fn a_result_without_id_matches_by_name_and_orphans_become_user_lines() {
        let msgs = vec![
            Message::tool_result("zzz", "exec", "early"),
            assistant_with("", vec![call("", "exec", "{}")]),
            Message::tool_result("", "exec", "done"),
        ];
        let out = convert_messages(&msgs);
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[0],
            json!({"role":"user","content":[{"type":"text","text":"[tool result for exec: early]"}]})
        );
        assert_eq!(out[1]["content"][0]["id"], "call_exec");
        assert_eq!(
            out[2]["content"][0],
            json!({"type":"tool_result","tool_use_id":"call_exec","content":"done"})
        );
    }

    #[test]
    fn temperatures_keep_their_decimal_form() {
        assert_eq!(number_from_f32(0.7), json!(0.7));
        assert_eq!(number_from_f32(0.0), json!(0.0));
    }
}
