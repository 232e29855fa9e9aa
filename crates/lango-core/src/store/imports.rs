//! Conversations imported from another app (migration 0010): each written in transactions of
//! at most [`IMPORT_CHUNK`] messages, each with the record that makes a re-import find it
//! (and carry on where it stopped), keyed by (source, the source's id).
//!
//! A re-import of a known conversation appends only the messages after the last one imported,
//! and only while the session was not continued in Lango since (its `next_seq` is what the
//! last import left). A conversation whose last imported message is no longer in the source
//! (edited, another branch current) is left as it is. Imported messages are ordinary rows:
//! the search index queues them by its insert trigger and the memory observes them later.

use std::collections::HashMap;

use super::error::{StoreError, StoreResult};
use super::{now_ms, Store};

/// One message of an imported conversation, its token count already computed.
#[derive(Debug, Clone)]
pub struct ImportRow {
    /// The source's id of the message.
    pub external_id: String,
    pub role: String,
    pub content: String,
    pub created_at: i64,
    pub token_count: i64,
}

/// A conversation to write.
#[derive(Debug, Clone)]
pub struct ImportWrite {
    /// `chatgpt` or `claude`.
    pub source: String,
    pub external_id: String,
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// Oldest first, never empty.
    pub messages: Vec<ImportRow>,
}

/// What writing one imported conversation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportOutcome {
    /// A new session with `messages` messages.
    Created { key: String, messages: usize },
    /// `messages` new messages appended to the session imported before.
    Appended { key: String, messages: usize },
    /// Imported before, nothing new.
    Unchanged { key: String },
    /// Imported before, but its earlier messages changed in the source: left as it is.
    Changed { key: String },
    /// Imported before and continued in Lango since: left as it is.
    Continued { key: String },
}

#[derive(sqlx::FromRow)]
struct Record {
    key: String,
    session_id: i64,
    last_message_id: String,
    next_seq: i64,
    current_next_seq: i64,
}

/// Messages written per transaction of an import: ~15–25 ms of writer time (a
/// 20,000-message conversation in one transaction held it 1.1–1.3 s; `make bench`).
const IMPORT_CHUNK: usize = 250;

const INSERT_MESSAGE: &str =
    "INSERT INTO messages (session_id, seq, role, author, content, tool_calls, status, token_count, created_at)
     SELECT id, next_seq, ?, '', ?, '[]', 'complete', ?, ? FROM sessions WHERE id = ?";

