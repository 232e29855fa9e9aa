//! Who wrote a conversation's replies: the `reply` column of its live and archived rows
//! (migration 0011), for the conversation's token and cost totals.

use super::error::StoreResult;
use super::Store;
use crate::conversation::ReplyInfo;

impl Store {
    /// Every reply of the conversation that records its model, archived ones included,
    /// oldest first. A missing conversation has none.
    pub async fn replies_of(&self, key: &str) -> StoreResult<Vec<ReplyInfo>> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "WITH s AS (SELECT id FROM sessions WHERE key = ?1)
             SELECT seq, reply FROM messages WHERE session_id = (SELECT id FROM s) AND reply IS NOT NULL
             UNION ALL
             SELECT seq, reply FROM archived_messages WHERE session_id = (SELECT id FROM s) AND reply IS NOT NULL
             ORDER BY seq",
        )
        .bind(key)
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(seq, json)| {
                serde_json::from_str(&json)
                    .inspect_err(|e| tracing::warn!(session = key, seq, error = %e, "a reply's model information is unreadable; left out of the totals"))
                    .ok()
            })
            .collect())
    }
}
