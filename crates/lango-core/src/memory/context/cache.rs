//! The memory cache: one session's memory section as read from the store, kept per
//! session while its memory version is unchanged.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::repeats::{carried_summaries, Shown};
use super::section::fit_memory;
use crate::memory::settings::MemoryConfig;
use crate::store::{Observation, Reflection, Store};
use crate::tokens::TokenCounter;

/// The memory section of one session as assembled from the store. Depends only on the
/// session's observations and reflections (and the adapter's fixed limits, budget and
/// counter), so it is reused while the session's memory version is unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct MemorySnapshot {
    pub(super) text: Option<String>,
    pub(super) used: usize,
    /// Ids of the items in the section: the knowledge section does not repeat them.
    pub(super) shown: HashSet<String>,
    /// Contents of the session's summary rows the section carries: the history does not
    /// repeat them ([`super::repeats`]).
    pub(super) carried_summaries: HashSet<String>,
}

/// Memory sections by session, each valid for one memory version (`Store::memory_state`).
#[derive(Debug, Default)]
pub(super) struct MemoryCache {
    entries: Mutex<HashMap<String, (i64, Arc<MemorySnapshot>)>>,
}

/// Sessions kept in a [`MemoryCache`]; beyond that it starts over (a desktop has a handful of
/// conversations open at most).
const MEMORY_CACHE_SESSIONS: usize = 256;

impl MemoryCache {
    pub(super) fn get(&self, key: &str, version: i64) -> Option<Arc<MemorySnapshot>> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(key)
            .filter(|(v, _)| *v == version)
            .map(|(_, snapshot)| Arc::clone(snapshot))
    }

    pub(super) fn put(&self, key: &str, version: i64, snapshot: Arc<MemorySnapshot>) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MEMORY_CACHE_SESSIONS && !entries.contains_key(key) {
                entries.clear();
            }
            entries.insert(key.to_owned(), (version, snapshot));
        }
    }
}

/// Reads the session's recent reflections and observations and fits the memory section, and
/// which of the session's summary rows it carries. Failures are logged, recorded in `errors`
/// and leave their list out (an unread summary row is sent).
pub(super) async fn load_memory(
    store: &Store,
    key: &str,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    budget: usize,
    errors: &mut Vec<String>,
) -> MemorySnapshot {
    let (reflections, observations, summaries) = tokio::join!(
        store.list_recent_reflections(key, config.max_reflections_in_context),
        store.list_recent_observations(key, config.max_observations_in_context),
        store.summary_rows(key),
    );
    let reflections: Vec<Reflection> = reflections.unwrap_or_else(|e| {
        tracing::warn!(session = %key, error = %e, "loading reflections for the prompt failed");
        errors.push(format!("reflections: {e}"));
        Vec::new()
    });
    let observations: Vec<Observation> = observations.unwrap_or_else(|e| {
        tracing::warn!(session = %key, error = %e, "loading observations for the prompt failed");
        errors.push(format!("observations: {e}"));
        Vec::new()
    });
    let refl_texts: Vec<&str> = reflections.iter().map(|r| r.content.as_str()).collect();
    let obs_texts: Vec<&str> = observations.iter().map(|o| o.content.as_str()).collect();
    let fit = fit_memory(&refl_texts, &obs_texts, counter, budget);
    let summaries = summaries.unwrap_or_else(|e| {
        tracing::warn!(session = %key, error = %e, "reading the session's summary rows failed");
        errors.push(format!("summaries: {e}"));
        Vec::new()
    });
    let shown: Vec<Shown<'_>> = reflections[..fit.reflections]
        .iter()
        .map(|r| Shown {
            content: &r.content,
            seq_start: r.seq_start,
            seq_end: r.seq_end,
        })
        .chain(observations[..fit.observations].iter().map(|o| Shown {
            content: &o.content,
            seq_start: o.seq_start,
            seq_end: o.seq_end,
        }))
        .collect();
    let carried_summaries = carried_summaries(&summaries, &shown);
    MemorySnapshot {
        carried_summaries,
        shown: reflections[..fit.reflections]
            .iter()
            .map(|r| r.id.clone())
            .chain(
                observations[..fit.observations]
                    .iter()
                    .map(|o| o.id.clone()),
            )
            .collect(),
        text: fit.text,
        used: fit.used,
    }
}
