//! Session rows: create, read, list, rename, pin, delete (the state map: `state.rs`).

use serde::{Deserialize, Serialize};
use sqlx::FromRow;

use super::error::{StoreError, StoreResult};
use super::models::Session;
use super::{now_ms, Store};

#[derive(FromRow)]
struct SessionRow {
    key: String,
    title: String,
    model: String,
    pinned: bool,
    state: String,
    observed_through_seq: i64,
    created_at: i64,
    updated_at: i64,
    chat_settings: String,
}

/// A session row with its id, for a page of the list and where the next one starts.
#[derive(FromRow)]
struct ListedSessionRow {
    #[sqlx(flatten)]
    row: SessionRow,
    id: i64,
}

/// Where a page of the session list ended: the next page starts after this session's place
/// in the order (pinned first, then the most recent activity). Values, not an offset, so a
/// conversation that moves to the top between two pages neither repeats nor pushes another
/// one out of the next page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCursor {
    pub pinned: bool,
    pub updated_at: i64,
    pub id: i64,
}

const SESSION_COLUMNS: &str =
    "key, title, model, pinned, state, observed_through_seq, created_at, updated_at, chat_settings";

impl SessionRow {
    pub(super) fn into_session(self) -> StoreResult<Session> {
        // Written only through `set_chat_settings`; a value edited by hand that does not read
        // means the defaults, logged, rather than a conversation that cannot be opened.
        let chat_settings = serde_json::from_str(&self.chat_settings)
            .inspect_err(|e| tracing::warn!(session = %self.key, error = %e, "a conversation's own settings are unreadable; the defaults apply"))
            .unwrap_or_default();
        let state = match serde_json::from_str::<serde_json::Value>(&self.state)? {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Ok(Session {
            key: self.key,
            title: self.title,
            model: self.model,
            pinned: self.pinned,
            state,
            observed_through_seq: self.observed_through_seq,
            created_at: self.created_at,
            updated_at: self.updated_at,
            chat_settings,
        })
    }
}

pub(super) fn not_found(key: &str) -> StoreError {
    StoreError::NotFound {
        what: format!("session {key:?}"),
    }
}

impl Store {
    /// Creates a session. An existing key → [`StoreError::Duplicate`].
    pub async fn create_session(&self, key: &str, title: &str) -> StoreResult<Session> {
        self.create_session_with_state(key, title, &serde_json::Map::new())
            .await
    }

    /// Creates a session with its initial state, in one statement: no other process ever
    /// sees it without that state. An existing key → [`StoreError::Duplicate`].
    pub async fn create_session_with_state(
        &self,
        key: &str,
        title: &str,
        state: &serde_json::Map<String, serde_json::Value>,
    ) -> StoreResult<Session> {
        if key.is_empty() {
            return Err(StoreError::Constraint(
                "a session key must not be empty".into(),
            ));
        }
        let now = now_ms();
        let inserted = sqlx::query(
            "INSERT INTO sessions (key, title, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(title)
        .bind(serde_json::to_string(state)?)
        .bind(now)
        .bind(now)
        .execute(&*self.writer().await)
        .await
        .map_err(|e| self.err(e))?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::Duplicate {
                key: key.to_string(),
            });
        }
        self.get_session(key).await
    }

    /// The session with this key, or [`StoreError::NotFound`].
    pub async fn get_session(&self, key: &str) -> StoreResult<Session> {
        self.find_session(key).await?.ok_or_else(|| not_found(key))
    }

