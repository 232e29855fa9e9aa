//! The events view of one session access (REFERENCE §2.4, spec 004 "Lazy caching").
//!
//! Owns the lazily cached truncated history and event list of one snapshot of a session's
//! history. It must not read or write the store, nor change the history it was given: a fresh
//! adapter is made per `Session::events()` call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::agent::traits::EventsView;
use crate::agent::types::Event;
use crate::store::StoredMessage;

use super::convert::messages_to_events;
use super::fit::fitted_view;
use super::truncate::resolve_budget;

/// What truncation chose: a suffix of the history, or rows fitted to the budget.
#[derive(Debug)]
enum View {
    Suffix(usize),
    Fitted(Vec<StoredMessage>),
}

/// The model's view of a history snapshot: truncated to the token budget, converted to events,
/// consecutive same-role events merged. Truncation runs once, and the event list is built once
/// on first use (`all`, `len` or `at`); later calls read the caches.
#[derive(Debug)]
pub struct EventsAdapter {
    history: Arc<Vec<StoredMessage>>,
    budget: usize,
    root_agent_name: String,
    older_cut: bool,
    view: OnceLock<View>,
    events: OnceLock<Vec<Event>>,
    truncation_runs: AtomicUsize,
    event_builds: AtomicUsize,
}

impl EventsAdapter {
    /// A view over `history` (oldest first) with `budget` tokens (`<= 0` → 32000).
    pub fn new(
        history: impl Into<Arc<Vec<StoredMessage>>>,
        budget: i64,
        root_agent_name: &str,
    ) -> Self {
        Self::with_budget(
            history.into(),
            resolve_budget(budget),
            root_agent_name,
            false,
        )
    }

    pub(crate) fn with_budget(
        history: Arc<Vec<StoredMessage>>,
        budget: usize,
        root_agent_name: &str,
        older_cut: bool,
    ) -> Self {
        Self {
            history,
            budget,
            root_agent_name: root_agent_name.to_string(),
            older_cut,
            view: OnceLock::new(),
            events: OnceLock::new(),
            truncation_runs: AtomicUsize::new(0),
            event_builds: AtomicUsize::new(0),
        }
    }

    /// Marks the history as a tail whose older messages were already cut (the store loaded
    /// only what the budget needs), so sequence safety applies even if nothing more is cut.
    pub fn with_older_messages_cut(mut self, cut: bool) -> Self {
        self.older_cut = cut;
        self
    }

    /// The token budget this view truncates to.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// The messages that reach the model, oldest first (computed once, then cached). Never
    /// empty when the history is not: a newest turn bigger than the budget is kept with its
    /// long texts cut (fit.rs).
    pub fn truncated_history(&self) -> &[StoredMessage] {
        let view = self.view.get_or_init(|| {
            self.truncation_runs.fetch_add(1, Ordering::Relaxed);
            match fitted_view(&self.history, self.budget, self.older_cut) {
                (start, None) => View::Suffix(start),
                (_, Some(rows)) => View::Fitted(rows),
            }
        });
        match view {
            View::Suffix(start) => &self.history[*start..],
            View::Fitted(rows) => rows,
        }
    }

    /// What the messages that reach the model cost, by the store's token counts (a cut row
    /// counts what fit.rs kept of it).
    pub fn history_tokens(&self) -> usize {
        let total = self
            .truncated_history()
            .iter()
            .map(super::truncate::cost)
            .fold(0u64, u64::saturating_add);
        usize::try_from(total).unwrap_or(usize::MAX)
    }

    /// How many times truncation ran (0 before first use, then 1 forever; spec 004).
    #[doc(hidden)]
    pub fn truncation_runs(&self) -> usize {
        self.truncation_runs.load(Ordering::Relaxed)
    }

    /// How many times the event list was built (0 before first use, then 1 forever; spec 004).
    #[doc(hidden)]
    pub fn event_builds(&self) -> usize {
        self.event_builds.load(Ordering::Relaxed)
    }

    fn events(&self) -> &[Event] {
        self.events.get_or_init(|| {
            self.event_builds.fetch_add(1, Ordering::Relaxed);
            messages_to_events(self.truncated_history(), &self.root_agent_name)
        })
    }
}

impl EventsView for EventsAdapter {
    fn all(&self) -> Vec<Event> {
        self.events().to_vec()
    }

    fn len(&self) -> usize {
        self.events().len()
    }

    fn at(&self, i: usize) -> Option<Event> {
        self.events().get(i).cloned()
    }
}
