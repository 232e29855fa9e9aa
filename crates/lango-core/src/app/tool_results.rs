//! Large tool results and the window: a message page carries only the first part of a
//! result over [`PAGE_RESULT_BYTES`] (and its whole size), so opening a conversation, or its
//! reload after each turn, never ships megabytes that the card keeps behind "Show all"; and
//! each result once — not again as its row's content, nor as the prompt's cut copy beside
//! the whole one (a conversation of 30 file reads of 50 KB: 3.1 MB a page, now ~1.4 MB). The
//! card asks for more when the user wants it ([`App::tool_result`]: at most
//! [`SHOWN_RESULT_BYTES`], since WebKit takes ~0.6 s a megabyte to lay such text out), and
//! the whole result can be saved to a file ([`App::save_tool_result`]).
//!
//! Owns those cuts. The store keeps every result whole.

use std::path::PathBuf;

use serde_json::Value;

use super::dto::{ExportResult, ToolResultText};
use super::{App, AppError};
use crate::store::{StoredMessage, ToolCall, HEAD_BYTES, INLINE_RESULT_BYTES};
use crate::text::floor_char_boundary;

/// A result up to this size reaches the window whole (the size the store keeps inline).
pub const PAGE_RESULT_BYTES: usize = INLINE_RESULT_BYTES;
/// The most "Show all" shows.
pub const SHOWN_RESULT_BYTES: usize = 512 * 1024;

/// `messages` as a page carries them: a tool row's content without its results (the text
/// beside them only; the card shows each result), a result's cut copy left out when the
/// whole one is there, and each large whole result cut to its first part, noting its size.
pub(super) fn cut_for_page(messages: &mut [StoredMessage]) {
    for message in messages.iter_mut() {
        if crate::agent::session::is_tool_role(&message.role) {
            message.content = text_beside_results(&message.content, &message.tool_calls);
        }
        for call in &mut message.tool_calls {
            let Some(meta) = call.meta.as_mut() else {
                continue;
            };
            let Some(full) = meta.full_output.as_mut() else {
                continue;
            };
            call.output.clear();
            if full.len() > PAGE_RESULT_BYTES {
                meta.full_output_bytes = Some(full.len() as u64);
                full.truncate(floor_char_boundary(full, HEAD_BYTES));
            }
        }
    }
}

/// A tool row's content (its results, as the model got them) less each result: any other
/// text it holds, trimmed.
fn text_beside_results(content: &str, calls: &[ToolCall]) -> String {
    let mut rest = content.to_owned();
    for output in calls
        .iter()
        .map(|c| c.output.as_str())
        .filter(|o| !o.is_empty())
    {
        if let Some(at) = rest.find(output) {
            rest.replace_range(at..at + output.len(), "");
        }
    }
    rest.trim().to_owned()
}

/// The result as a file: the text when it is only text (`{"content": "…"}`), else its JSON
/// laid out; and the file's extension.
fn as_file(whole: &str) -> (String, &'static str) {
    match serde_json::from_str::<Value>(whole) {
        Ok(Value::Object(map))
            if map.len() == 1 && map.get("content").is_some_and(Value::is_string) =>
        {
            (
                map["content"].as_str().unwrap_or_default().to_owned(),
                "txt",
            )
        }
        Ok(value) => (
            serde_json::to_string_pretty(&value).unwrap_or_else(|_| whole.to_owned()),
            "json",
        ),
        Err(_) => (whole.to_owned(), "txt"),
    }
}

impl App {
    /// The result of tool call `call_id` in the message at `seq` of conversation `key`, up
    /// to [`SHOWN_RESULT_BYTES`]: what "Show all" shows when the page had only its start.
    pub async fn tool_result(
        &self,
        key: &str,
        seq: i64,
        call_id: &str,
    ) -> Result<ToolResultText, AppError> {
        let mut text = self.whole_result(key, seq, call_id).await?.1;
        let bytes = text.len();
        text.truncate(floor_char_boundary(&text, SHOWN_RESULT_BYTES));
        let complete = text.len() == bytes;
        Ok(ToolResultText {
            text,
            bytes,
            complete,
        })
    }

