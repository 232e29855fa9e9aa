//! The memory engine's writes that must be atomic (REFERENCE §3.4, §3.6, §3.10 [FIX]): an
//! observation with its compaction and cursor move; a reflection with the deletion of what
//! it condensed. A crash leaves the state before or after, never in between.
//!
//! Each record is computed outside any transaction (a model call takes seconds), so by the time
//! it is written another process — or an earlier engine of this one — may have recorded the same
//! work. The check runs inside the write transaction, which holds the write lock: an observation
//! must start after the stored cursor, a reflection's sources must all still exist. The loser
//! writes nothing and gets [`Recorded::Stale`].

use super::error::{StoreError, StoreResult};
use super::messages::{MessageRow, MESSAGE_COLUMNS};
use super::models::{Observation, Recorded, Reflection, StoredMessage};
use super::note_index::{index_note, NoteTable};
use super::{now_ms, Store};

impl Store {
    /// History rows (not the archive) with `seq > after_seq`, oldest first: what the memory
    /// has not observed yet.
    pub async fn list_messages_after(
        &self,
        key: &str,
        after_seq: i64,
    ) -> StoreResult<Vec<StoredMessage>> {
        let session_id = self.session_id(self.reader(), key).await?;
        let rows: Vec<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq"
        )))
        .bind(session_id)
        .bind(after_seq)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(|r| r.into_message(false)).collect()
    }

    /// In one transaction: saves `observation` (which covers `seq_start..=seq_end`), moves the
    /// session's memory cursor to `seq_end` (never backwards), and with `compact` moves every
    /// history row up to `seq_end` to the archive behind one summary holding the observation.
    /// Returns the saved observation and the summary row, if any; [`Recorded::Stale`] (nothing
    /// written) when the cursor is already at or past `seq_start`: another writer observed
    /// these rows first.
    pub async fn record_observation(
        &self,
        mut observation: Observation,
        compact: bool,
    ) -> StoreResult<Recorded<(Observation, Option<StoredMessage>)>> {
        if observation.content.trim().is_empty() {
            return Err(StoreError::Constraint(
                "an observation must have content".into(),
            ));
        }
        if observation.id.is_empty() {
            observation.id = uuid::Uuid::new_v4().to_string();
        }
        observation.created_at = now_ms();
        let mut tx = self.begin_write().await?;
        let (session_id, cursor): (i64, i64) =
            sqlx::query_as("SELECT id, observed_through_seq FROM sessions WHERE key = ?")
                .bind(&observation.session_key)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .ok_or_else(|| StoreError::NotFound {
                    what: format!("session {:?}", observation.session_key),
                })?;
        if observation.seq_start <= cursor {
            tracing::debug!(
                session = %observation.session_key,
                seq_start = observation.seq_start,
                seq_end = observation.seq_end,
                cursor,
                "memory: these messages were already observed elsewhere; this observation is dropped"
            );
            return Ok(Recorded::Stale);
        }
        sqlx::query(
            "INSERT INTO observations (id, session_id, content, token_count, seq_start, seq_end, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&observation.id)
        .bind(session_id)
        .bind(&observation.content)
        .bind(observation.token_count)
        .bind(observation.seq_start)
        .bind(observation.seq_end)
        .bind(observation.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        index_note(
            &mut tx,
            NoteTable::Observations,
            &observation.id,
            &observation.content,
        )
        .await
        .map_err(|e| self.err(e))?;
        sqlx::query(
            "UPDATE sessions SET observed_through_seq = MAX(observed_through_seq, ?) WHERE id = ?",
        )
        .bind(observation.seq_end)
        .bind(session_id)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let summary = if compact {
            Some(
                self.archive_and_summarize(
                    &mut tx,
                    session_id,
                    Some(observation.seq_end),
                    &observation.content,
                )
                .await?,
            )
        } else {
            None
        };
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(Recorded::Saved((observation, summary)))
    }

    /// In one transaction: saves `reflection` and deletes the observations and reflections it
    /// condensed (by id; the new reflection itself is never deleted). When any of them is
    /// gone already — another writer condensed or deleted it — nothing is written:
    /// [`Recorded::Stale`].
    pub async fn record_reflection(
        &self,
        mut reflection: Reflection,
        condensed_observations: &[String],
        condensed_reflections: &[String],
    ) -> StoreResult<Recorded<Reflection>> {
        if reflection.content.trim().is_empty() {
            return Err(StoreError::Constraint(
                "a reflection must have content".into(),
            ));
        }
        if reflection.id.is_empty() {
            reflection.id = uuid::Uuid::new_v4().to_string();
        }
        reflection.generation = reflection.generation.max(1);
        reflection.created_at = now_ms();
        let mut tx = self.begin_write().await?;
        let session_id = self.session_id(&mut *tx, &reflection.session_key).await?;
        let sources = [
            ("observations", condensed_observations),
            ("reflections", condensed_reflections),
        ];
        for (table, ids) in sources {
            let wanted = ids.iter().collect::<std::collections::HashSet<_>>().len();
            let found: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM {table}
                  WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))"
            )))
            .bind(session_id)
            .bind(serde_json::to_string(ids)?)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            if usize::try_from(found).ok() != Some(wanted) {
                tracing::debug!(
                    session = %reflection.session_key,
                    table,
                    wanted,
                    found,
                    "memory: what this reflection condensed changed meanwhile; it is dropped"
                );
                return Ok(Recorded::Stale);
            }
        }
        sqlx::query(
            "INSERT INTO reflections (id, session_id, content, token_count, generation, seq_start, seq_end,
                                      source_token_count, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&reflection.id)
        .bind(session_id)
        .bind(&reflection.content)
        .bind(reflection.token_count)
        .bind(reflection.generation)
        .bind(reflection.seq_start)
        .bind(reflection.seq_end)
        .bind(reflection.source_token_count)
        .bind(reflection.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        index_note(
            &mut tx,
            NoteTable::Reflections,
            &reflection.id,
            &reflection.content,
        )
        .await
        .map_err(|e| self.err(e))?;
        sqlx::query("DELETE FROM observations WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))")
            .bind(session_id)
            .bind(serde_json::to_string(condensed_observations)?)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        sqlx::query("DELETE FROM reflections WHERE session_id = ? AND id <> ? AND id IN (SELECT value FROM json_each(?))")
            .bind(session_id)
            .bind(&reflection.id)
            .bind(serde_json::to_string(condensed_reflections)?)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(Recorded::Saved(reflection))
    }
}
