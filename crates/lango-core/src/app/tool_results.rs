//! Large tool results and the window: a message page carries only the first part of a
//! result over [`PAGE_RESULT_BYTES`] (and its whole size), so opening a conversation, or its
//! reload after each turn, never ships megabytes that the card keeps behind "Show all"; the
//! card asks for the whole result ([`App::tool_result`]) when the user wants it.
//!
//! Owns that cut. The store keeps every result whole.

use super::{App, AppError};
use crate::store::StoredMessage;

/// A result up to this size reaches the window whole.
pub const PAGE_RESULT_BYTES: usize = 64 * 1024;
/// What a page keeps of a larger one: more than the card's preview shows.
const HEAD_BYTES: usize = 16 * 1024;

/// Cuts each large whole result in `messages` to its first part, noting its size.
pub(super) fn cut_for_page(messages: &mut [StoredMessage]) {
    let metas = messages
        .iter_mut()
        .flat_map(|m| m.tool_calls.iter_mut())
        .filter_map(|call| call.meta.as_mut());
    for meta in metas {
        let Some(full) = meta.full_output.as_mut() else {
            continue;
        };
        if full.len() > PAGE_RESULT_BYTES {
            meta.full_output_bytes = Some(full.len() as u64);
            let mut end = HEAD_BYTES;
            while !full.is_char_boundary(end) {
                end -= 1;
            }
            full.truncate(end);
        }
    }
}

impl App {
    /// The whole result of tool call `call_id` in the message at `seq` of conversation
    /// `key`: what "Show all" shows when the page had only its first part.
    pub async fn tool_result(
        &self,
        key: &str,
        seq: i64,
        call_id: &str,
    ) -> Result<String, AppError> {
        let calls = self.inner.store.tool_calls_at(key, seq).await?;
        let call = calls.into_iter().find(|c| c.id == call_id).ok_or_else(|| {
            AppError::new(
                "not_found",
                format!("the result of tool call {call_id} is not in this conversation"),
            )
        })?;
        Ok(call.meta.and_then(|m| m.full_output).unwrap_or(call.output))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ToolCall, ToolCallMeta};

    fn message_with_result(full: Option<String>) -> StoredMessage {
        let call = ToolCall {
            id: "c1".into(),
            name: "files__read".into(),
            output: "cut copy".into(),
            meta: Some(ToolCallMeta {
                full_output: full,
                ..ToolCallMeta::default()
            }),
            ..ToolCall::default()
        };
        StoredMessage {
            id: 1,
            seq: 1,
            role: "tool".into(),
            author: String::new(),
            content: String::new(),
            tool_calls: vec![call],
            status: Default::default(),
            kind: Default::default(),
            token_count: 0,
            created_at: 0,
            archived: false,
            reply: None,
            attachments: Vec::new(),
        }
    }

    fn meta(m: &StoredMessage) -> &ToolCallMeta {
        m.tool_calls[0].meta.as_ref().unwrap()
    }

    #[test]
    fn a_result_within_the_page_limit_reaches_the_window_whole() {
        let whole = "é".repeat(PAGE_RESULT_BYTES / 2);
        let mut page = vec![message_with_result(Some(whole.clone()))];
        cut_for_page(&mut page);
        assert_eq!(meta(&page[0]).full_output.as_deref(), Some(whole.as_str()));
        assert_eq!(meta(&page[0]).full_output_bytes, None);
    }

    #[test]
    fn a_larger_result_keeps_its_start_and_its_size_cut_on_a_character() {
        // Three-byte characters: the cut point falls inside one.
        let whole = "€".repeat(1_000_000);
        let mut page = vec![
            message_with_result(Some(whole.clone())),
            message_with_result(None),
        ];
        cut_for_page(&mut page);
        let head = meta(&page[0]).full_output.as_deref().unwrap();
        assert!(whole.starts_with(head));
        assert!(head.len() <= HEAD_BYTES && head.len() > HEAD_BYTES - 3);
        assert_eq!(meta(&page[0]).full_output_bytes, Some(whole.len() as u64));
        assert_eq!(meta(&page[1]).full_output, None);
        assert_eq!(page[1].tool_calls[0].output, "cut copy");
    }
}
