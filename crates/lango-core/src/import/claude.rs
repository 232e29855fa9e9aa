//! Claude's data export (`conversations.json`): one conversation → Lango messages.
//!
//! A Claude conversation is a list (`chat_messages`, oldest first) of `human` and `assistant`
//! messages. The text comes from the `content` blocks when present (`text`; `tool_use` and
//! `tool_result` become text with a `[tool …]` header; `thinking` — the model's hidden
//! reasoning — is left out), else from `text`. Attached text files keep their extracted text;
//! other files become a note such as `[file: photo.png]`.

use serde::Deserialize;
use serde_json::Value;

use super::model::{
    fenced, rfc3339_to_ms, started_at, title_for, Conversation, Message, SkipReason, Source,
};

#[derive(Debug, Deserialize)]
struct RawConversation {
    uuid: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    chat_messages: Vec<RawMessage>,
}

#[derive(Debug, Deserialize)]
struct RawMessage {
    #[serde(default)]
    uuid: Option<String>,
    sender: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    content: Option<Vec<Value>>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    attachments: Vec<Attachment>,
    #[serde(default)]
    files: Vec<Attachment>,
}

#[derive(Debug, Deserialize)]
struct Attachment {
    #[serde(default)]
    file_name: Option<String>,
    #[serde(default)]
    extracted_content: Option<String>,
}

/// One conversation of the export (a JSON object). An object that is not a Claude
/// conversation is an error naming what is missing.
pub fn convert(value: Value) -> Result<Conversation, String> {
    let raw: RawConversation = serde_json::from_value(value).map_err(|e| e.to_string())?;
    if raw.uuid.is_empty() {
        return Err("its uuid is empty".to_owned());
    }
    let created_at = raw
        .created_at
        .as_deref()
        .and_then(rfc3339_to_ms)
        .unwrap_or(0);
    let mut last_time = created_at;
    let mut messages = Vec::new();
    let mut skipped = Vec::new();
    let mut notes = 0;
    for (i, message) in raw.chat_messages.iter().enumerate() {
        let time = message
            .created_at
            .as_deref()
            .and_then(rfc3339_to_ms)
            .unwrap_or(last_time);
        last_time = time;
        let role = match message.sender.as_str() {
            "human" | "user" => "user",
            _ => "assistant",
        };
        let (content, thinking_only) = render(message, &mut notes);
        if content.trim().is_empty() {
            skipped.push(if thinking_only {
                SkipReason::Reasoning
            } else {
                SkipReason::EmptyMessage
            });
            continue;
        }
        messages.push(Message {
            external_id: message
                .uuid
                .clone()
                .filter(|u| !u.is_empty())
                .unwrap_or_else(|| format!("#{i}")),
            role,
            content,
            created_at: time,
        });
    }
    let updated_at = raw
        .updated_at
        .as_deref()
        .and_then(rfc3339_to_ms)
        .unwrap_or(last_time)
        .max(created_at);
    Ok(Conversation {
        source: Source::Claude,
        title: title_for(raw.name.as_deref(), &messages),
        external_id: raw.uuid,
        created_at: started_at(created_at, updated_at, &messages),
        updated_at,
        messages,
        skipped,
        notes,
    })
}

/// The message's text, and whether all it had was hidden reasoning.
fn render(message: &RawMessage, notes: &mut usize) -> (String, bool) {
    let mut pieces: Vec<String> = Vec::new();
    let mut thinking = false;
    match message.content.as_deref() {
        Some(blocks) if !blocks.is_empty() => {
            for block in blocks {
                match block_text(block, notes) {
                    Block::Text(t) if !t.trim().is_empty() => pieces.push(t),
                    Block::Thinking => thinking = true,
                    Block::Text(_) => {}
                }
            }
        }
        _ => {
            if let Some(text) = message.text.as_deref() {
                pieces.push(text.to_owned());
            }
        }
    }
    for file in message.attachments.iter().chain(&message.files) {
        let name = file.file_name.as_deref().unwrap_or("unnamed");
        match file.extracted_content.as_deref().filter(|c| !c.is_empty()) {
            Some(text) => pieces.push(format!("[attachment: {name}]\n{}", fenced("", text))),
            None => {
                *notes += 1;
                pieces.push(format!("[file: {name}]"));
            }
        }
    }
    let text = pieces.join("\n\n");
    let thinking_only = thinking && text.trim().is_empty();
    (text, thinking_only)
}

enum Block {
    Text(String),
    Thinking,
}

fn str_field<'a>(block: &'a Value, name: &str) -> &'a str {
    block.get(name).and_then(Value::as_str).unwrap_or("")
}

fn block_text(block: &Value, notes: &mut usize) -> Block {
    let kind = str_field(block, "type");
    match kind {
        "text" => Block::Text(str_field(block, "text").to_owned()),
        "thinking" | "redacted_thinking" => Block::Thinking,
        "tool_use" => {
            let input = block
                .get("input")
                .map(|i| serde_json::to_string_pretty(i).unwrap_or_default())
                .unwrap_or_default();
            Block::Text(format!(
                "[tool call: {}]\n{}",
                str_field(block, "name"),
                fenced("json", &input)
            ))
        }
        "tool_result" => {
            let name = str_field(block, "name");
            let body = match block.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match block_text(item, notes) {
                        Block::Text(t) => t,
                        Block::Thinking => String::new(),
                    })
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            let header = if name.is_empty() {
                "[tool result]".to_owned()
            } else {
                format!("[tool result: {name}]")
            };
            Block::Text(format!("{header}\n{body}").trim_end().to_owned())
        }
        other => {
            *notes += 1;
            Block::Text(format!(
                "[{}]",
                if other.is_empty() {
                    "unsupported content"
                } else {
                    other
                }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_blocks_tools_and_files_become_text() {
        let conv = convert(json!({
            "uuid": "c1", "name": "", "created_at": "2024-05-01T10:00:00Z",
            "updated_at": "2024-05-01T10:05:00Z",
            "chat_messages": [
                {"uuid": "m1", "sender": "human", "text": "Read this", "created_at": "2024-05-01T10:00:00Z",
                 "attachments": [{"file_name": "notes.txt", "extracted_content": "hello"}],
                 "files": [{"file_name": "photo.png"}]},
                {"uuid": "m2", "sender": "assistant", "created_at": "2024-05-01T10:01:00Z",
                 "content": [{"type": "thinking", "thinking": "secret"},
                             {"type": "tool_use", "name": "web_search", "input": {"q": "x"}},
                             {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "found"}]},
                             {"type": "text", "text": "Done."}]},
                {"uuid": "m3", "sender": "assistant", "content": [{"type": "thinking", "thinking": "only"}]}
            ]
        }))
        .unwrap();
        assert_eq!(conv.messages.len(), 2);
        assert!(conv.messages[0].content.contains("[attachment: notes.txt]"));
        assert!(conv.messages[0].content.ends_with("[file: photo.png]"));
        let reply = &conv.messages[1].content;
        assert!(!reply.contains("secret"));
        assert!(
            reply.contains("[tool call: web_search]")
                && reply.contains("[tool result: web_search]\nfound")
        );
        assert_eq!(conv.skipped, [SkipReason::Reasoning]);
        assert_eq!(conv.notes, 1);
        assert_eq!(conv.title, "Read this");
    }
}
