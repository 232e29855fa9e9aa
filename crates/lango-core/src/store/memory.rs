//! Observation and reflection rows and the per-session memory cursor (REFERENCE §3.7).
//!
//! Plain persistence: deciding when to observe or reflect is the memory engine's job.

use sqlx::FromRow;

use super::error::{StoreError, StoreResult};
use super::models::{Observation, Recorded, Reflection};
use super::note_index::{index_note, NoteTable};
use super::{now_ms, Store};

#[derive(FromRow)]
struct ObservationRow {
    id: String,
    session_key: String,
    content: String,
    token_count: i64,
    seq_start: i64,
    seq_end: i64,
    created_at: i64,
}

impl From<ObservationRow> for Observation {
    fn from(r: ObservationRow) -> Self {
        Observation {
            id: r.id,
            session_key: r.session_key,
            content: r.content,
            token_count: r.token_count,
            seq_start: r.seq_start,
            seq_end: r.seq_end,
            created_at: r.created_at,
        }
    }
}

#[derive(FromRow)]
struct ReflectionRow {
    id: String,
    session_key: String,
    content: String,
    token_count: i64,
    generation: i64,
    seq_start: i64,
    seq_end: i64,
    source_token_count: i64,
    created_at: i64,
}

impl From<ReflectionRow> for Reflection {
    fn from(r: ReflectionRow) -> Self {
        Reflection {
            id: r.id,
            session_key: r.session_key,
            content: r.content,
            token_count: r.token_count,
            generation: r.generation,
            seq_start: r.seq_start,
            seq_end: r.seq_end,
            source_token_count: r.source_token_count,
            created_at: r.created_at,
        }
    }
}

// Oldest first; created_at ties broken by insertion order (rowid), REFERENCE §3.1 [FIX].
const OBSERVATIONS: &str = "SELECT o.id, s.key AS session_key, o.content, o.token_count, o.seq_start, o.seq_end, o.created_at,
            o.rowid AS ord
     FROM observations o JOIN sessions s ON s.id = o.session_id WHERE s.key = ?";
const REFLECTIONS: &str = "SELECT r.id, s.key AS session_key, r.content, r.token_count, r.generation, r.seq_start, r.seq_end,
            r.source_token_count, r.created_at, r.rowid AS ord
     FROM reflections r JOIN sessions s ON s.id = r.session_id WHERE s.key = ?";

/// Binds `limit` so that 0 means "all" (SQLite: LIMIT -1).
fn limit_or_all(limit: usize) -> i64 {
    if limit == 0 {
        -1
    } else {
        i64::try_from(limit).unwrap_or(i64::MAX)
    }
}

impl Store {
    /// Saves an observation. An empty `id` gets a fresh UUID; `created_at` is set here.
    pub async fn save_observation(&self, mut observation: Observation) -> StoreResult<Observation> {
        if observation.id.is_empty() {
            observation.id = uuid::Uuid::new_v4().to_string();
        }
        observation.created_at = now_ms();
        let mut tx = self.begin_write().await?;
        let session_id = self.session_id(&mut *tx, &observation.session_key).await?;
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
        let (id, content) = (&observation.id, &observation.content);
        index_note(&mut tx, NoteTable::Observations, id, content)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(observation)
    }

    /// All observations of a session, oldest first. An unknown key → empty.
    pub async fn list_observations(&self, key: &str) -> StoreResult<Vec<Observation>> {
        self.list_recent_observations(key, 0).await
    }

