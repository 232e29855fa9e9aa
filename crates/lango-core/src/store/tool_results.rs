//! A tool row's large results, kept beside its calls (the row's `tool_results` column,
//! migration 0015) rather than in them: the calls' JSON is read with every page, history
//! tail and inspection, so a result over [`INLINE_RESULT_BYTES`] stays in it only as its
//! first [`HEAD_BYTES`] and its whole size (`full_output_bytes`). The whole one is read
//! when asked for: "Show all", saving it, a JSON export.
//!
//! Owns that split and putting the whole results back. Which rows to read is the callers'.

use serde_json::Value;

use super::models::ToolCall;
use crate::text::floor_char_boundary;

/// A whole result up to this size stays in the calls' JSON.
pub const INLINE_RESULT_BYTES: usize = 64 * 1024;
/// What the calls' JSON keeps of a larger one: more than a card's preview shows.
pub const HEAD_BYTES: usize = 16 * 1024;

/// `calls` as stored: each whole result over [`INLINE_RESULT_BYTES`] cut to its start, with
/// its size; and the whole ones by position (`None` when nothing was cut).
pub(super) fn split(calls: &[ToolCall]) -> (Vec<ToolCall>, Option<Vec<Option<&str>>>) {
    let mut wholes: Vec<Option<&str>> = vec![None; calls.len()];
    let mut kept = Vec::with_capacity(calls.len());
    for (call, whole) in calls.iter().zip(wholes.iter_mut()) {
        let large = call
            .meta
            .as_ref()
            .and_then(|m| m.full_output.as_deref())
            .filter(|full| full.len() > INLINE_RESULT_BYTES);
        let Some(full) = large else {
            kept.push(call.clone());
            continue;
        };
        *whole = Some(full);
        let mut cut = call.clone();
        if let Some(meta) = cut.meta.as_mut() {
            meta.full_output = Some(full[..floor_char_boundary(full, HEAD_BYTES)].to_owned());
            meta.full_output_bytes = Some(full.len() as u64);
        }
        kept.push(cut);
    }
    let any = wholes.iter().any(Option::is_some);
    (kept, any.then_some(wholes))
}

/// Puts the whole results (`stored`: the row's `tool_results`) back into `calls`. Never
/// fails: an unreadable column (written by hand) leaves the cut results, logged.
pub(super) fn merge(calls: &mut [ToolCall], stored: Option<&str>, message_id: i64) {
    let Some(stored) = stored else {
        return;
    };
    let wholes = match serde_json::from_str::<Vec<Option<String>>>(stored) {
        Ok(wholes) => wholes,
        Err(e) => {
            tracing::warn!(message_id, error = %e, "a message's whole tool results are unreadable; their first parts are shown");
            return;
        }
    };
    for (call, whole) in calls.iter_mut().zip(wholes) {
        let (Some(meta), Some(whole)) = (call.meta.as_mut(), whole) else {
            continue;
        };
        meta.full_output = Some(whole);
        meta.full_output_bytes = None;
    }
}

/// The whole results as the column stores them.
pub(super) fn to_column(wholes: &[Option<&str>]) -> String {
    Value::Array(
        wholes
            .iter()
            .map(|w| w.map_or(Value::Null, |s| Value::String(s.to_owned())))
            .collect(),
    )
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ToolCallMeta;

    fn call(id: &str, full: Option<String>) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "files__read".into(),
            output: "the prompt's cut copy".into(),
            meta: Some(ToolCallMeta {
                full_output: full,
                ..ToolCallMeta::default()
            }),
            ..ToolCall::default()
        }
    }

    #[test]
    fn a_large_result_is_kept_beside_the_calls_and_put_back_whole() {
        // Three-byte characters: the cut falls inside one.
        let whole = "€".repeat(100_000);
        let small = "x".repeat(INLINE_RESULT_BYTES);
        let calls = vec![
            call("a", Some(whole.clone())),
            call("b", Some(small.clone())),
            call("c", None),
        ];
        let (kept, wholes) = split(&calls);
        let wholes = wholes.expect("one result is over the limit");
        assert_eq!(wholes, vec![Some(whole.as_str()), None, None]);
        let head = kept[0]
            .meta
            .as_ref()
            .unwrap()
            .full_output
            .as_deref()
            .unwrap();
        assert!(whole.starts_with(head) && head.len() <= HEAD_BYTES && head.len() > HEAD_BYTES - 3);
        assert_eq!(
            kept[0].meta.as_ref().unwrap().full_output_bytes,
            Some(whole.len() as u64)
        );
        assert_eq!(kept[0].output, "the prompt's cut copy");
        assert_eq!(kept[1], calls[1], "a result within the limit stays inline");
        assert_eq!(kept[2], calls[2]);

        let mut read = kept;
        merge(&mut read, Some(&to_column(&wholes)), 1);
        assert_eq!(read, calls);
    }

    #[test]
    fn calls_without_a_large_result_have_nothing_beside_them() {
        assert_eq!(
            split(&[call("a", Some("short".into())), call("b", None)]).1,
            None
        );
    }

    #[test]
    fn an_unreadable_column_leaves_the_first_parts() {
        let calls = vec![call("a", Some("x".repeat(INLINE_RESULT_BYTES + 1)))];
        let (mut kept, _) = split(&calls);
        let before = kept.clone();
        merge(&mut kept, Some("not json"), 1);
        assert_eq!(kept, before);
    }
}
