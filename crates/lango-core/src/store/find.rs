//! Find in one conversation (the chat's Ctrl+F): which of its messages contain some text,
//! oldest first — archived ones included, as the message list shows them.
//!
//! A plain substring match, not the full-text index: what a person expects from "find in
//! page" (any part of a word, punctuation included). Letters compare case-insensitively
//! for ASCII (SQLite's `lower`); one scan of the conversation's rows, a few milliseconds
//! for 10,000 messages.

use super::error::StoreResult;
use super::Store;

/// Most matches one find returns (the rest is counted as truncated).
pub const FIND_MAX: usize = 20_000;

/// The messages of a conversation that contain the text looked for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindMatches {
    /// Their seqs, oldest first.
    pub seqs: Vec<i64>,
    /// More messages matched than [`FIND_MAX`].
    pub truncated: bool,
}

impl Store {
    /// The seqs of the messages of `key` whose text contains `needle` (case-insensitive for
    /// ASCII letters), oldest first. An empty or blank needle finds nothing.
    pub async fn find_in_session(&self, key: &str, needle: &str) -> StoreResult<FindMatches> {
        if needle.trim().is_empty() {
            return Ok(FindMatches {
                seqs: Vec::new(),
                truncated: false,
            });
        }
        let session_id = self.session_id(self.reader(), key).await?;
        let mut seqs: Vec<i64> = sqlx::query_scalar(
            "SELECT seq FROM (
                 SELECT seq, content FROM messages WHERE session_id = ?1 AND kind = 'message'
                 UNION ALL
                 SELECT seq, content FROM archived_messages WHERE session_id = ?1 AND kind = 'message'
             ) WHERE instr(lower(content), lower(?2)) > 0 ORDER BY seq LIMIT ?3",
        )
        .bind(session_id)
        .bind(needle)
        .bind(FIND_MAX as i64 + 1)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        let truncated = seqs.len() > FIND_MAX;
        seqs.truncate(FIND_MAX);
        Ok(FindMatches { seqs, truncated })
    }
}
