//! Taking back the end of a conversation: "regenerate the last reply" and "edit and resend
//! the last message" remove the newest rows of the model's history before the turn is played
//! again. Owns only that deletion; it must not touch archived rows or memory records.

use super::error::{StoreError, StoreResult};
use super::Store;

impl Store {
    /// Deletes the live messages of `key` with `seq >= from_seq` (and their vectors) and
    /// returns how many went. Sequence numbers are never reused: the next message gets a new
    /// one. Rows the memory has already observed cannot be taken back: the observation that
    /// covers them would then describe messages that no longer exist.
    pub async fn delete_messages_from(&self, key: &str, from_seq: i64) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let (session_id, observed): (i64, i64) =
            sqlx::query_as("SELECT id, observed_through_seq FROM sessions WHERE key = ?")
                .bind(key)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .ok_or_else(|| StoreError::NotFound {
                    what: format!("session {key:?}"),
                })?;
        if from_seq <= observed {
            return Err(StoreError::Constraint(format!(
                "message {from_seq} is already part of the memory (observed through {observed}); \
                 it can no longer be taken back"
            )));
        }
        sqlx::query(
            "DELETE FROM memory_vectors WHERE collection = 'message' AND item_id IN
                 (SELECT CAST(id AS TEXT) FROM messages WHERE session_id = ? AND seq >= ?)",
        )
        .bind(session_id)
        .bind(from_seq)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let done = sqlx::query("DELETE FROM messages WHERE session_id = ? AND seq >= ?")
            .bind(session_id)
            .bind(from_seq)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(done.rows_affected())
    }
}

impl Store {
    /// The newest user message still in the model's history: `(seq, text, attached files)`.
    pub async fn last_user_message(
        &self,
        key: &str,
    ) -> StoreResult<Option<(i64, String, Vec<super::AttachmentRef>)>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let row: Option<(i64, String, Option<String>)> = sqlx::query_as(
            "SELECT seq, content, attachments FROM messages
             WHERE session_id = ? AND role = 'user' AND kind = 'message'
             ORDER BY seq DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(row.map(|(seq, content, attachments)| {
            // The files go with the message when it is sent again.
            let attachments = attachments
                .and_then(|json| serde_json::from_str(&json).ok())
                .unwrap_or_default();
            (seq, content, attachments)
        }))
    }
}
