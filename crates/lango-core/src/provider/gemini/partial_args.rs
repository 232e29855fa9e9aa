//! Vertex AI's streamed function-call arguments (best effort): a call opened by
//! `functionCall{name, willContinue:true}` is filled by `partialArgs` items, each a JSON path
//! (`$.a.b[0]`, `$['k']`) and one value; string pieces of a path that said `willContinue` are
//! appended. Paths that do not parse, or run into a value of the wrong kind, are skipped with a
//! warning. Owns the path grammar and the filling only; when a call opens or closes is
//! [`super::decode`]'s.

use serde_json::{json, Value};

/// A Vertex call whose arguments are still streaming.
#[derive(Debug)]
pub(super) struct PendingCall {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) args: Value,
    pub(super) thought: bool,
    pub(super) signature: String,
    /// The path whose last string piece said `willContinue`.
    pub(super) continuing: Option<String>,
}

enum Segment {
    Key(String),
    Index(usize),
}

/// `$.a.b[0]['c d']` → segments; None for anything else.
fn parse_path(path: &str) -> Option<Vec<Segment>> {
    let mut rest = path.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(Segment::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            match quoted {
                Some(key) => out.push(Segment::Key(key.to_string())),
                None => out.push(Segment::Index(inner.trim().parse().ok()?)),
            }
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(out)
}

/// The slot at `path` inside `root`, creating objects/arrays on the way. None when the path
/// is empty or runs into a value of the wrong kind.
fn slot<'a>(root: &'a mut Value, path: &[Segment]) -> Option<&'a mut Value> {
    let mut cur = root;
    for seg in path {
        cur = match seg {
            Segment::Key(k) => {
                if cur.is_null() {
                    *cur = json!({});
                }
                cur.as_object_mut()?.entry(k.clone()).or_insert(Value::Null)
            }
            Segment::Index(i) => {
                if cur.is_null() {
                    *cur = json!([]);
                }
                let arr = cur.as_array_mut()?;
                if arr.len() <= *i {
                    arr.resize(*i + 1, Value::Null);
                }
                &mut arr[*i]
            }
        };
    }
    Some(cur)
}

/// Fills `call`'s arguments from one `functionCall{partialArgs: [...]}` part.
pub(super) fn apply_partial_args(call: &mut PendingCall, fc: &Value) {
    let Some(items) = fc.get("partialArgs").and_then(Value::as_array) else {
        return;
    };
    for item in items {
        let path = item
            .get("jsonPath")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(segments) = parse_path(path).filter(|s| !s.is_empty()) else {
            tracing::warn!(
                path,
                "unsupported jsonPath in Gemini partial arguments; skipped"
            );
            continue;
        };
        let Some(target) = slot(&mut call.args, &segments) else {
            tracing::warn!(
                path,
                "Gemini partial arguments do not fit the arguments so far; skipped"
            );
            continue;
        };
        let continues = item
            .get("willContinue")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if let Some(piece) = item.get("stringValue").and_then(Value::as_str) {
            let appending = call.continuing.as_deref() == Some(path);
            match target {
                Value::String(s) if appending => s.push_str(piece),
                _ => *target = Value::String(piece.to_string()),
            }
        } else if let Some(n) = item.get("numberValue").filter(|n| n.is_number()) {
            *target = n.clone();
        } else if let Some(b) = item.get("boolValue").filter(|b| b.is_boolean()) {
            *target = b.clone();
        } else if item.get("nullValue").is_some() {
            *target = Value::Null;
        } else {
            tracing::debug!(path, "Gemini partial argument of an unknown kind; skipped");
        }
        call.continuing = continues.then(|| path.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_args_paths_build_nested_values() {
        let mut call = PendingCall {
            id: String::new(),
            name: "x".into(),
            args: json!({}),
            thought: false,
            signature: String::new(),
            continuing: None,
        };
        apply_partial_args(
            &mut call,
            &json!({"partialArgs": [
                {"jsonPath": "$.a.b", "stringValue": "he", "willContinue": true},
                {"jsonPath": "$.a.b", "stringValue": "llo"},
                {"jsonPath": "$.list[1]", "numberValue": 3},
                {"jsonPath": "$['k']", "boolValue": true},
                {"jsonPath": "$.a.b.c", "stringValue": "does not fit"},
                {"jsonPath": "nonsense", "stringValue": "skipped"},
            ]}),
        );
        assert_eq!(
            call.args,
            json!({"a": {"b": "hello"}, "list": [null, 3], "k": true})
        );
    }
}
