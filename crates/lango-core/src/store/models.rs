//! Rows as the rest of the engine sees them. Plain data: no queries here.

use serde::{Deserialize, Serialize};

pub use crate::conversation::ReplyInfo;

/// A conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub key: String,
    pub title: String,
    pub model: String,
    pub pinned: bool,
    /// The agent's state map; values round-trip exactly (a string "123" stays a string).
    pub state: serde_json::Map<String, serde_json::Value>,
    /// Messages with `seq` up to this have been observed by the memory.
    pub observed_through_seq: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// The conversation's own model and generation settings (empty = the Settings defaults).
    #[serde(default)]
    pub chat_settings: crate::conversation::ConversationSettings,
}

/// One tool call or tool response stored with a message (REFERENCE §2.1). Assistant rows
/// carry calls (`input`); tool rows carry responses (`output`).
///
/// Reading is lenient, because rows written by older versions live on: a missing `id` or
/// `name` reads as empty (the events view falls back, REFERENCE §2.4), and an `input` or
/// `output` stored as JSON rather than as a JSON string reads as that JSON's text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    #[serde(default, deserialize_with = "text_or_json")]
    pub id: String,
    #[serde(default, deserialize_with = "text_or_json")]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "text_or_json",
        skip_serializing_if = "String::is_empty"
    )]
    pub input: String,
    #[serde(
        default,
        deserialize_with = "text_or_json",
        skip_serializing_if = "String::is_empty"
    )]
    pub output: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thought: bool,
    /// Base64 of the provider's opaque signature.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub thought_signature: String,
    /// How a call went (responses only): for the user's tool card, never for a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolCallMeta>,
}

/// How one tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolCallStatus {
    #[default]
    Done,
    /// The tool failed or reported an error (MCP `isError`).
    Error,
    /// The user said no.
    Denied,
    TimedOut,
    /// Stopped with the turn.
    Cancelled,
}

/// An image a tool returned (shown in its card; the model gets a short placeholder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolImage {
    pub mime_type: String,
    /// Base64.
    pub data: String,
}

/// What the user's tool card shows beyond the call and its result.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallMeta {
    pub status: ToolCallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Tokens the result costs in the prompt (after capping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Tokens cut from the prompt's copy of the result (`tools.maxOutputTokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_tokens: Option<u64>,
    /// The MCP server and the tool's own name there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The whole result when the prompt carries a cut copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output: Option<String>,
    /// Set when `full_output` holds just the result's first part: its whole size in bytes.
    /// So stored for a large result, the whole one beside the calls (`store::tool_results`;
    /// `Store::tool_calls_at` reads it); so cut on a page of an older row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ToolImage>,
}

/// A string as it is, `null` as empty, any other JSON value as its JSON text.
fn text_or_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// The tool calls of a stored row. Never fails: one unreadable entry is left out (and logged)
/// rather than making the whole conversation unreadable; a column that is not a list (an old
/// `null`, an object) reads as no calls.
pub(crate) fn parse_tool_calls(json: &str, message_id: i64) -> Vec<ToolCall> {
    let entries = match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Array(entries)) => entries,
        Ok(serde_json::Value::Null) => Vec::new(),
        Ok(_) | Err(_) => {
            tracing::warn!(
                message_id,
                "a message's tool calls are not a list; read as none"
            );
            return Vec::new();
        }
    };
    entries
        .into_iter()
        .filter_map(|entry| match serde_json::from_value::<ToolCall>(entry) {
            Ok(call) => Some(call),
            Err(e) => {
                tracing::warn!(message_id, error = %e, "an unreadable tool call of a message is left out");
                None
            }
        })
        .collect()
}

/// How a message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageStatus {
    #[default]
    Complete,
    /// Still streaming, or a stream whose end we never saw.
    Partial,
    /// Stopped by the user or cut off mid-stream; the text so far is kept.
    Interrupted,
    Error,
    /// The provider ended it at the output token limit: complete as sent, but cut short
    /// (the user may ask for the rest).
    Truncated,
}

impl MessageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Partial => "partial",
            Self::Interrupted => "interrupted",
            Self::Error => "error",
            Self::Truncated => "truncated",
        }
    }

    pub(crate) fn parse(s: &str) -> Self {
        match s {
            "partial" => Self::Partial,
            "interrupted" => Self::Interrupted,
            "error" => Self::Error,
            "truncated" => Self::Truncated,
            _ => Self::Complete,
        }
    }
}

/// Whether a row is an ordinary message or a compaction summary standing in for older rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    #[default]
    Message,
    Summary,
}

impl MessageKind {
    pub(crate) fn parse(s: &str) -> Self {
        if s == "summary" {
            Self::Summary
        } else {
            Self::Message
        }
    }
}

