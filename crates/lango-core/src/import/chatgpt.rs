//! ChatGPT's data export (`conversations.json`): one conversation → Lango messages.
//!
//! A ChatGPT conversation is a tree (`mapping`: node id → `{message, parent, children}`):
//! every edit or regeneration starts a branch. Only the branch the user last saw is imported —
//! from `current_node` up through `parent` to the root, reversed — never an abandoned one.
//! User and assistant text is kept; tool calls and results (code, browsing, image generation)
//! become assistant text with a `[tool …]` header, since an imported tool call could not be
//! replayed to another provider; images and files become a note such as `[image: file-abc]`;
//! hidden system messages, custom instructions and the model's hidden reasoning are skipped.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;

use super::model::{
    fenced, seconds_to_ms, started_at, title_for, Conversation, Message, SkipReason, Source,
};

#[derive(Debug, Deserialize)]
struct RawConversation {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    update_time: Option<f64>,
    mapping: HashMap<String, Node>,
    #[serde(default)]
    current_node: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Node {
    #[serde(default)]
    message: Option<RawMessage>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    children: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct RawMessage {
    #[serde(default)]
    id: Option<String>,
    author: Author,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    recipient: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Author {
    role: String,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Content {
    #[serde(default)]
    content_type: String,
    #[serde(default)]
    parts: Option<Vec<Value>>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// One conversation of the export (a JSON object). An object that is not a ChatGPT
/// conversation, or whose tree is broken (a cycle), is an error naming what is wrong.
pub fn convert(value: Value) -> Result<Conversation, String> {
    let raw: RawConversation = serde_json::from_value(value).map_err(|e| e.to_string())?;
    let external_id = raw
        .conversation_id
        .clone()
        .or_else(|| raw.id.clone())
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| {
            // Old exports without ids: the start time and title identify it well enough.
            format!(
                "t{}-{}",
                raw.create_time.unwrap_or(0.0),
                raw.title.as_deref().unwrap_or("")
            )
        });
    let branch = current_branch(&raw)?;
    let created_at = raw.create_time.and_then(seconds_to_ms).unwrap_or(0);
    let mut messages: Vec<Message> = Vec::new();
    let mut skipped = Vec::new();
    let mut notes = 0;
    let mut last_time = created_at;
    for node_id in branch {
        let Some(message) = raw.mapping.get(&node_id).and_then(|n| n.message.as_ref()) else {
            continue; // the tree's root placeholder
        };
        let time = message
            .create_time
            .and_then(seconds_to_ms)
            .unwrap_or(last_time);
        last_time = time;
        match render(message, &mut notes) {
            Rendered::Text(role, content) => messages.push(Message {
                external_id: message.id.clone().unwrap_or_else(|| node_id.clone()),
                role,
                content,
                created_at: time,
            }),
            Rendered::Skip(reason) => skipped.push(reason),
        }
    }
    let updated_at = raw
        .update_time
        .and_then(seconds_to_ms)
        .unwrap_or(last_time)
        .max(created_at);
    Ok(Conversation {
        source: Source::ChatGpt,
        title: title_for(raw.title.as_deref(), &messages),
        external_id,
        created_at: started_at(created_at, updated_at, &messages),
        updated_at,
        messages,
        skipped,
        notes,
    })
}

/// Node ids from the root to `current_node`. Without a (known) current node, the branch
/// ends at the newest leaf. A parent chain that loops is an error.
fn current_branch(raw: &RawConversation) -> Result<Vec<String>, String> {
    let start = raw
        .current_node
        .clone()
        .filter(|id| raw.mapping.contains_key(id))
        .or_else(|| newest_leaf(raw));
    let Some(mut at) = start else {
        return Ok(Vec::new());
    };
    let mut seen = HashSet::new();
    let mut branch = Vec::new();
    loop {
        if !seen.insert(at.clone()) {
            return Err(format!("its message tree loops at node {at:?}"));
        }
        branch.push(at.clone());
        match raw.mapping.get(&at).and_then(|n| n.parent.clone()) {
            Some(parent) if raw.mapping.contains_key(&parent) => at = parent,
            _ => break,
        }
    }
    branch.reverse();
    Ok(branch)
}

fn newest_leaf(raw: &RawConversation) -> Option<String> {
    raw.mapping
        .iter()
        .filter(|(_, n)| n.children.is_empty())
        .max_by(|(a_id, a), (b_id, b)| {
            let time = |n: &Node| {
                n.message
                    .as_ref()
                    .and_then(|m| m.create_time)
                    .unwrap_or(0.0)
            };
            time(a).total_cmp(&time(b)).then_with(|| b_id.cmp(a_id))
        })
        .map(|(id, _)| id.clone())
}

enum Rendered {
    Text(&'static str, String),
    Skip(SkipReason),
}

fn flag(metadata: &Option<Value>, name: &str) -> bool {
    metadata
        .as_ref()
        .and_then(|m| m.get(name))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn render(message: &RawMessage, notes: &mut usize) -> Rendered {
    let role = message.author.role.as_str();
    let hidden = flag(&message.metadata, "is_visually_hidden_from_conversation");
    let Some(content) = &message.content else {
        return Rendered::Skip(SkipReason::EmptyMessage);
    };
    let kind = content.content_type.as_str();
    if role == "system" {
        return Rendered::Skip(if hidden || text_of(content, notes).trim().is_empty() {
            SkipReason::HiddenSystemMessage
        } else {
            SkipReason::HiddenMessage
        });
    }
    match kind {
        "user_editable_context" | "model_editable_context" => {
            return Rendered::Skip(SkipReason::HiddenMessage)
        }
        "thoughts" | "reasoning_recap" => return Rendered::Skip(SkipReason::Reasoning),
        _ => {}
    }
    if hidden {
        return Rendered::Skip(SkipReason::HiddenMessage);
    }
    let text = text_of(content, notes);
    if text.trim().is_empty() {
        return Rendered::Skip(SkipReason::EmptyMessage);
    }
    let recipient = message.recipient.as_deref().unwrap_or("all");
    match role {
        "user" => Rendered::Text("user", text),
        // A call to a tool (code for python, a query for the browser, a prompt for DALL·E).
        "assistant" if recipient != "all" => {
            let body = if kind == "code" {
                fenced(content.language.as_deref().unwrap_or(""), &text)
            } else {
                text
            };
            Rendered::Text("assistant", format!("[tool call: {recipient}]\n{body}"))
        }
        "assistant" => Rendered::Text("assistant", text),
        // "tool" and anything newer: what a tool returned, as the assistant's text.
        _ => {
            let name = message
                .author
                .name
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or(role);
            let body = if kind == "execution_output" {
                fenced("", &text)
            } else {
                text
            };
            Rendered::Text("assistant", format!("[tool result: {name}]\n{body}"))
        }
    }
}

/// The text of a message's content, unsupported parts as notes (counted in `notes`).
fn text_of(content: &Content, notes: &mut usize) -> String {
    match content.content_type.as_str() {
        "text" | "multimodal_text" => {
            let parts = content.parts.as_deref().unwrap_or(&[]);
            let texts: Vec<String> = parts
                .iter()
                .filter_map(|part| part_text(part, notes))
                .filter(|t| !t.is_empty())
                .collect();
            texts.join("\n\n")
        }
        "code" | "execution_output" | "system_error" => {
            let text = content.text.clone().unwrap_or_default();
            match (&content.name, content.content_type.as_str()) {
                (Some(name), "system_error") => format!("[error: {name}] {text}"),
                _ => text,
            }
        }
        "tether_browsing_display" => content
            .result
            .clone()
            .or_else(|| content.text.clone())
            .unwrap_or_default(),
        "tether_quote" => {
            let title = content.title.as_deref().unwrap_or("");
            let url = content.url.as_deref().unwrap_or("");
            let text = content.text.as_deref().unwrap_or("");
            format!("[quote: {title} {url}]\n{text}").trim().to_owned()
        }
        other => {
            // Unknown kinds: their text if they have one, and a note saying what it was.
            *notes += 1;
            match content.text.as_deref().filter(|t| !t.is_empty()) {
                Some(text) => format!("[{other}]\n{text}"),
                None => format!("[unsupported content: {other}]"),
            }
        }
    }
}

/// One part of a (multimodal) text: a string, or an object such as an image pointer.
fn part_text(part: &Value, notes: &mut usize) -> Option<String> {
    match part {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            let kind = map
                .get("content_type")
                .and_then(Value::as_str)
                .unwrap_or("");
            if let Some(text) = map.get("text").and_then(Value::as_str) {
                if kind == "audio_transcription" || kind.is_empty() {
                    return Some(text.to_owned());
                }
            }
            *notes += 1;
            let pointer = map
                .get("asset_pointer")
                .and_then(Value::as_str)
                .map(|p| p.rsplit("://").next().unwrap_or(p).to_owned());
            let what = match kind {
                "image_asset_pointer" => "image",
                "audio_asset_pointer" | "real_time_user_audio_video_asset_pointer" => "audio",
                "" => "attachment",
                other => other,
            };
            Some(match pointer {
                Some(p) => format!("[{what}: {p}]"),
                None => format!("[{what}]"),
            })
        }
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> (String, Value) {
        (
            id.to_owned(),
            json!({"id": id, "parent": parent, "children": children, "message": message}),
        )
    }

    fn text(id: &str, role: &str, t: f64, body: &str) -> Value {
        json!({"id": id, "author": {"role": role}, "create_time": t,
               "content": {"content_type": "text", "parts": [body]}, "metadata": {}})
    }

    #[test]
    fn only_the_current_branch_is_imported() {
        let mapping: serde_json::Map<String, Value> = [
            node("root", None, &["a"], Value::Null),
            node(
                "a",
                Some("root"),
                &["b1", "b2"],
                text("a", "user", 10.0, "Question"),
            ),
            node(
                "b1",
                Some("a"),
                &[],
                text("b1", "assistant", 11.0, "Abandoned answer"),
            ),
            node(
                "b2",
                Some("a"),
                &["c"],
                text("b2", "assistant", 12.0, "Kept answer"),
            ),
            node("c", Some("b2"), &[], text("c", "user", 13.0, "Thanks")),
        ]
        .into_iter()
        .collect();
        let conv = convert(json!({"id": "x", "title": "T", "create_time": 10.0,
            "update_time": 13.0, "mapping": mapping, "current_node": "c"}))
        .unwrap();
        let texts: Vec<&str> = conv.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["Question", "Kept answer", "Thanks"]);
        assert_eq!(conv.messages[1].created_at, 12_000);
    }

    #[test]
    fn a_looping_tree_is_an_error() {
        let mapping: serde_json::Map<String, Value> = [
            node("a", Some("b"), &["b"], text("a", "user", 1.0, "x")),
            node("b", Some("a"), &["a"], text("b", "assistant", 2.0, "y")),
        ]
        .into_iter()
        .collect();
        let err = convert(json!({"id": "x", "mapping": mapping, "current_node": "b"})).unwrap_err();
        assert!(err.contains("loops"), "{err}");
    }

    #[test]
    fn images_become_notes_and_hidden_messages_are_skipped() {
        let image = json!({"id": "u", "author": {"role": "user"}, "create_time": 2.0,
            "content": {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-xyz"},
                "What is this?"]}});
        let system = json!({"id": "s", "author": {"role": "system"}, "create_time": 1.0,
            "content": {"content_type": "text", "parts": [""]},
            "metadata": {"is_visually_hidden_from_conversation": true}});
        let mapping: serde_json::Map<String, Value> = [
            node("s", None, &["u"], system),
            node("u", Some("s"), &[], image),
        ]
        .into_iter()
        .collect();
        let conv = convert(json!({"id": "x", "mapping": mapping, "current_node": "u"})).unwrap();
        assert_eq!(conv.messages.len(), 1);
        assert_eq!(
            conv.messages[0].content,
            "[image: file-xyz]\n\nWhat is this?"
        );
        assert_eq!(conv.notes, 1);
        assert_eq!(conv.skipped, [SkipReason::HiddenSystemMessage]);
        assert_eq!(conv.title, "What is this?");
    }
}