    /// The newest `limit` observations, returned oldest first; 0 = all.
    pub async fn list_recent_observations(
        &self,
        key: &str,
        limit: usize,
    ) -> StoreResult<Vec<Observation>> {
        let rows: Vec<ObservationRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT * FROM ({OBSERVATIONS} ORDER BY o.created_at DESC, o.rowid DESC LIMIT ?)
             ORDER BY created_at, ord"
        )))
        .bind(key)
        .bind(limit_or_all(limit))
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(Observation::from).collect())
    }

    pub async fn get_observation(&self, id: &str) -> StoreResult<Observation> {
        let row: Option<ObservationRow> = sqlx::query_as(
            "SELECT o.id, s.key AS session_key, o.content, o.token_count, o.seq_start, o.seq_end, o.created_at
             FROM observations o JOIN sessions s ON s.id = o.session_id WHERE o.id = ?",
        )
        .bind(id)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(Observation::from)
            .ok_or_else(|| StoreError::NotFound {
                what: format!("observation {id}"),
            })
    }

    /// A user's edit of an observation; the next prompt uses the new text.
    pub async fn update_observation(
        &self,
        id: &str,
        content: &str,
        token_count: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("UPDATE observations SET content = ?, token_count = ? WHERE id = ?")
            .bind(content)
            .bind(token_count)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                what: format!("observation {id}"),
            });
        }
        index_note(&mut tx, NoteTable::Observations, id, content)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Deletes these observations (unknown ids are ignored). Returns how many were deleted.
    pub async fn delete_observations(&self, ids: &[String]) -> StoreResult<u64> {
        self.delete_by_ids(
            "DELETE FROM observations WHERE id IN (SELECT value FROM json_each(?))",
            ids,
        )
        .await
    }

    /// Deletes every observation of a session; nothing to delete is Ok.
    pub async fn delete_observations_by_session(&self, key: &str) -> StoreResult<u64> {
        self.delete_by_key(
            "DELETE FROM observations WHERE session_id = (SELECT id FROM sessions WHERE key = ?)",
            key,
        )
        .await
    }

    /// Saves a reflection. An empty `id` gets a fresh UUID; generation < 1 becomes 1.
    pub async fn save_reflection(&self, reflection: Reflection) -> StoreResult<Reflection> {
        match self.record_reflection(reflection, &[], &[]).await? {
            Recorded::Saved(saved) => Ok(saved),
            // Condensing nothing, it has no source that could be gone.
            Recorded::Stale => Err(StoreError::Database(
                "a reflection without sources was refused as stale".into(),
            )),
        }
    }

    pub async fn list_reflections(&self, key: &str) -> StoreResult<Vec<Reflection>> {
        self.list_recent_reflections(key, 0).await
    }

    /// The newest `limit` reflections, returned oldest first; 0 = all.
    pub async fn list_recent_reflections(
        &self,
        key: &str,
        limit: usize,
    ) -> StoreResult<Vec<Reflection>> {
        let rows: Vec<ReflectionRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT * FROM ({REFLECTIONS} ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?)
             ORDER BY created_at, ord"
        )))
        .bind(key)
        .bind(limit_or_all(limit))
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(Reflection::from).collect())
    }

    pub async fn update_reflection(
        &self,
        id: &str,
        content: &str,
        token_count: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("UPDATE reflections SET content = ?, token_count = ? WHERE id = ?")
            .bind(content)
            .bind(token_count)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                what: format!("reflection {id}"),
            });
        }
        index_note(&mut tx, NoteTable::Reflections, id, content)
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(())
    }

    pub async fn delete_reflections(&self, ids: &[String]) -> StoreResult<u64> {
        self.delete_by_ids(
            "DELETE FROM reflections WHERE id IN (SELECT value FROM json_each(?))",
            ids,
        )
        .await
    }

    /// Deletes every reflection of a session; other sessions are untouched and nothing to
    /// delete is Ok (spec 002 `DeleteReflectionsBySession`).
    pub async fn delete_reflections_by_session(&self, key: &str) -> StoreResult<u64> {
        self.delete_by_key(
            "DELETE FROM reflections WHERE session_id = (SELECT id FROM sessions WHERE key = ?)",
            key,
        )
        .await
    }

    /// Messages with `seq <=` this have been observed.
    pub async fn observed_through_seq(&self, key: &str) -> StoreResult<i64> {
        Ok(self.get_session(key).await?.observed_through_seq)
    }

    pub async fn set_observed_through_seq(&self, key: &str, seq: i64) -> StoreResult<()> {
        let done = sqlx::query("UPDATE sessions SET observed_through_seq = ? WHERE key = ?")
            .bind(seq)
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                what: format!("session {key:?}"),
            });
        }
        Ok(())
    }

    async fn delete_by_ids(&self, sql: &'static str, ids: &[String]) -> StoreResult<u64> {
        if ids.is_empty() {
            return Ok(0);
        }
        let done = sqlx::query(sql)
            .bind(serde_json::to_string(ids)?)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        Ok(done.rows_affected())
    }

    async fn delete_by_key(&self, sql: &'static str, key: &str) -> StoreResult<u64> {
        let done = sqlx::query(sql)
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        Ok(done.rows_affected())
    }
}
