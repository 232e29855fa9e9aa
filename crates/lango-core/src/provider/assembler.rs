//! Streamed tool-call assembly (REFERENCE §1.3): chunks in, whole calls out.
//!
//! Start chunk = has an index, a non-empty id or a non-empty name; it opens (or continues)
//! the entry under its key (the index, else a synthetic key). A delta-only chunk extends
//! the entry touched last, or is dropped with a warning when nothing has started. Non-empty
//! id/name overwrite (never erased by ""), arguments append, `thought` is sticky, a non-empty
//! signature replaces the old one. [FIX] A key-less start whose id matches an existing
//! entry merges into it (servers that omit `index`).
//!
//! Order of the finished calls: calls with an index are sorted by it (REFERENCE "sort by
//! key"); [FIX] calls without one keep the place they arrived at, before or between the
//! indexed ones (the reference put them after every indexed call).

use std::collections::HashMap;

use super::types::{ToolCallChunk, ToolCallRequest};

/// What an entry is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Index(u32),
    /// The n-th index-less call.
    Synthetic(u64),
}

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    /// In order of arrival (of each call's first chunk).
    entries: Vec<(Key, ToolCallRequest)>,
    positions: HashMap<Key, usize>,
    next_synthetic: u64,
    /// Position of the entry touched last.
    last: Option<usize>,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, chunk: &ToolCallChunk) {
        let is_start = chunk.index.is_some() || !chunk.id.is_empty() || !chunk.name.is_empty();
        let position = if is_start {
            let key = match chunk.index {
                Some(i) => Key::Index(i),
                None => {
                    let same_id = (!chunk.id.is_empty())
                        .then(|| self.entries.iter().find(|(_, e)| e.id == chunk.id))
                        .flatten()
                        .map(|(k, _)| *k);
                    same_id.unwrap_or_else(|| {
                        let k = Key::Synthetic(self.next_synthetic);
                        self.next_synthetic += 1;
                        k
                    })
                }
            };
            match self.positions.get(&key) {
                Some(&p) => p,
                None => {
                    self.entries.push((key, ToolCallRequest::default()));
                    self.positions.insert(key, self.entries.len() - 1);
                    self.entries.len() - 1
                }
            }
        } else {
            match self.last {
                Some(p) => p,
                None => {
                    tracing::warn!(fragment = %chunk.arguments, "tool-call delta before any call started; dropped");
                    return;
                }
            }
        };
        let entry = &mut self.entries[position].1;
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
        self.last = Some(position);
    }

    /// The finished calls in the order above: nameless ones dropped, arguments normalised to
    /// a JSON object text (empty, invalid or non-object → `{}`), missing ids → `call_<name>`.
    pub fn finish(self) -> Vec<ToolCallRequest> {
        // The slots indexed calls arrived in, refilled with those calls sorted by index.
        let mut indexed: Vec<(u32, ToolCallRequest)> = Vec::new();
        let mut slots: Vec<Option<ToolCallRequest>> = Vec::with_capacity(self.entries.len());
        for (key, call) in self.entries {
            match key {
                Key::Index(i) => {
                    indexed.push((i, call));
                    slots.push(None);
                }
                Key::Synthetic(_) => slots.push(Some(call)),
            }
        }
        indexed.sort_by_key(|(i, _)| *i);
        let mut sorted = indexed.into_iter().map(|(_, call)| call);
        slots
            .into_iter()
            .filter_map(|slot| slot.or_else(|| sorted.next()))
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

    // [FIX] issue 14 item 20: index-less calls come out in the order they arrived.
    #[test]
    fn index_less_calls_keep_their_arrival_order_among_indexed_ones() {
        let names = |chunks: &[ToolCallChunk]| {
            assemble(chunks)
                .into_iter()
                .map(|c| c.1)
                .collect::<Vec<String>>()
        };
        assert_eq!(
            names(&[
                chunk(None, "a1", "first", "{}"),
                chunk(Some(0), "b1", "second", "{}"),
                chunk(None, "c1", "third", "{}"),
                chunk(Some(1), "d1", "fourth", "{}"),
            ]),
            ["first", "second", "third", "fourth"]
        );
        // Indexed calls still follow their index, in the slots they arrived in.
        assert_eq!(
            names(&[
                chunk(Some(1), "b1", "index_1", "{}"),
                chunk(None, "x", "no_index", "{}"),
                chunk(Some(0), "a1", "index_0", "{}"),
            ]),
            ["index_0", "no_index", "index_1"]
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
