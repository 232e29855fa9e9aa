//! Streamed tool-call assembly (REFERENCE §1.3): chunks in, whole calls out.
//!
//! Start chunk = has an index, a non-empty id or a non-empty name; it opens (or continues)
//! the entry under its key (the index, else a synthetic key). A delta-only chunk extends
//! the entry touched last, or is dropped with a warning when nothing has started. Non-empty
//! id/name overwrite (never erased by ""), arguments append, `thought` is sticky, a non-empty
//! signature replaces the old one. [FIX] A key-less start whose id matches an existing
//! entry merges into it (servers that omit `index`).

use std::collections::BTreeMap;

use super::types::{ToolCallChunk, ToolCallRequest};

/// Keys for entries without an index sort after every indexed one.
const SYNTHETIC_BASE: u64 = 1 << 40;

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    entries: BTreeMap<u64, ToolCallRequest>,
    next_synthetic: u64,
    last: Option<u64>,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, chunk: &ToolCallChunk) {
        let is_start = chunk.index.is_some() || !chunk.id.is_empty() || !chunk.name.is_empty();
        let key = if is_start {
            match chunk.index {
                Some(i) => u64::from(i),
                None => {
                    let same_id = (!chunk.id.is_empty())
                        .then(|| {
                            self.entries
                                .iter()
                                .find(|(_, e)| e.id == chunk.id)
                                .map(|(k, _)| *k)
                        })
                        .flatten();
                    match same_id {
                        Some(k) => k,
                        None => {
                            let k = SYNTHETIC_BASE + self.next_synthetic;
                            self.next_synthetic += 1;
                            k
                        }
                    }
                }
            }
        } else {
            match self.last {
                Some(k) => k,
                None => {
                    tracing::warn!(fragment = %chunk.arguments, "tool-call delta before any call started; dropped");
                    return;
                }
            }
        };
        let entry = self.entries.entry(key).or_default();
        if !chunk.id.is_empty() {
            entry.id.clone_from(&chunk.id);
        }
        if !chunk.name.is_empty() {
            entry.name.clone_from(&chunk.name);
        }
        entry.arguments.push_str(&chunk.arguments);
        entry.thought |= chunk.thought;
        if !chunk.thought_signature.is_empty() {
            entry.thought_signature.clone_from(&chunk.thought_signature);
        }
        self.last = Some(key);
    }

    /// The finished calls in key order: nameless ones dropped, arguments normalised to a JSON
    /// object text (empty, invalid or non-object → `{}`), missing ids → `call_<name>`.
    pub fn finish(self) -> Vec<ToolCallRequest> {
        self.entries
            .into_values()
            .filter_map(|mut call| {
                if call.name.is_empty() {
                    tracing::warn!(id = %call.id, "tool call without a name; dropped");
                    return None;
                }
                call.arguments = normalise_arguments(&call.arguments);
                if call.id.is_empty() {
                    call.id = format!("call_{}", call.name);
                }
                Some(call)
            })
            .collect()
    }
}

fn normalise_arguments(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v @ serde_json::Value::Object(_)) => v.to_string(),
        _ => "{}".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(index: Option<u32>, id: &str, name: &str, args: &str) -> ToolCallChunk {
        ToolCallChunk {
            index,
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
            ..Default::default()
        }
    }

    fn assemble(chunks: &[ToolCallChunk]) -> Vec<(String, String, serde_json::Value)> {
        let mut a = ToolCallAssembler::new();
        chunks.iter().for_each(|c| a.push(c));
        a.finish()
            .into_iter()
            .map(|c| (c.id, c.name, serde_json::from_str(&c.arguments).unwrap()))
            .collect()
    }

    // REFERENCE acceptance 6
    #[test]
    fn interleaved_indexed_calls_assemble_in_index_order() {
        let calls = assemble(&[
            chunk(Some(0), "c1", "exec", "{\"a"),
            chunk(Some(1), "c2", "read", "{\"p"),
            chunk(Some(0), "", "", "\":\"1\"}"),
            chunk(Some(1), "", "", "\":\"2\"}"),
        ]);
        assert_eq!(
            calls,
            vec![
                ("c1".into(), "exec".into(), serde_json::json!({"a": "1"})),
                ("c2".into(), "read".into(), serde_json::json!({"p": "2"})),
            ]
        );
        let calls = assemble(&[
            chunk(None, "tool_1", "exec", ""),
            chunk(None, "", "", "{\"a\":\"1\"}"),
            chunk(None, "tool_2", "read", ""),
            chunk(None, "", "", "{\"b\":\"2\"}"),
        ]);
        assert_eq!(
            calls.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
            ["exec", "read"]
        );
        assert_eq!(calls[1].2, serde_json::json!({"b": "2"}));
    }

    // REFERENCE acceptance 7 and 8
    #[test]
    fn orphan_deltas_nameless_calls_and_bad_arguments() {
        assert!(assemble(&[chunk(None, "", "", "{}")]).is_empty());
        let calls = assemble(&[
            chunk(None, "", "", "x"),
            chunk(None, "call_1", "exec", ""),
            chunk(None, "", "", "{\"cmd\":\"ls\"}"),
        ]);
        assert_eq!(
            calls,
            vec![(
                "call_1".into(),
                "exec".into(),
                serde_json::json!({"cmd": "ls"})
            )]
        );
        assert!(assemble(&[]).is_empty());
        assert!(assemble(&[chunk(Some(0), "call_x", "", "{}")]).is_empty());
        assert_eq!(
            assemble(&[chunk(Some(0), "", "my_tool", "{}")])[0].0,
            "call_my_tool"
        );
        assert_eq!(
            assemble(&[chunk(Some(0), "", "t", "{\"a\":")])[0].2,
            serde_json::json!({})
        );
    }

    // REFERENCE acceptance 9
    #[test]
    fn thought_flag_and_signature_survive_assembly() {
        let mut a = ToolCallAssembler::new();
        a.push(&ToolCallChunk {
            thought: true,
            thought_signature: "sig-data".into(),
            ..chunk(Some(0), "call_think", "deep_think", "{\"query\":")
        });
        a.push(&chunk(Some(0), "", "", "\"test\"}"));
        let calls = a.finish();
        assert!(calls[0].thought);
        assert_eq!(calls[0].thought_signature, "sig-data");
        assert_eq!(calls[0].arguments, "{\"query\":\"test\"}");
    }

    // REFERENCE acceptance 10 [FIX]: key-less chunks with the same id merge.
    #[test]
    fn keyless_chunks_with_the_same_id_merge() {
        let calls = assemble(&[
            chunk(None, "gS1", "weather", "{\"loc"),
            chunk(None, "gS1", "", "\":\"SF\"}"),
        ]);
        assert_eq!(
            calls,
            vec![(
                "gS1".into(),
                "weather".into(),
                serde_json::json!({"loc": "SF"})
            )]
        );
    }

    #[test]
    fn an_empty_name_never_erases_the_name() {
        let calls = assemble(&[
            chunk(Some(0), "c", "get_weather", "{\"city\":"),
            chunk(Some(0), "", "", "\"Paris\"}"),
        ]);
        assert_eq!(calls[0].1, "get_weather");
    }
}
