//! Tool output that cannot hurt the conversation: a result bigger than
//! `tools.maxOutputTokens` enters the prompt cut, with a visible marker saying how much was
//! left out. The whole result stays stored for the user's card.
//!
//! Owns the cut. It must not decide what a tool returns nor store anything.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::text::floor_char_boundary;
use crate::tokens::TokenCounter;

/// Tokens kept free for the marker and the JSON around the cut text.
const MARKER_RESERVE: usize = 40;

/// The prompt's limit for one tool result.
#[derive(Debug, Clone)]
pub struct OutputCap {
    counter: Arc<dyn TokenCounter>,
    max_tokens: usize,
}

/// A result as the prompt carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct CappedOutput {
    pub response: Map<String, Value>,
    /// What `response` costs in the prompt.
    pub prompt_tokens: usize,
    /// Tokens left out (0 = nothing was cut).
    pub omitted_tokens: usize,
    /// The whole result as JSON text, when it was cut.
    pub full_output: Option<String>,
}

impl OutputCap {
    pub fn new(counter: Arc<dyn TokenCounter>, max_tokens: usize) -> Self {
        Self {
            counter,
            max_tokens: max_tokens.max(MARKER_RESERVE * 2),
        }
    }

    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// `response` as is when it fits, else its first part with `"truncated": "truncated — n
    /// tokens omitted …"`: of its one text when it is a single text (`{"content": "…"}`, an
    /// MCP tool's usual result), else of its JSON text (`{"result": "…"}`).
    pub fn apply(&self, response: Map<String, Value>) -> CappedOutput {
        // A map of JSON values always serialises.
        let full = serde_json::to_string(&response).unwrap_or_default();
        let tokens = self.counter.count(&full);
        if tokens <= self.max_tokens {
            return CappedOutput {
                response,
                prompt_tokens: tokens,
                omitted_tokens: 0,
                full_output: None,
            };
        }
        // A single text is cut as text: its JSON text would be escaped a second time inside
        // the copy (`\n` → `\\n`), costing tokens for backslashes instead of content.
        let single_text = match response.iter().next() {
            Some((key, Value::String(text))) if response.len() == 1 => Some((key.clone(), text)),
            _ => None,
        };
        let (key, source) = match &single_text {
            Some((key, text)) => (key.clone(), text.as_str()),
            None => ("result".to_owned(), full.as_str()),
        };
        // Escaping in the copy as sent still adds to what the kept text costs alone (a source
        // file's copy came to 11,052 tokens against 8,000): cut, measure the copy, and cut
        // shorter by the excess until it fits.
        let mut budget = self.max_tokens - MARKER_RESERVE;
        let mut within = source.len();
        loop {
            let keep = self.longest_prefix_within(&source[..within], budget);
            within = keep.len();
            let omitted = tokens.saturating_sub(self.counter.count(keep));
            let mut cut = Map::new();
            cut.insert(key.clone(), Value::String(keep.to_owned()));
            cut.insert(
                "truncated".into(),
                Value::String(format!(
                    "truncated — {omitted} tokens omitted (the result was {tokens} tokens; the limit is {})",
                    self.max_tokens
                )),
            );
            let prompt_tokens = self.counter.count(&Value::Object(cut.clone()).to_string());
            if prompt_tokens <= self.max_tokens || within == 0 {
                return CappedOutput {
                    response: cut,
                    prompt_tokens,
                    omitted_tokens: omitted,
                    full_output: Some(full),
                };
            }
            budget = budget.saturating_sub(prompt_tokens - self.max_tokens + MARKER_RESERVE / 4);
        }
    }

    /// The longest prefix of `text` (on a char boundary) that costs at most `budget` tokens:
    /// a binary search over byte lengths, each probe counted for real.
    fn longest_prefix_within<'t>(&self, text: &'t str, budget: usize) -> &'t str {
        let (mut lo, mut hi) = (0usize, text.len());
        while lo < hi {
            let mid = floor_char_boundary(text, lo + (hi - lo).div_ceil(2));
            if mid <= lo {
                break;
            }
            if self.counter.count(&text[..mid]) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        &text[..floor_char_boundary(text, lo)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::default_counter;
    use serde_json::json;

    fn cap(max: usize) -> OutputCap {
        OutputCap::new(default_counter(), max)
    }

    #[test]
    fn a_result_within_the_limit_enters_the_prompt_unchanged() {
        let response = json!({"content": "it is 12:00"})
            .as_object()
            .cloned()
            .unwrap();
        let out = cap(8_000).apply(response.clone());
        assert_eq!(out.response, response);
        assert_eq!(out.omitted_tokens, 0);
        assert!(out.full_output.is_none());
        assert!(out.prompt_tokens > 0);
    }

    #[test]
    fn a_megabyte_result_is_cut_to_the_limit_with_a_marker_and_kept_whole_for_the_user() {
        let big = "lorem ipsum dolor sit amet ".repeat(40_000);
        let response = json!({"content": big.clone()})
            .as_object()
            .cloned()
            .unwrap();
        let out = cap(8_000).apply(response);
        assert!(out.prompt_tokens <= 8_000, "{}", out.prompt_tokens);
        assert!(out.prompt_tokens > 7_000, "{}", out.prompt_tokens);
        assert!(big.starts_with(out.response["content"].as_str().unwrap()));
        assert!(out.omitted_tokens > 100_000);
        let marker = out.response["truncated"].as_str().unwrap();
        assert!(marker.starts_with(&format!(
            "truncated — {} tokens omitted",
            out.omitted_tokens
        )));
        assert!(out.full_output.as_deref().unwrap().len() > 1_000_000);
    }

    #[test]
    fn a_cut_copy_of_text_full_of_quotes_and_line_breaks_stays_within_the_limit() {
        // Source code: every line break and quote is escaped twice in the prompt's copy.
        let source = "    let name = \"value\"; // \"quoted\"\n".repeat(20_000);
        let response = json!({"content": source}).as_object().cloned().unwrap();
        let mut other = response.clone();
        other.insert("isError".into(), json!(false));
        for (response, max) in [(&response, 8_000), (&response, 500), (&other, 8_000)] {
            let out = cap(max).apply(response.clone());
            assert!(out.prompt_tokens <= max, "{} > {max}", out.prompt_tokens);
            assert!(
                out.prompt_tokens > max * 8 / 10,
                "{} of {max}",
                out.prompt_tokens
            );
            let sent = Value::Object(out.response.clone()).to_string();
            assert_eq!(default_counter().count(&sent), out.prompt_tokens);
        }
    }

    #[test]
    fn a_single_text_is_cut_as_text_so_the_copy_carries_content_not_backslashes() {
        let source = "    let name = \"value\"; // \"quoted\"\n".repeat(20_000);
        let out = cap(8_000).apply(json!({"content": source}).as_object().cloned().unwrap());
        let kept = out.response["content"].as_str().unwrap();
        assert!(source.starts_with(kept));
        // The same text beside another field is cut as JSON text, escaped again.
        let json_cut = cap(8_000).apply(
            json!({"content": source, "isError": false})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let json_kept = json_cut.response["result"].as_str().unwrap();
        let (lines, json_lines) = (kept.matches('\n').count(), json_kept.matches("\\n").count());
        assert!(lines * 10 > json_lines * 13, "{lines} vs {json_lines}");
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        let wide = "日本語のテキスト🙂".repeat(5_000);
        let out = cap(200).apply(json!({"t": wide.clone()}).as_object().cloned().unwrap());
        assert!(wide.starts_with(out.response["t"].as_str().unwrap()));
        assert!(out.omitted_tokens > 0);
    }
}