impl Store {
    /// Writes one imported conversation (see the module doc for re-imports), its messages
    /// [`IMPORT_CHUNK`] per transaction, each with the record of how far it got: a send
    /// waits behind one chunk, never behind a whole long conversation, and a failure leaves
    /// the chunks before it — recorded, so importing the file again writes the rest.
    pub async fn write_import(&self, conversation: &ImportWrite) -> StoreResult<ImportOutcome> {
        if conversation.messages.is_empty() {
            return Err(StoreError::Constraint(
                "an imported conversation needs a message".into(),
            ));
        }
        let mut tx = self.begin_write().await?;
        let known: Option<Record> = sqlx::query_as(
            "SELECT s.key, i.session_id, i.last_message_id, i.next_seq, s.next_seq AS current_next_seq
               FROM imported_conversations i JOIN sessions s ON s.id = i.session_id
              WHERE i.source = ? AND i.external_id = ?",
        )
        .bind(&conversation.source)
        .bind(&conversation.external_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let (outcome, session_id, rows) = match known {
            Some(record) => {
                let key = record.key.clone();
                if record.current_next_seq != record.next_seq {
                    return Ok(ImportOutcome::Continued { key });
                }
                let Some(at) = conversation
                    .messages
                    .iter()
                    .position(|m| m.external_id == record.last_message_id)
                else {
                    return Ok(ImportOutcome::Changed { key });
                };
                let new = &conversation.messages[at + 1..];
                if new.is_empty() {
                    return Ok(ImportOutcome::Unchanged { key });
                }
                let outcome = ImportOutcome::Appended {
                    key,
                    messages: new.len(),
                };
                (outcome, record.session_id, new)
            }
            None => {
                let (key, id) = self.insert_import_session(&mut tx, conversation).await?;
                let outcome = ImportOutcome::Created {
                    key,
                    messages: conversation.messages.len(),
                };
                (outcome, id, &conversation.messages[..])
            }
        };
        let mut chunks = rows.chunks(IMPORT_CHUNK);
        if let Some(first) = chunks.next() {
            self.write_chunk(&mut tx, conversation, session_id, first)
                .await?;
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        for chunk in chunks {
            let mut tx = self.begin_write().await?;
            // Continued in Lango between two chunks (the conversation is in the sidebar
            // already): the rest is left, as a re-import would leave it.
            let untouched: bool = sqlx::query_scalar(
                "SELECT i.next_seq = s.next_seq FROM imported_conversations i
                   JOIN sessions s ON s.id = i.session_id
                  WHERE i.source = ? AND i.external_id = ?",
            )
            .bind(&conversation.source)
            .bind(&conversation.external_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            if !untouched {
                break;
            }
            self.write_chunk(&mut tx, conversation, session_id, chunk)
                .await?;
            tx.commit().await.map_err(|e| self.err(e))?;
        }
        Ok(outcome)
    }

    /// Inserts `rows` (never empty) and records them as imported, in the caller's transaction.
    async fn write_chunk(
        &self,
        tx: &mut super::write_tx::WriteTx<'_>,
        conversation: &ImportWrite,
        session_id: i64,
        rows: &[ImportRow],
    ) -> StoreResult<()> {
        for row in rows {
            sqlx::query(INSERT_MESSAGE)
                .bind(&row.role)
                .bind(&row.content)
                .bind(row.token_count)
                .bind(row.created_at)
                .bind(session_id)
                .execute(&mut **tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        let last = rows
            .last()
            .map(|r| r.external_id.as_str())
            .unwrap_or_default();
        let added = i64::try_from(rows.len()).unwrap_or(i64::MAX);
        sqlx::query(
            "INSERT INTO imported_conversations
                 (source, external_id, session_id, last_message_id, message_count, next_seq, imported_at)
             SELECT ?, ?, id, ?, ?, next_seq, ? FROM sessions WHERE id = ?
             ON CONFLICT (source, external_id) DO UPDATE SET
                 last_message_id = excluded.last_message_id,
                 message_count = imported_conversations.message_count + ?,
                 next_seq = excluded.next_seq,
                 imported_at = excluded.imported_at",
        )
        .bind(&conversation.source)
        .bind(&conversation.external_id)
        .bind(last)
        .bind(added)
        .bind(now_ms())
        .bind(session_id)
        .bind(added)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A new session for an imported conversation, with its title and original times. The key
    /// is `<source>-<its id>` (another suffix if that is taken).
    async fn insert_import_session(
        &self,
        tx: &mut super::write_tx::WriteTx<'_>,
        conversation: &ImportWrite,
    ) -> StoreResult<(String, i64)> {
        let id: String = conversation
            .external_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        let base = format!("{}-{id}", conversation.source);
        let mut key = base.clone();
        for attempt in 0..16 {
            if attempt > 0 {
                key = format!("{base}-{:04x}", fastrand::u16(..));
            }
            let inserted: Option<i64> = sqlx::query_scalar(
                "INSERT INTO sessions (key, title, state, created_at, updated_at)
                 VALUES (?, ?, '{}', ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id",
            )
            .bind(&key)
            .bind(&conversation.title)
            .bind(conversation.created_at)
            .bind(conversation.updated_at)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
            if let Some(id) = inserted {
                return Ok((key, id));
            }
        }
        Err(StoreError::Duplicate { key })
    }

    /// The session a conversation was imported into and the source's id of its last message
    /// imported, if it was: a re-import skips an unchanged conversation without preparing
    /// its rows, and still offers to build its memory.
    pub async fn imported_last_message(
        &self,
        source: &str,
        external_id: &str,
    ) -> StoreResult<Option<(String, String)>> {
        sqlx::query_as(
            "SELECT s.key, i.last_message_id FROM imported_conversations i
               JOIN sessions s ON s.id = i.session_id
              WHERE i.source = ? AND i.external_id = ?",
        )
        .bind(source)
        .bind(external_id)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// Session key → the app it was imported from (`chatgpt`, `claude`), for every imported
    /// session.
    pub async fn import_origins(&self) -> StoreResult<HashMap<String, String>> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT s.key, i.source FROM imported_conversations i JOIN sessions s ON s.id = i.session_id",
        )
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().collect())
    }
}
