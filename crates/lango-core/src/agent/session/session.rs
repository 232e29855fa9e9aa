//! One loaded session (`Session`): key, state, and the in-memory history of this access.
//!
//! Owns the in-memory copy of the history tail the store loaded for the token budget plus the
//! rows appended through the service since, and the state map. It must not decide what a row
//! looks like (convert.rs) or write rows itself (the service persists, then pushes here).

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};

use crate::agent::error::AgentError;
use crate::agent::traits::{EventsView, Session};
use crate::store::{Store, StoredMessage};

use super::events::EventsAdapter;

/// A session as loaded for a turn. Cheap to read; `events()` snapshots the history.
#[derive(Debug)]
pub struct SessionAdapter {
    key: String,
    store: Store,
    root_agent_name: String,
    budget: usize,
    /// True when the store left out older messages that did not fit the budget.
    older_cut: bool,
    state: Mutex<Map<String, Value>>,
    /// Copy-on-write: views hold the `Arc`; an append clones only while a view is alive.
    history: Mutex<Arc<Vec<StoredMessage>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SessionAdapter {
    /// `history` is the tail the store loaded (oldest first); `older_cut` says whether older
    /// rows were left out; `budget` is already resolved (> 0).
    pub(crate) fn new(
        key: String,
        store: Store,
        root_agent_name: &str,
        budget: usize,
        state: Map<String, Value>,
        history: Vec<StoredMessage>,
        older_cut: bool,
    ) -> Self {
        Self {
            key,
            store,
            root_agent_name: root_agent_name.to_string(),
            budget,
            older_cut,
            state: Mutex::new(state),
            history: Mutex::new(Arc::new(history)),
        }
    }

    /// The token budget its events are truncated to.
    pub fn budget(&self) -> usize {
        self.budget
    }

    pub fn root_agent_name(&self) -> &str {
        &self.root_agent_name
    }

    /// The in-memory history (loaded tail + appended rows), oldest first.
    pub fn history(&self) -> Vec<StoredMessage> {
        lock(&self.history).as_ref().clone()
    }

    /// How many rows the in-memory history holds.
    pub fn history_len(&self) -> usize {
        lock(&self.history).len()
    }

    /// Whether the store left out older rows when loading (they did not fit the budget).
    pub fn older_messages_cut(&self) -> bool {
        self.older_cut
    }

    /// A fresh events view over the current history (the concrete type of `events()`).
    pub fn events_adapter(&self) -> EventsAdapter {
        let snapshot = Arc::clone(&lock(&self.history));
        EventsAdapter::with_budget(snapshot, self.budget, &self.root_agent_name, self.older_cut)
    }

    /// One state value; a missing key → "state key does not exist".
    pub fn get_state(&self, key: &str) -> Result<Value, AgentError> {
        lock(&self.state)
            .get(key)
            .cloned()
            .ok_or_else(|| AgentError::Other("state key does not exist".to_string()))
    }

    /// Sets one state value in the store (other keys, perhaps set by another process, are
    /// kept) and takes the stored state as the handle's.
    pub async fn set_state(&self, key: &str, value: Value) -> Result<(), AgentError> {
        let delta = Map::from_iter([(key.to_string(), value)]);
        let state = self.store.apply_state_delta(&self.key, &delta).await?;
        *lock(&self.state) = state;
        Ok(())
    }

    /// Adds a persisted row to the in-memory history (REFERENCE §2.3 rule 8).
    pub(crate) fn push_message(&self, message: StoredMessage) {
        Arc::make_mut(&mut lock(&self.history)).push(message);
    }

    /// Replaces the in-memory state (after the store applied a delta).
    pub(crate) fn replace_state(&self, state: Map<String, Value>) {
        *lock(&self.state) = state;
    }
}

impl Session for SessionAdapter {
    fn key(&self) -> &str {
        &self.key
    }

    fn state(&self) -> Map<String, Value> {
        lock(&self.state).clone()
    }

    fn events(&self) -> Box<dyn EventsView> {
        Box::new(self.events_adapter())
    }

    fn events_within(&self, budget: usize) -> (Box<dyn EventsView>, usize) {
        let snapshot = Arc::clone(&lock(&self.history));
        let adapter = EventsAdapter::with_budget(
            snapshot,
            budget.min(self.budget),
            &self.root_agent_name,
            self.older_cut,
        );
        let tokens = adapter.history_tokens();
        (Box::new(adapter), tokens)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