    /// Writes the whole result of tool call `call_id` to a file in the Downloads folder
    /// (like an export; the window may then show it in the file manager) and returns where.
    pub async fn save_tool_result(
        &self,
        key: &str,
        seq: i64,
        call_id: &str,
    ) -> Result<ExportResult, AppError> {
        let (call, whole) = self.whole_result(key, seq, call_id).await?;
        let (text, ext) = as_file(&whole);
        let dir = self.ready_export_dir()?;
        let tool = call
            .meta
            .as_ref()
            .and_then(|m| m.tool.clone())
            .unwrap_or(call.name);
        let stem = match crate::export::portable_stem(&tool, "").as_str() {
            "" => "Lango - tool result".to_owned(),
            name => format!("Lango - {name} result"),
        };
        self.write_export(free_name(&dir, &stem, ext), &text)
    }

    /// The call and its whole stored result (the prompt's copy when nothing was cut).
    async fn whole_result(
        &self,
        key: &str,
        seq: i64,
        call_id: &str,
    ) -> Result<(ToolCall, String), AppError> {
        let calls = self.inner.store.tool_calls_at(key, seq).await?;
        let call = calls.into_iter().find(|c| c.id == call_id).ok_or_else(|| {
            AppError::new(
                "not_found",
                format!("the result of tool call {call_id} is not in this conversation"),
            )
        })?;
        let whole = call
            .meta
            .as_ref()
            .and_then(|m| m.full_output.clone())
            .unwrap_or_else(|| call.output.clone());
        Ok((call, whole))
    }
}

/// `dir/stem.ext`, or `dir/stem (2).ext` … whichever does not exist yet.
fn free_name(dir: &std::path::Path, stem: &str, ext: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.{ext}"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{stem} ({n}).{ext}"));
        n += 1;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ToolCallMeta;

    #[test]
    fn a_tool_row_carries_each_result_once() {
        let mut page = vec![
            message_with_result(Some("{\"content\":\"the whole file\"}".into())),
            message_with_result(None),
        ];
        page[0].content = "cut copy".into();
        page[1].content = "cut copy\nand a note beside it".into();
        cut_for_page(&mut page);
        // The whole result is there: neither the cut copy nor the content repeats it.
        assert_eq!(page[0].content, "");
        assert_eq!(page[0].tool_calls[0].output, "");
        assert_eq!(
            meta(&page[0]).full_output.as_deref(),
            Some("{\"content\":\"the whole file\"}")
        );
        // Only the model's copy is stored: the card shows it; the row keeps its other text.
        assert_eq!(page[1].tool_calls[0].output, "cut copy");
        assert_eq!(page[1].content, "and a note beside it");
    }

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

    #[test]
    fn a_text_result_is_saved_as_its_text_and_anything_else_as_laid_out_json() {
        let (text, ext) = as_file(r#"{"content":"line 1\nline 2"}"#);
        assert_eq!((text.as_str(), ext), ("line 1\nline 2", "txt"));
        let (text, ext) = as_file(r#"{"content":"x","structuredContent":{"n":1}}"#);
        assert_eq!(ext, "json");
        assert!(text.contains("\n  \"structuredContent\": {\n"), "{text}");
        let (text, ext) = as_file("not json");
        assert_eq!((text.as_str(), ext), ("not json", "txt"));
    }

    #[test]
    fn a_saved_result_never_overwrites_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let first = free_name(dir.path(), "Lango - read result", "txt");
        std::fs::write(&first, "a").unwrap();
        let second = free_name(dir.path(), "Lango - read result", "txt");
        assert_eq!(second.file_name().unwrap(), "Lango - read result (2).txt");
    }
}
