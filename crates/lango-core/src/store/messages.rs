//! Message rows: append, the budgeted history tail, paging for display.

use sqlx::FromRow;

use super::attachments::AttachmentRef;
use super::error::{StoreError, StoreResult};
use super::models::{
    parse_tool_calls, HistoryTail, MessageKind, MessageStatus, NewMessage, ReplyInfo,
    StoredMessage, ToolCall,
};
use super::{now_ms, tool_results, Store};
use crate::tokens::{MessageParts, ToolCallParts};

/// Rows fetched per round trip while walking a history backwards.
const TAIL_PAGE: i64 = 128;
/// How far past the budget the tail loader looks for the newest user message.
const TURN_ROWS_MAX: usize = 1_000;

pub(super) const MESSAGE_COLUMNS: &str =
    "id, seq, role, author, content, tool_calls, status, kind, token_count, created_at, reply, attachments";

#[derive(FromRow)]
pub(super) struct MessageRow {
    id: i64,
    seq: i64,
    role: String,
    author: String,
    content: String,
    tool_calls: String,
    status: String,
    kind: String,
    token_count: i64,
    created_at: i64,
    reply: Option<String>,
    attachments: Option<String>,
}

impl MessageRow {
    pub(super) fn into_message(self, archived: bool) -> StoreResult<StoredMessage> {
        Ok(StoredMessage {
            id: self.id,
            seq: self.seq,
            role: self.role,
            author: self.author,
            content: self.content,
            tool_calls: parse_tool_calls(&self.tool_calls, self.id),
            status: MessageStatus::parse(&self.status),
            kind: MessageKind::parse(&self.kind),
            token_count: self.token_count,
            created_at: self.created_at,
            archived,
            reply: parse_reply(self.reply.as_deref(), self.id),
            attachments: parse_attachments(self.attachments.as_deref(), self.id),
        })
    }
}

/// A reply's stored model and usage. Never fails: an unreadable value (written by hand) reads
/// as none, logged, rather than hiding the message.
fn parse_reply(json: Option<&str>, message_id: i64) -> Option<ReplyInfo> {
    let json = json?;
    serde_json::from_str(json)
        .inspect_err(|e| tracing::warn!(message_id, error = %e, "a reply's model information is unreadable; left out"))
        .ok()
}

/// A message's attachment list. Never fails: an unreadable list (written by hand) reads as
/// none, logged.
fn parse_attachments(json: Option<&str>, message_id: i64) -> Vec<AttachmentRef> {
    let Some(json) = json else {
        return Vec::new();
    };
    serde_json::from_str(json)
        .inspect_err(|e| tracing::warn!(message_id, error = %e, "a message's attachment list is unreadable; left out"))
        .unwrap_or_default()
}

/// Appends one row: ?1 role, ?2 author, ?3 content, ?4 tool calls JSON, ?5 status, ?6 token
/// count, ?7 created_at, ?8 session key, ?9 the reply's model JSON (or NULL), ?10 the attachment
/// list JSON (or NULL). The seq comes from the session row and the trigger
/// `messages_advance_session` bumps next_seq and updated_at atomically with the insert. No row
/// returned means no such session.
pub(super) const APPEND_MESSAGE: &str =
    "INSERT INTO messages (session_id, seq, role, author, content, tool_calls, status, token_count, created_at, reply, attachments, tool_results)
     SELECT id, next_seq, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, ?10, ?11 FROM sessions WHERE key = ?8
     RETURNING id, seq";

/// A message about to be appended, with what is computed before the insert.
pub(super) struct PreparedAppend {
    pub message: NewMessage,
    /// The calls, each large whole result cut to its start (`tool_results`).
    pub tool_calls_json: String,
    /// The large whole results, NULL when none.
    pub tool_results_json: Option<String>,
    pub tokens: i64,
    pub created_at: i64,
    /// `message.reply` as JSON, NULL when none.
    pub reply_json: Option<String>,
    /// `message.attachments` as JSON, NULL when none.
    pub attachments_json: Option<String>,
}

impl PreparedAppend {
    pub(super) fn new(store: &Store, message: NewMessage) -> StoreResult<Self> {
        let (tool_calls_json, tool_results_json) = calls_columns(&message.tool_calls)?;
        Ok(Self {
            created_at: message.created_at.unwrap_or_else(now_ms),
            tool_calls_json,
            tool_results_json,
            reply_json: message
                .reply
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
            attachments_json: (!message.attachments.is_empty())
                .then(|| serde_json::to_string(&message.attachments))
                .transpose()?,
            // The attachments' estimated cost counts too: the history budget must hold them.
            tokens: message_cost(store, &message.content, &message.tool_calls).saturating_add(
                message
                    .attachments
                    .iter()
                    .map(|a| i64::try_from(a.token_count).unwrap_or(i64::MAX))
                    .fold(0i64, i64::saturating_add),
            ),
            message,
        })
    }