    /// The session with this key, if any.
    pub async fn find_session(&self, key: &str) -> StoreResult<Option<Session>> {
        // Readers never hold a transaction open, so each statement sees every committed write.
        let row: Option<SessionRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ?"
        )))
        .bind(key)
        .fetch_optional(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(SessionRow::into_session).transpose()
    }

    /// Gets the session, creating it if missing. Concurrent calls for a new key all succeed
    /// and see the same session.
    pub async fn get_or_create_session(&self, key: &str) -> StoreResult<Session> {
        match self.create_session(key, "").await {
            Ok(session) => Ok(session),
            Err(StoreError::Duplicate { .. }) => self.get_session(key).await,
            Err(e) => Err(e),
        }
    }

    /// A page of [`Store::list_sessions`]'s order: the first `limit` sessions after `after`
    /// (from the top when None), and where the next page starts (None after the last).
    pub async fn list_sessions_after(
        &self,
        limit: u32,
        after: Option<SessionCursor>,
    ) -> StoreResult<(Vec<Session>, Option<SessionCursor>)> {
        // Row values compare in the index's order (sessions_by_activity), so the page is a
        // range of the index whichever page it is.
        let query = match after {
            None => sqlx::query_as::<_, ListedSessionRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {SESSION_COLUMNS}, id FROM sessions
                 ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?"
            ))),
            Some(cursor) => sqlx::query_as::<_, ListedSessionRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {SESSION_COLUMNS}, id FROM sessions
                 WHERE (pinned, updated_at, id) < (?, ?, ?)
                 ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?"
            )))
            .bind(cursor.pinned)
            .bind(cursor.updated_at)
            .bind(cursor.id),
        };
        let rows: Vec<ListedSessionRow> = query
            .bind(i64::from(limit))
            .fetch_all(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        let next = match rows.last() {
            Some(last) if rows.len() == limit as usize => Some(SessionCursor {
                pinned: last.row.pinned,
                updated_at: last.row.updated_at,
                id: last.id,
            }),
            _ => None,
        };
        let sessions = rows
            .into_iter()
            .map(|r| r.row.into_session())
            .collect::<StoreResult<_>>()?;
        Ok((sessions, next))
    }

    /// How many conversations there are.
    pub async fn count_sessions(&self) -> StoreResult<u64> {
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM sessions")
            .fetch_one(self.reader())
            .await
            .map_err(|e| self.err(e))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Pinned sessions first, then by most recent activity; `offset`/`limit` page the list.
    pub async fn list_sessions(&self, limit: u32, offset: u32) -> StoreResult<Vec<Session>> {
        let rows: Vec<SessionRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {SESSION_COLUMNS} FROM sessions
             ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ? OFFSET ?"
        )))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(self.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(SessionRow::into_session).collect()
    }

    pub async fn rename_session(&self, key: &str, title: &str) -> StoreResult<()> {
        self.update_session(
            key,
            "UPDATE sessions SET title = ?, updated_at = ? WHERE key = ?",
            title,
        )
        .await
    }

    /// Pinning does not count as activity: the order among unpinned sessions is unchanged.
    pub async fn pin_session(&self, key: &str, pinned: bool) -> StoreResult<()> {
        let done = sqlx::query("UPDATE sessions SET pinned = ? WHERE key = ?")
            .bind(pinned)
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(key));
        }
        Ok(())
    }

    pub async fn set_session_model(&self, key: &str, model: &str) -> StoreResult<()> {
        self.update_session(
            key,
            "UPDATE sessions SET model = ?, updated_at = ? WHERE key = ?",
            model,
        )
        .await
    }

    /// Replaces the conversation's own model and generation settings. Not activity: the
    /// sidebar order stays. A missing session → [`StoreError::NotFound`].
    pub async fn set_chat_settings(
        &self,
        key: &str,
        settings: &crate::conversation::ConversationSettings,
    ) -> StoreResult<()> {
        let json = serde_json::to_string(settings)?;
        let done = sqlx::query("UPDATE sessions SET chat_settings = ? WHERE key = ?")
            .bind(json)
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(key));
        }
        Ok(())
    }

    /// Deletes the session with its messages, archive, observations, reflections and memory
    /// cursor, in one statement (foreign keys cascade). Deleting a missing key is Ok.
    pub async fn delete_session(&self, key: &str) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM sessions WHERE key = ?")
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        Ok(done.rows_affected() > 0)
    }

    pub(super) async fn update_session(
        &self,
        key: &str,
        sql: &'static str,
        value: &str,
    ) -> StoreResult<()> {
        let done = sqlx::query(sql)
            .bind(value)
            .bind(now_ms())
            .bind(key)
            .execute(&*self.writer().await)
            .await
            .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(key));
        }
        Ok(())
    }

    /// The session's row id, inside a transaction or not.
    pub(crate) async fn session_id<'e, E>(&self, executor: E, key: &str) -> StoreResult<i64>
    where
        E: sqlx::SqliteExecutor<'e>,
    {
        sqlx::query_scalar("SELECT id FROM sessions WHERE key = ?")
            .bind(key)
            .fetch_optional(executor)
            .await
            .map_err(|e| self.err(e))?
            .ok_or_else(|| not_found(key))
    }
}
