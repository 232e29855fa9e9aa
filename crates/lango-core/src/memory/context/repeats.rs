//! Summaries the memory section already carries (issue 16): a `[Compacted Summary]` history
//! row holds the observation its compaction was made with, so once the memory section shows
//! that observation — or a reflection that condensed it — the row would send the same memory
//! twice. Such rows are left out of the request; the stored history keeps them.
//!
//! No marker is sent in their place: the row only stands in for the archived messages
//! (REFERENCE §3.6), and the memory section, in the same request, says it already.

use std::collections::HashSet;

use crate::agent::{roles, Content};
use crate::store::{SummaryRow, SUMMARY_PREFIX};
use crate::tokens::TokenCounter;

use super::assembly::history_tokens;

/// A memory item as shown in the memory section: its text and the `seq` range it covers.
pub(super) struct Shown<'a> {
    pub(super) content: &'a str,
    pub(super) seq_start: i64,
    pub(super) seq_end: i64,
}

/// The contents (as sent) of the `summaries` the `shown` items carry: a summary is carried
/// when its note is a shown item's text, or when the messages archived behind it lie within
/// one shown item's range (the reflection that condensed its observation).
pub(super) fn carried_summaries(summaries: &[SummaryRow], shown: &[Shown<'_>]) -> HashSet<String> {
    summaries
        .iter()
        .filter(|summary| {
            let note = summary
                .content
                .strip_prefix(SUMMARY_PREFIX)
                .unwrap_or(&summary.content);
            shown.iter().any(|item| {
                item.content.trim() == note.trim()
                    || summary.archived.is_some_and(|(start, end)| {
                        item.seq_end > 0 && item.seq_start <= start && end <= item.seq_end
                    })
            })
        })
        .map(|summary| summary.content.clone())
        .collect()
}

/// What leaving the carried summaries out of a request's history removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LeftOut {
    pub(super) summaries: usize,
    /// History tokens the request no longer carries.
    pub(super) tokens: usize,
}

/// `contents` without the summary texts in `carried`: only text parts of `system` contents
/// are removed (a summary row is one; rows merged with it keep their other parts), and a
/// content left with no part is dropped. Tool calls and results are never touched, so no
/// pair is split. None when nothing was removed.
pub(super) fn without_carried(
    contents: &[Content],
    carried: &HashSet<String>,
    counter: &dyn TokenCounter,
) -> Option<(Vec<Content>, LeftOut)> {
    if carried.is_empty() {
        return None;
    }
    let mut left_out = LeftOut::default();
    let mut kept = Vec::with_capacity(contents.len());
    for original in contents {
        if original.role != roles::SYSTEM {
            kept.push(original.clone());
            continue;
        }
        let mut content = original.clone();
        content.parts.retain(|p| {
            p.function_call.is_some()
                || p.function_response.is_some()
                || !p.text.as_deref().is_some_and(|t| carried.contains(t))
        });
        let removed = original.parts.len() - content.parts.len();
        if removed == 0 {
            kept.push(content);
            continue;
        }
        // Only the changed content is counted again (the send path must stay cheap).
        let before = history_tokens(std::slice::from_ref(original), counter);
        let after = if content.parts.is_empty() {
            0
        } else {
            history_tokens(std::slice::from_ref(&content), counter)
        };
        left_out.summaries += removed;
        left_out.tokens += before.saturating_sub(after);
        if !content.parts.is_empty() {
            kept.push(content);
        }
    }
    (left_out.summaries > 0).then_some((kept, left_out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Part;
    use crate::tokens::default_counter;

    fn summary(note: &str) -> String {
        format!("{SUMMARY_PREFIX}{note}")
    }

    #[test]
    fn a_summary_merged_with_another_system_row_leaves_that_row_and_every_tool_pair_in_place() {
        let carried = HashSet::from([summary("trip to Lisbon")]);
        let call = Content::new(
            roles::ASSISTANT,
            vec![Part::function_call("c1", "exec", serde_json::Map::new())],
        );
        let result = Content::new(
            roles::FUNCTION,
            vec![Part::function_response(
                "c1",
                "exec",
                serde_json::Map::new(),
            )],
        );
        let contents = vec![
            Content::new(
                roles::SYSTEM,
                vec![
                    Part::text(summary("trip to Lisbon")),
                    Part::text(summary("a note memory does not show")),
                ],
            ),
            call.clone(),
            result.clone(),
        ];
        let (kept, left_out) =
            without_carried(&contents, &carried, default_counter().as_ref()).expect("removed");
        assert_eq!(left_out.summaries, 1);
        assert!(left_out.tokens > 0);
        assert_eq!(
            kept,
            vec![
                Content::new(
                    roles::SYSTEM,
                    vec![Part::text(summary("a note memory does not show"))]
                ),
                call,
                result,
            ]
        );
    }

    #[test]
    fn a_summary_is_carried_by_its_own_note_or_by_an_item_covering_its_rows_only() {
        let row = SummaryRow {
            content: summary("trip to Lisbon"),
            archived: Some((1, 4)),
        };
        let item = |content, seq_start, seq_end| Shown {
            content,
            seq_start,
            seq_end,
        };
        let carried =
            |shown: &[Shown<'_>]| !carried_summaries(std::slice::from_ref(&row), shown).is_empty();
        assert!(carried(&[item("trip to Lisbon", 0, 0)]), "same note");
        assert!(carried(&[item("Lisbon, by train", 1, 8)]), "its reflection");
        assert!(
            !carried(&[item("Lisbon, by train", 3, 8)]),
            "part of its rows"
        );
        assert!(!carried(&[item("the user's name is Ana", 0, 0)]));
        assert!(!carried(&[]), "nothing shown");
    }
}
