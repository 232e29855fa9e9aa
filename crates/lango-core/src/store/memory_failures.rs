//! The last memory-cycle failure of each session (observer or reflector model call), kept so
//! any process can show it; cleared when a later cycle succeeds.

use super::error::StoreResult;
use super::{now_ms, Store};

/// Why a session's memory last failed and when (ms since the epoch). The messages it was
/// working on stay unobserved; the cycle after the next turn tries again.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryFailure {
    pub error: String,
    pub failed_at: i64,
}

impl Store {
    /// Records `error` as the session's last memory failure (replacing the one before).
    pub async fn record_memory_failure(&self, key: &str, error: &str) -> StoreResult<()> {
        let writer = self.writer().await;
        let session = self.session_id(&*writer, key).await?;
        sqlx::query(
            "INSERT INTO memory_failures (session_id, error, failed_at) VALUES (?, ?, ?)
             ON CONFLICT (session_id) DO UPDATE SET error = excluded.error, failed_at = excluded.failed_at",
        )
        .bind(session)
        .bind(error)
        .bind(now_ms())
        .execute(&*writer)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Forgets the session's last memory failure (a cycle succeeded).
    pub async fn clear_memory_failure(&self, key: &str) -> StoreResult<()> {
        sqlx::query(
            "DELETE FROM memory_failures WHERE session_id = (SELECT id FROM sessions WHERE key = ?)",
        )
        .bind(key)
        .execute(&*self.writer().await)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The session's last memory failure, if the memory has failed since it last succeeded.
    pub async fn memory_failure(&self, key: &str) -> StoreResult<Option<MemoryFailure>> {
        let row: Option<(String, i64)> = sqlx::query_as(
            "SELECT f.error, f.failed_at FROM memory_failures f
             JOIN sessions s ON s.id = f.session_id WHERE s.key = ?",
        )
        .bind(key)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(row.map(|(error, failed_at)| MemoryFailure { error, failed_at }))
    }
}
