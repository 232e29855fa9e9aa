//! A `tools/call` result as the agent uses it: the model gets the text (images and other
//! binary content as short placeholders — they would cost thousands of tokens), the user's
//! card gets the images, and `isError` marks a tool error.
//!
//! Owns the mapping of MCP content blocks. It reads the result as JSON, so SDK type changes
//! in fields we do not use cannot break it.

use serde_json::{Map, Value};

use crate::agent::ToolOutput;
use crate::store::ToolImage;

/// Images kinds the card may show (anything else becomes a placeholder only).
const SHOWN_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];
/// Base64 bytes of images kept per call; more are described, not kept.
const MAX_IMAGE_BYTES: usize = 8 * 1024 * 1024;

/// `result` (a `CallToolResult` as JSON) as a tool output.
pub fn to_output(result: &Value) -> ToolOutput {
    let mut texts: Vec<String> = Vec::new();
    let mut images: Vec<ToolImage> = Vec::new();
    let mut image_bytes = 0usize;
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mime = str_of(block, "mimeType");
        match kind {
            "text" => texts.push(str_of(block, "text").to_owned()),
            "image" => {
                let data = str_of(block, "data");
                let size = data.len() / 4 * 3;
                let keep = SHOWN_IMAGE_TYPES.contains(&mime)
                    && image_bytes + data.len() <= MAX_IMAGE_BYTES;
                if keep {
                    image_bytes += data.len();
                    images.push(ToolImage {
                        mime_type: mime.to_owned(),
                        data: data.to_owned(),
                    });
                }
                texts.push(format!(
                    "[image: {mime}, {} — {}]",
                    human_size(size),
                    if keep {
                        "shown to the user"
                    } else {
                        "not shown"
                    }
                ));
            }
            "audio" => texts.push(format!(
                "[audio: {mime}, {} — not played]",
                human_size(str_of(block, "data").len() / 4 * 3)
            )),
            "resource_link" => texts.push(format!(
                "[resource link: {} <{}>{}]",
                str_of(block, "name"),
                str_of(block, "uri"),
                block
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default()
            )),
            "resource" => {
                let resource = block.get("resource").cloned().unwrap_or_default();
                match resource.get("text").and_then(Value::as_str) {
                    Some(text) => texts.push(text.to_owned()),
                    None => texts.push(format!(
                        "[resource: {} ({}, {})]",
                        str_of(&resource, "uri"),
                        str_of(&resource, "mimeType"),
                        human_size(str_of(&resource, "blob").len() / 4 * 3)
                    )),
                }
            }
            other => texts.push(format!("[{other} content]")),
        }
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let text = texts.join("\n");
    let value = if is_error {
        Value::String(if text.is_empty() {
            "the tool reported an error without a message".to_owned()
        } else {
            text
        })
    } else {
        let structured = result
            .get("structuredContent")
            .filter(|v| !v.is_null() && !said_by(&text, v))
            .cloned();
        let mut map = Map::new();
        map.insert("content".into(), Value::String(text));
        if let Some(structured) = structured {
            map.insert("structuredContent".into(), structured);
        }
        Value::Object(map)
    };
    ToolOutput {
        value,
        images,
        is_error,
    }
}

/// Whether the text content already says all of `structured`, so it need not be sent twice:
/// the text is its JSON (what the MCP spec asks servers to send beside it), or every value in
/// it is a string found in the text (the filesystem server's `{"content": <the file>}` beside
/// the file itself — else every file read would cost its tokens twice).
fn said_by(text: &str, structured: &Value) -> bool {
    if text.is_empty() {
        return false;
    }
    if serde_json::from_str::<Value>(text).is_ok_and(|v| &v == structured) {
        return true;
    }
    fn strings_in(value: &Value, text: &str) -> bool {
        match value {
            Value::String(s) => text.contains(s.as_str()),
            Value::Array(items) => items.iter().all(|v| strings_in(v, text)),
            Value::Object(map) => map.values().all(|v| strings_in(v, text)),
            _ => false,
        }
    }
    strings_in(structured, text)
}

fn str_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn human_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_reaches_the_model_and_images_reach_the_card_only() {
        let out = to_output(&json!({"content": [
            {"type": "text", "text": "Here is the image:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"}
        ]}));
        assert!(!out.is_error);
        let content = out.value["content"].as_str().unwrap();
        assert!(
            content.starts_with("Here is the image:\n[image: image/png, 9 B — shown to the user]")
        );
        assert!(
            content.contains("image/svg+xml, 6 B — not shown"),
            "{content}"
        );
        assert!(!content.contains("iVBOR"));
        assert_eq!(out.images.len(), 1);
        assert_eq!(out.images[0].mime_type, "image/png");
    }

    #[test]
    fn is_error_results_are_tool_errors_with_their_text() {
        let out = to_output(
            &json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}),
        );
        assert!(out.is_error);
        assert_eq!(out.value, json!("no such file"));
    }

    #[test]
    fn resource_links_and_structured_content_are_kept() {
        let out = to_output(&json!({
            "content": [{"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
                        {"type": "resource", "resource": {"uri": "mem://x", "text": "inline text"}}],
            "structuredContent": {"sum": 3}
        }));
        assert_eq!(
            out.value["content"],
            json!("[resource link: a.txt <file:///a.txt>]\ninline text")
        );
        assert_eq!(out.value["structuredContent"], json!({"sum": 3}));
    }

    #[test]
    fn structured_content_the_text_already_says_is_sent_once() {
        // The filesystem server: the file as text and again as {"content": <the file>}.
        let file = "line one\nline two\n".repeat(100);
        let out = to_output(&json!({
            "content": [{"type": "text", "text": file}],
            "structuredContent": {"content": file}
        }));
        assert_eq!(out.value, json!({"content": file}));
        // The spec's form: the text is the structured content's JSON.
        let out = to_output(&json!({
            "content": [{"type": "text", "text": "{\"temperature\": 21.5, \"unit\": \"C\"}"}],
            "structuredContent": {"unit": "C", "temperature": 21.5}
        }));
        assert!(
            out.value.get("structuredContent").is_none(),
            "{}",
            out.value
        );
        // Something the text does not say is kept.
        let out = to_output(&json!({
            "content": [{"type": "text", "text": "Weather in Paris"}],
            "structuredContent": {"city": "Paris", "temperature": 21.5}
        }));
        assert_eq!(
            out.value["structuredContent"],
            json!({"city": "Paris", "temperature": 21.5})
        );
        let out = to_output(&json!({"content": [], "structuredContent": {"a": "b"}}));
        assert_eq!(out.value["structuredContent"], json!({"a": "b"}));
    }
}
