//! `SessionService` over the SQLite store (REFERENCE §2.2–§2.3, specs 000/003/004).
//!
//! Owns create / get-or-create / list / delete and `append_event`: persisting a non-partial
//! event as a row, applying state deltas (with the row, in one transaction), and keeping the session object's in-memory history
//! in step. It must not build events for the model (events.rs) nor issue SQL (the store does).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::agent::error::AgentError;
use crate::agent::traits::{Session, SessionService};
use crate::agent::types::{Content, Event};
use crate::provider::BoxFuture;
use crate::store::Store;
use crate::tokens::DEFAULT_TOKEN_BUDGET;

use super::convert::{event_to_message, is_state_delta_only};
use super::session::SessionAdapter;
use super::truncate::resolve_budget;

/// Sessions over a [`Store`]. Every session it hands out truncates its events to the service's
/// token budget (spec 004 "WithTokenBudget").
#[derive(Debug, Clone)]
pub struct SessionServiceAdapter {
    store: Store,
    root_agent_name: String,
    budget: usize,
}

impl SessionServiceAdapter {
    /// A service with the default budget (32000). `root_agent_name` authors assistant events
    /// that have no stored author ("lango-agent" when empty).
    pub fn new(store: Store, root_agent_name: impl Into<String>) -> Self {
        Self {
            store,
            root_agent_name: root_agent_name.into(),
            budget: DEFAULT_TOKEN_BUDGET,
        }
    }

    /// Sets the history token budget of every session created or loaded from now on;
    /// `<= 0` → the default (32000).
    pub fn with_token_budget(mut self, budget: i64) -> Self {
        self.budget = resolve_budget(budget);
        self
    }

    /// The resolved budget (> 0).
    pub fn token_budget(&self) -> usize {
        self.budget
    }

    pub fn root_agent_name(&self) -> &str {
        &self.root_agent_name
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Loads the session's history tail for the budget (never the whole table) into a handle.
    async fn load(
        &self,
        session: crate::store::Session,
        budget: usize,
    ) -> Result<SessionAdapter, AgentError> {
        let tail = self.store.load_history_tail(&session.key, budget).await?;
        Ok(SessionAdapter::new(
            session.key,
            self.store.clone(),
            &self.root_agent_name,
            budget,
            session.state,
            tail.messages,
            tail.truncated,
        ))
    }

    async fn get_or_create(
        &self,
        key: &str,
        budget: Option<usize>,
    ) -> Result<SessionAdapter, AgentError> {
        let session = match self.store.find_session(key).await? {
            Some(s) => s,
            // Loses no race: a duplicate insert re-reads (REFERENCE §2.2).
            None => self.store.get_or_create_session(key).await?,
        };
        let budget = budget.filter(|b| *b > 0).unwrap_or(self.budget);
        self.load(session, budget).await
    }

    async fn create_session(
        &self,
        key: &str,
        state: Map<String, Value>,
    ) -> Result<SessionAdapter, AgentError> {
        // One statement: no one ever sees the session without its initial state.
        let session = self
            .store
            .create_session_with_state(key, "", &state)
            .await?;
        Ok(SessionAdapter::new(
            session.key,
            self.store.clone(),
            &self.root_agent_name,
            self.budget,
            session.state,
            Vec::new(),
            false,
        ))
    }

    async fn append(&self, session: &dyn Session, event: Event) -> Result<(), AgentError> {
        if event.partial {
            return Ok(());
        }
        let key = session.key().to_string();
        let adapter = session.as_any().downcast_ref::<SessionAdapter>();
        let delta = &event.actions.state_delta;
        // The delta and the row are one transaction: a crash between them can neither keep
        // the state of a message that was never stored nor the reverse.
        let (stored, state) = if is_state_delta_only(&event) {
            (None, Some(self.store.apply_state_delta(&key, delta).await?))
        } else if delta.is_empty() {
            let message = event_to_message(&event);
            (Some(self.store.append_message(&key, message).await?), None)
        } else {
            let message = event_to_message(&event);
            let (stored, state) = self
                .store
                .append_message_with_state(&key, delta, message)
                .await?;
            (Some(stored), Some(state))
        };
        if let (Some(adapter), Some(state)) = (adapter, state) {
            adapter.replace_state(state);
        }
        let Some(stored) = stored else {
            return Ok(());
        };
        match adapter {
            Some(adapter) => adapter.push_message(stored),
            None => {
                tracing::debug!(session = %key, "append_event on a foreign session type: in-memory history not updated")
            }
        }
        Ok(())
    }
}

impl SessionService for SessionServiceAdapter {
    fn create(
        &self,
        key: &str,
        state: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        let key = key.to_string();
        Box::pin(async move {
            Ok(Arc::new(self.create_session(&key, state).await?) as Arc<dyn Session>)
        })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        let key = key.to_string();
        Box::pin(
            async move { Ok(Arc::new(self.get_or_create(&key, None).await?) as Arc<dyn Session>) },
        )
    }

    fn get_with_budget(
        &self,
        key: &str,
        budget: Option<usize>,
    ) -> BoxFuture<'_, Result<Arc<dyn Session>, AgentError>> {
        let key = key.to_string();
        Box::pin(async move {
            Ok(Arc::new(self.get_or_create(&key, budget).await?) as Arc<dyn Session>)
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, AgentError>> {
        Box::pin(async move {
            let sessions = self.store.list_sessions(u32::MAX, 0).await?;
            Ok(sessions.into_iter().map(|s| s.key).collect())
        })
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, Result<(), AgentError>> {
        let key = key.to_string();
        Box::pin(async move {
            self.store.delete_session(&key).await?;
            Ok(())
        })
    }

    fn resolve_attachments<'a>(
        &'a self,
        contents: &'a mut [Content],
        images: bool,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        Box::pin(async move {
            let hashes = super::attachments::unresolved(contents);
            if hashes.is_empty() {
                return Ok(());
            }
            let stored = self.store.attachments(&hashes).await?;
            super::attachments::fill(contents, &stored, images);
            Ok(())
        })
    }

    fn append_event<'a>(
        &'a self,
        session: &'a dyn Session,
        event: Event,
    ) -> BoxFuture<'a, Result<(), AgentError>> {
        Box::pin(self.append(session, event))
    }
}
