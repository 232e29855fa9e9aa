//! A message from a server too large to read: which request it answered, from its first and
//! last bytes only, so the call fails at once with the reason instead of waiting for its
//! timeout (the SDK drops such a line and the caller would never hear of it).
//!
//! Owns the recognition and the error answer put in the message's place. JSON-RPC peers
//! write the `id` before the result (Python SDK: `{"jsonrpc":"2.0","id":2,"result":…}`) or
//! after it (TypeScript SDK: `{"result":…,"jsonrpc":"2.0","id":2}`); both are read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The most one message from a server may take (the SDK's own default line limit, and its
/// HTTP transport's limit on an event or a JSON body).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Bytes of a message's start and end kept while the middle is skipped.
pub const EDGE_BYTES: usize = 4096;

/// The JSON-RPC error code of the answer put in an oversized response's place ("internal
/// error": the client, not the server, refused it).
pub const TOO_LARGE_CODE: i64 = -32603;

/// Requests (by their id as JSON text) whose answer was too large, with its size in bytes
/// (`None` when the transport stopped reading at the limit and never saw the end).
#[derive(Clone, Default)]
pub struct OversizedAnswers(Arc<Mutex<HashMap<String, Option<usize>>>>);

impl OversizedAnswers {
    pub fn insert(&self, id: &Value, bytes: Option<usize>) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(id.to_string(), bytes);
    }

    /// The size of the too-large answer to request `id` (as JSON text), once.
    pub fn take(&self, id: &str) -> Option<Option<usize>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(id)
    }
}

/// The request id an oversized message answers: `Some` only for a response (its first
/// non-scalar member is `result` or `error`, and it carries an `id`).
pub fn response_id(head: &[u8], tail: &[u8]) -> Option<Value> {
    let head = std::str::from_utf8(valid_prefix(head)).ok()?;
    let (head_members, body_key) = members_from_start(head);
    if !matches!(body_key.as_deref(), Some("result" | "error")) {
        return None;
    }
    if let Some(id) = head_members.get("id") {
        return Some(id.clone());
    }
    let tail = std::str::from_utf8(valid_suffix(tail)).ok()?;
    members_from_end(tail).get("id").cloned()
}

/// The JSON-RPC error answer for request `id` that was `bytes` long (`None`: over `limit`,
/// its whole size unknown).
pub fn too_large_answer(id: &Value, bytes: Option<usize>, limit: usize) -> String {
    let size = bytes.map_or_else(|| format!("over {}", megabytes(limit)), megabytes);
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": TOO_LARGE_CODE,
            "message": format!("the answer was {size} (the limit is {})", megabytes(limit)),
            "data": {"bytes": bytes, "limit": limit},
        }
    })
    .to_string()
}

/// `bytes` as MB with one decimal.
pub fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

type Members = std::collections::HashMap<String, Value>;

/// The scalar members at the start of the object in `text`, and the key of the first member
/// whose value is an object or array (where reading stops).
fn members_from_start(text: &str) -> (Members, Option<String>) {
    let mut members = Members::new();
    let mut rest = text.trim_start();
    let Some(after) = rest.strip_prefix('{') else {
        return (members, None);
    };
    rest = after;
    loop {
        rest = rest.trim_start();
        let Some((key, after_key)) = leading_string(rest) else {
            return (members, None);
        };
        let Some(after_colon) = after_key.trim_start().strip_prefix(':') else {
            return (members, None);
        };
        let value_text = after_colon.trim_start();
        if value_text.starts_with('{') || value_text.starts_with('[') {
            return (members, Some(key));
        }
        let Some((value, after_value)) = leading_scalar(value_text) else {
            return (members, None);
        };
        members.insert(key, value);
        match after_value.trim_start().strip_prefix(',') {
            Some(next) => rest = next,
            None => return (members, None),
        }
    }
}

/// The scalar members at the end of the object in `text` (read backwards until a member
/// whose value is not a scalar).
fn members_from_end(text: &str) -> Members {
    let mut members = Members::new();
    let Some(mut rest) = text.trim_end().strip_suffix('}') else {
        return members;
    };
    loop {
        rest = rest.trim_end();
        let Some((value, before_value)) = trailing_scalar(rest) else {
            return members;
        };
        let Some(before_colon) = before_value.trim_end().strip_suffix(':') else {
            return members;
        };
        let Some((key, before_key)) = trailing_string(before_colon.trim_end()) else {
            return members;
        };
        members.insert(key, value);
        match before_key.trim_end().strip_suffix(',') {
            Some(next) => rest = next,
            None => return members,
        }
    }
}

/// A JSON string at the start of `text`, decoded, and what follows it.
fn leading_string(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                let raw = &text[..i + 2];
                let decoded = serde_json::from_str::<String>(raw).ok()?;
                return Some((decoded, &text[i + 2..]));
            }
            _ => {}
        }
    }
    None
}