/// A message to append. `role` is kept verbatim (legacy `model`/`function` rows exist).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewMessage {
    pub role: String,
    pub author: String,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub status: MessageStatus,
    /// Unix ms; `None` = now.
    pub created_at: Option<i64>,
    /// An assistant reply's model and usage.
    pub reply: Option<ReplyInfo>,
    /// Files attached to a user's message (stored beforehand with `put_attachment`).
    pub attachments: Vec<super::AttachmentRef>,
}

impl NewMessage {
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            content: content.into(),
            ..Self::default()
        }
    }
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredMessage {
    pub id: i64,
    /// Orders everything within a session; never reused, never changes.
    pub seq: i64,
    pub role: String,
    pub author: String,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub status: MessageStatus,
    pub kind: MessageKind,
    pub token_count: i64,
    pub created_at: i64,
    /// True when compaction moved it out of the model's history (display/search only).
    pub archived: bool,
    /// An assistant reply's model and usage (None on other rows and older replies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<ReplyInfo>,
    /// Files attached to the message, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<super::AttachmentRef>,
}

impl StoredMessage {
    /// A message the user typed: the user role, not a summary, and no tool response (legacy
    /// rows stored responses with the user role).
    pub fn is_user_turn(&self) -> bool {
        self.role == "user"
            && self.kind == MessageKind::Message
            && self.tool_calls.iter().all(|c| c.output.is_empty())
    }
}

impl StoredMessage {
    /// A tool result row: the tool role (or the legacy `function`), or a user row carrying a
    /// response (legacy rows stored responses with the user role).
    pub fn is_tool_result(&self) -> bool {
        matches!(self.role.as_str(), "tool" | "function")
            || (self.role == "user" && self.tool_calls.iter().any(|c| !c.output.is_empty()))
    }
}

/// The newest messages of a session that fit a token budget, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryTail {
    pub messages: Vec<StoredMessage>,
    /// True when older messages exist that did not fit (sequence-safety applies only then).
    pub truncated: bool,
    pub total_tokens: i64,
}

/// A compressed note about a range of messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    pub id: String,
    pub session_key: String,
    pub content: String,
    pub token_count: i64,
    pub seq_start: i64,
    pub seq_end: i64,
    pub created_at: i64,
}

/// A condensation of observations (generation 1) or of reflections (generation > 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reflection {
    pub id: String,
    pub session_key: String,
    pub content: String,
    pub token_count: i64,
    pub generation: i64,
    pub seq_start: i64,
    pub seq_end: i64,
    /// Tokens of the items it condensed (for "tokens saved").
    pub source_token_count: i64,
    pub created_at: i64,
}

/// What became of a memory record (observation, reflection) computed from a state another
/// process, or an earlier engine of this one, may have changed meanwhile.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded<T> {
    Saved(T),
    /// Someone else got there first (the range was already observed, or what the reflection
    /// condensed is gone): nothing was written, and the work is dropped.
    Stale,
}

impl<T> Recorded<T> {
    /// The saved value; None when the record was stale.
    pub fn saved(self) -> Option<T> {
        match self {
            Recorded::Saved(v) => Some(v),
            Recorded::Stale => None,
        }
    }
}

/// What a search matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchHitKind {
    Message,
    Observation,
    Reflection,
}

impl SearchHitKind {
    /// The name the database and the memory's vector collections use for this kind.
    pub fn name(self) -> &'static str {
        match self {
            SearchHitKind::Message => "message",
            SearchHitKind::Observation => "observation",
            SearchHitKind::Reflection => "reflection",
        }
    }

    /// Its place in per-kind arrays: message, observation, reflection.
    pub fn position(self) -> usize {
        self as usize
    }

    /// The kind of a [`SearchHitKind::name`]; None for any other text.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Message, Self::Observation, Self::Reflection]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub session_key: String,
    pub session_title: String,
    pub kind: SearchHitKind,
    /// Message id as a string, or the observation/reflection id.
    pub item_id: String,
    /// For messages: its seq (to scroll to it).
    pub seq: Option<i64>,
    /// The matching text, plain (no Markdown) and on one line, with matches wrapped in
    /// `[` `]`; the text's own brackets are shown as parentheses.
    pub snippet: String,
    pub archived: bool,
    /// When the message (or note) was written, Unix milliseconds like every timestamp here.
    pub at: i64,
    /// The conversation's last activity (Unix milliseconds), for grouping hits by it.
    pub session_updated_at: i64,
}

/// One page of a user's search, best matches first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    /// How many items match; counting stops at a cap (`total_is_lower_bound`).
    pub total: u64,
    pub total_is_lower_bound: bool,
    /// Whether a page after this one has hits.
    pub more: bool,
    /// Messages still queued for the search index: not found yet (0 normally).
    pub unindexed: u64,
}
