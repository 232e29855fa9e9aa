//! A session's state map: replacing it, applying an agent's state delta, and a delta applied
//! together with the message of the same event.
//!
//! A delta assigns top-level keys (REFERENCE §2.2: `state[key] = value` for each key of the
//! delta): a value replaces the old one whole — an object is not merged into the old object —
//! and `null` is stored as a value, not a deletion. Each change is one transaction, so two
//! processes applying deltas to one session never lose each other's keys.

use serde_json::{Map, Value};

use super::error::StoreResult;
use super::messages::{PreparedAppend, APPEND_MESSAGE};
use super::models::{NewMessage, StoredMessage};
use super::sessions::not_found;
use super::write_tx::WriteTx;
use super::{now_ms, Store};

/// A session's state map.
pub type State = Map<String, Value>;

impl Store {
    /// Replaces the session's state map.
    pub async fn set_session_state(&self, key: &str, state: &State) -> StoreResult<()> {
        let json = serde_json::to_string(state)?;
        self.update_session(
            key,
            "UPDATE sessions SET state = ?, updated_at = ? WHERE key = ?",
            &json,
        )
        .await
    }

    /// Assigns each key of `delta` in the state (see the module doc) and returns the new state.
    pub async fn apply_state_delta(&self, key: &str, delta: &State) -> StoreResult<State> {
        let mut tx = self.begin_write().await?;
        let state = self.assign_in(&mut tx, key, delta).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(state)
    }

    /// In one transaction: applies `delta` (as [`Store::apply_state_delta`]) and appends
    /// `message`. A crash, or a failure of either, leaves neither. Returns the stored message
    /// and the new state.
    pub async fn append_message_with_state(
        &self,
        key: &str,
        delta: &State,
        message: NewMessage,
    ) -> StoreResult<(StoredMessage, State)> {
        let prepared = PreparedAppend::new(self, message)?;
        let mut tx = self.begin_write().await?;
        let state = self.assign_in(&mut tx, key, delta).await?;
        let inserted: Option<(i64, i64)> = sqlx::query_as(APPEND_MESSAGE)
            .bind(&prepared.message.role)
            .bind(&prepared.message.author)
            .bind(&prepared.message.content)
            .bind(&prepared.tool_calls_json)
            .bind(prepared.message.status.as_str())
            .bind(prepared.tokens)
            .bind(prepared.created_at)
            .bind(key)
            .bind(&prepared.reply_json)
            .bind(&prepared.attachments_json)
            .bind(&prepared.tool_results_json)
            .fetch_optional(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        let stored = prepared.stored(key, inserted)?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok((stored, state))
    }

    /// Inside `tx`: reads the state, assigns the delta's keys, writes it back.
    async fn assign_in(
        &self,
        tx: &mut WriteTx<'_>,
        key: &str,
        delta: &State,
    ) -> StoreResult<State> {
        let stored: Option<String> = sqlx::query_scalar("SELECT state FROM sessions WHERE key = ?")
            .bind(key)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        let stored = stored.ok_or_else(|| not_found(key))?;
        let mut state = match serde_json::from_str::<Value>(&stored)? {
            Value::Object(map) => map,
            _ => State::new(),
        };
        for (k, v) in delta {
            state.insert(k.clone(), v.clone());
        }
        sqlx::query("UPDATE sessions SET state = ?, updated_at = ? WHERE key = ?")
            .bind(serde_json::to_string(&state)?)
            .bind(now_ms())
            .bind(key)
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Ok(state)
    }
}