/// A JSON scalar (string, number, `true`, `false`, `null`) at the start of `text`.
fn leading_scalar(text: &str) -> Option<(Value, &str)> {
    if text.starts_with('"') {
        let (s, rest) = leading_string(text)?;
        return Some((Value::String(s), rest));
    }
    let end = text
        .find(|c: char| c == ',' || c == '}' || c.is_whitespace())
        .unwrap_or(text.len());
    let value: Value = serde_json::from_str(&text[..end]).ok()?;
    Some((value, &text[end..]))
}

/// A JSON string at the end of `text`, decoded, and what precedes it.
fn trailing_string(text: &str) -> Option<(String, &str)> {
    let body = text.strip_suffix('"')?;
    let bytes = body.as_bytes();
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let backslashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
            if backslashes % 2 == 0 {
                let raw = &text[i..];
                let decoded = serde_json::from_str::<String>(raw).ok()?;
                return Some((decoded, &text[..i]));
            }
        }
    }
    None
}

/// A JSON scalar at the end of `text`.
fn trailing_scalar(text: &str) -> Option<(Value, &str)> {
    if text.ends_with('"') {
        let (s, rest) = trailing_string(text)?;
        return Some((Value::String(s), rest));
    }
    let start = text
        .rfind(|c: char| c == ',' || c == ':' || c == '{' || c.is_whitespace())
        .map_or(0, |i| i + 1);
    let value: Value = serde_json::from_str(&text[start..]).ok()?;
    Some((value, &text[..start]))
}

/// `bytes` up to the last whole UTF-8 character (a kept head may end mid-character).
fn valid_prefix(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(e) => &bytes[..e.valid_up_to()],
    }
}

/// `bytes` from the first whole UTF-8 character (a kept tail may start mid-character).
fn valid_suffix(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0b1100_0000) == 0b1000_0000)
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(message: &str) -> (&[u8], &[u8]) {
        let b = message.as_bytes();
        let cut = b.len().min(EDGE_BYTES);
        (
            &b[..cut.min(b.len() / 2)],
            &b[b.len() - cut.min(b.len() / 2)..],
        )
    }

    fn big_text() -> String {
        "é long text with \\\"quotes\\\" ".repeat(2000)
    }

    #[test]
    fn the_typescript_sdks_order_puts_the_id_at_the_end() {
        let message = format!(
            r#"{{"result":{{"content":[{{"type":"text","text":"{}"}}]}},"jsonrpc":"2.0","id":2}}"#,
            big_text()
        );
        let (head, tail) = split(&message);
        assert_eq!(response_id(head, tail), Some(json!(2)));
    }

    #[test]
    fn the_python_sdks_order_puts_the_id_first() {
        let message = format!(
            r#"{{"jsonrpc": "2.0", "id": "call-7", "result": {{"content": [{{"type": "text", "text": "{}"}}]}}}}"#,
            big_text()
        );
        let (head, tail) = split(&message);
        assert_eq!(response_id(head, tail), Some(json!("call-7")));
    }

    #[test]
    fn a_string_id_with_quotes_at_the_end_is_read_whole() {
        let message = format!(
            r#"{{"result":{{"t":"{}"}},"jsonrpc":"2.0","id":"a\"b"}}"#,
            big_text()
        );
        let (head, tail) = split(&message);
        assert_eq!(response_id(head, tail), Some(json!("a\"b")));
    }

    #[test]
    fn a_request_or_notification_from_the_server_is_not_answered() {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{{"t":"{}"}}}}"#,
            big_text()
        );
        let (head, tail) = split(&request);
        assert_eq!(response_id(head, tail), None);
        let notification = format!(
            r#"{{"method":"notifications/message","params":{{"data":"{}"}},"jsonrpc":"2.0"}}"#,
            big_text()
        );
        let (head, tail) = split(&notification);
        assert_eq!(response_id(head, tail), None);
    }

    #[test]
    fn garbage_has_no_id() {
        assert_eq!(response_id(b"not json at all", b"\"id\":3}"), None);
        assert_eq!(response_id(b"{\"result\":{", b"truncated"), None);
        assert_eq!(response_id(b"", b""), None);
    }

    #[test]
    fn a_head_cut_inside_a_character_is_still_read() {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":9,"result":{{"t":"{}"}}}}"#,
            big_text()
        );
        let bytes = message.as_bytes();
        // 'é' is two bytes: cut the tail's first one off.
        let at = message.rfind('é').unwrap() + 1;
        assert_eq!(
            response_id(&bytes[..EDGE_BYTES], &bytes[at..]),
            Some(json!(9))
        );
    }

    #[test]
    fn the_answer_is_a_json_rpc_error_for_the_same_id_in_plain_sizes() {
        let answer: Value = serde_json::from_str(&too_large_answer(
            &json!(4),
            Some(42 * 1024 * 1024),
            16 << 20,
        ))
        .unwrap();
        assert_eq!(answer["id"], json!(4));
        assert_eq!(answer["error"]["code"], json!(TOO_LARGE_CODE));
        assert_eq!(
            answer["error"]["message"],
            json!("the answer was 42.0 MB (the limit is 16.0 MB)")
        );
    }
}