    /// The stored message, given what the insert returned (`None`: no such session).
    pub(super) fn stored(
        self,
        key: &str,
        inserted: Option<(i64, i64)>,
    ) -> StoreResult<StoredMessage> {
        let (id, seq) = inserted.ok_or_else(|| StoreError::NotFound {
            what: format!("session {key:?}"),
        })?;
        Ok(StoredMessage {
            id,
            seq,
            role: self.message.role,
            author: self.message.author,
            content: self.message.content,
            tool_calls: self.message.tool_calls,
            status: self.message.status,
            kind: MessageKind::Message,
            token_count: self.tokens,
            created_at: self.created_at,
            archived: false,
            reply: self.message.reply,
            attachments: self.message.attachments,
        })
    }
}

/// The `tool_calls` and `tool_results` columns of `calls`.
pub(super) fn calls_columns(calls: &[ToolCall]) -> StoreResult<(String, Option<String>)> {
    let (kept, wholes) = tool_results::split(calls);
    Ok((
        serde_json::to_string(&kept)?,
        wholes.as_deref().map(tool_results::to_column),
    ))
}

/// What a message costs under `counter` (REFERENCE §3.2).
pub(super) fn message_cost(store: &Store, content: &str, calls: &[ToolCall]) -> i64 {
    let parts = MessageParts {
        content,
        tool_calls: calls
            .iter()
            .map(|c| ToolCallParts {
                id: &c.id,
                name: &c.name,
                input: &c.input,
                output: &c.output,
            })
            .collect(),
    };
    i64::try_from(store.counter().message_cost(&parts)).unwrap_or(i64::MAX)
}

impl Store {
    /// Appends a message and returns it with its `seq`. Moves the session's `updated_at` to
    /// the message's time (never backwards).
    /// A missing session → [`StoreError::NotFound`].
    pub async fn append_message(
        &self,
        key: &str,
        message: NewMessage,
    ) -> StoreResult<StoredMessage> {
        let prepared = PreparedAppend::new(self, message)?;
        // One statement (see APPEND_MESSAGE); writes are serialised by the write gate, so no
        // two appends read the same next_seq. Runs on the hot write connection: this is the
        // statement a chat runs most (see hot_path.rs).
        let row = (
            prepared.message.role.clone(),
            prepared.message.author.clone(),
            prepared.message.content.clone(),
            prepared.tool_calls_json.clone(),
            prepared.message.status.as_str(),
            prepared.tokens,
            prepared.created_at,
            key.to_string(),
            prepared.reply_json.clone(),
            prepared.attachments_json.clone(),
            prepared.tool_results_json.clone(),
        );
        let inserted: Option<(i64, i64)> = self
            .hot_write(move |conn| {
                let mut insert = conn.prepare_cached(APPEND_MESSAGE)?;
                let (
                    role,
                    author,
                    content,
                    tool_calls,
                    status,
                    tokens,
                    created_at,
                    key,
                    reply,
                    attachments,
                    tool_results,
                ) = &row;
                let mut rows = insert.query(rusqlite::params![
                    role,
                    author,
                    content,
                    tool_calls,
                    status,
                    tokens,
                    created_at,
                    key,
                    reply,
                    attachments,
                    tool_results
                ])?;
                // Step to the end: in autocommit mode the commit happens when the statement
                // completes, and only a step reports its failure (a reset on drop would not).
                let mut returned = None;
                while let Some(r) = rows.next()? {
                    returned = Some((r.get(0)?, r.get(1)?));
                }
                Ok(returned)
            })
            .await?;
        prepared.stored(key, inserted)
    }

    /// Replaces a message's content, tool calls and status (a streamed reply being finished,
    /// stopped or failed). Its `seq` never changes.
    pub async fn update_message(
        &self,
        id: i64,
        content: &str,
        tool_calls: &[ToolCall],
        status: MessageStatus,
    ) -> StoreResult<()> {
        let tokens = message_cost(self, content, tool_calls);
        let (calls_json, results_json) = calls_columns(tool_calls)?;
        let row = (
            content.to_string(),
            calls_json,
            status.as_str(),
            tokens,
            id,
            results_json,
        );
        let changed = self
            .hot_write(move |conn| {
                let mut update = conn.prepare_cached(
                    "UPDATE messages SET content = ?1, tool_calls = ?2, status = ?3, token_count = ?4, tool_results = ?6 WHERE id = ?5",
                )?;
                let (content, tool_calls, status, tokens, id, tool_results) = &row;
                update.execute(rusqlite::params![
                    content,
                    tool_calls,
                    status,
                    tokens,
                    id,
                    tool_results
                ])
            })
            .await?;
        if changed == 0 {
            return Err(StoreError::NotFound {
                what: format!("message {id}"),
            });
        }
        Ok(())
    }

    /// The newest messages of the model's history that fit `budget` tokens, oldest first.
    ///
    /// Walks backwards from the newest row a page at a time and stops at the first message
    /// that would exceed the budget once the newest user message is in (the newest message is
    /// always included, REFERENCE §2.5; the user's newest message too, issue 14 item 16),
    /// so its cost depends on the tail's size, not the session's.
    pub async fn load_history_tail(&self, key: &str, budget: usize) -> StoreResult<HistoryTail> {
        let budget = i64::try_from(budget).unwrap_or(i64::MAX);
        let session_id = self.session_id(self.reader(), key).await?;
        let mut newest_first: Vec<StoredMessage> = Vec::new();
        let mut total: i64 = 0;
        let mut before = i64::MAX;
        let mut truncated = false;
        let mut seen_user = false;
        'pages: loop {
            let rows: Vec<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages
                 WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?"
            )))
            .bind(session_id)
            .bind(before)
            .bind(TAIL_PAGE)
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
            let page_len = rows.len();
            for row in rows {
                // Rows past the budget are still loaded back to the newest user message (at
                // most a turn's worth): the session fits that turn to the budget rather than
                // send a history without the user's message (issue 14 item 16).
                let over = total + row.token_count > budget && !newest_first.is_empty();
                if over && (seen_user || newest_first.len() >= TURN_ROWS_MAX) {
                    truncated = true;
                    break 'pages;
                }
                total += row.token_count;
                before = row.seq;
                let message = row.into_message(false)?;
                seen_user |= message.is_user_turn();
                newest_first.push(message);
            }
            if i64::try_from(page_len).unwrap_or(0) < TAIL_PAGE {
                break;
            }
        }
        newest_first.reverse();
        Ok(HistoryTail {
            messages: newest_first,
            truncated,
            total_tokens: total,
        })
    }

    /// Every message of the model's history (not the archive), oldest first.
    pub async fn list_messages(&self, key: &str) -> StoreResult<Vec<StoredMessage>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let rows: Vec<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq"
        )))
        .bind(session_id)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(|r| r.into_message(false)).collect()
    }

    /// A page of everything the user wrote or read in this session, the archive included,
    /// for display: up to `limit` messages with `seq < before_seq` (None = from the newest),
    /// returned oldest first. Page backwards by passing the first returned seq.
    ///
    /// Compaction summaries are left out: they stand in for archived rows that are shown
    /// themselves, and every shown row has a distinct `seq`, so paging never skips a row.
    pub async fn page_messages(
        &self,
        key: &str,
        before_seq: Option<i64>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let rows: Vec<(i64, MessageRow)> =
            sqlx::query_as::<_, PagedRow>(sqlx::AssertSqlSafe(format!(
                "SELECT * FROM (
                 SELECT 0 AS archived, {MESSAGE_COLUMNS} FROM messages
                     WHERE session_id = ?1 AND seq < ?2 AND kind = 'message'
                 UNION ALL
                 SELECT 1 AS archived, {MESSAGE_COLUMNS} FROM archived_messages
                     WHERE session_id = ?1 AND seq < ?2 AND kind = 'message'
             ) ORDER BY seq DESC LIMIT ?3"
            )))
            .bind(session_id)
            .bind(before_seq.unwrap_or(i64::MAX))
            .bind(i64::from(limit))
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?
            .into_iter()
            .map(|r| (r.archived, r.row))
            .collect();
        let mut page = rows
            .into_iter()
            .map(|(archived, row)| row.into_message(archived != 0))
            .collect::<StoreResult<Vec<_>>>()?;
        page.reverse();
        Ok(page)
    }

    /// The tool calls of the message at `seq` (live or archived), with their whole results:
    /// what a tool card reads when the page carried only the first part of a large result.
    pub async fn tool_calls_at(&self, key: &str, seq: i64) -> StoreResult<Vec<ToolCall>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let row: Option<(i64, String, Option<String>)> = sqlx::query_as(
            "SELECT id, tool_calls, tool_results FROM messages WHERE session_id = ?1 AND seq = ?2
             UNION ALL
             SELECT id, tool_calls, tool_results FROM archived_messages
                 WHERE session_id = ?1 AND seq = ?2
             LIMIT 1",
        )
        .bind(session_id)
        .bind(seq)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        let (id, json, wholes) = row.ok_or_else(|| StoreError::NotFound {
            what: format!("message {seq} of {key}"),
        })?;
        let mut calls = parse_tool_calls(&json, id);
        tool_results::merge(&mut calls, wholes.as_deref(), id);
        Ok(calls)
    }

    /// Puts the whole tool results back into `messages` (a page of conversation `key`):
    /// for a JSON export, which carries everything.
    pub async fn with_whole_tool_results(
        &self,
        key: &str,
        messages: &mut [StoredMessage],
    ) -> StoreResult<()> {
        for message in messages.iter_mut() {
            let cut = message.tool_calls.iter().any(|c| {
                c.meta
                    .as_ref()
                    .is_some_and(|m| m.full_output_bytes.is_some())
            });
            if cut {
                message.tool_calls = self.tool_calls_at(key, message.seq).await?;
            }
        }
        Ok(())
    }
}

#[derive(FromRow)]
struct PagedRow {
    archived: i64,
    #[sqlx(flatten)]
    row: MessageRow,
}
