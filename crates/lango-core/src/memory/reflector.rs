//! The reflector (spec 002 "Reflector Agent", REFERENCE §3.4): condenses all observations of a
//! session into one generation-1 reflection, and all reflections into one of the next
//! generation — or the oldest part of them, when the memory's model refuses them all as too
//! long for its context. Each save deletes exactly what it condensed, in the same
//! transaction; when any of it is gone by then (another process condensed it first), the
//! reflection is dropped.

use std::fmt::Write as _;
use std::sync::Arc;

use super::observer::{generate, to_i64, too_long_for_context, MAX_REFITS};
use super::prompts;
use super::{MemoryConfig, MemoryError};
use crate::agent::Llm;
use crate::store::{Reflection, Store};
use crate::tokens::TokenCounter;

/// The agent name the reflector's model calls carry in their context.
pub const REFLECTOR_AGENT: &str = "memory-reflector";

/// A saved reflection and the ids of the items (observations or reflections) it replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct Condensed {
    pub reflection: Reflection,
    pub condensed_ids: Vec<String>,
}

impl Condensed {
    /// How many items it replaced.
    pub fn condensed(&self) -> usize {
        self.condensed_ids.len()
    }
}

#[derive(Debug, Clone)]
pub struct Reflector {
    pub llm: Arc<dyn Llm>,
    pub counter: Arc<dyn TokenCounter>,
    pub config: MemoryConfig,
    /// `LlmRequest::model`; empty = the model the `llm` was built for.
    pub model: String,
}

impl Reflector {
    /// The model's condensation of the first `items` (rendered by `input`), and how many it
    /// covers: all of them, or the oldest half, quarter… when the model refuses the input as
    /// too long for its context (the rest waits for the next cycle).
    async fn generate_fitting(
        &self,
        key: &str,
        prompt: &str,
        items: usize,
        input: impl Fn(usize) -> String,
    ) -> Result<(String, usize), MemoryError> {
        let mut covered = items;
        let mut refits = 0;
        loop {
            let result = generate(
                self.llm.as_ref(),
                self.counter.as_ref(),
                key,
                REFLECTOR_AGENT,
                &self.model,
                prompt,
                input(covered),
            )
            .await;
            if too_long_for_context(&result) && covered > 1 && refits < MAX_REFITS {
                tracing::info!(
                    session = key,
                    items = covered,
                    "memory: the reflector's model refused the input as too long for its context; condensing the older half"
                );
                covered /= 2;
                refits += 1;
                continue;
            }
            return result.map(|content| (content, covered));
        }
    }

    pub fn new(llm: Arc<dyn Llm>, counter: Arc<dyn TokenCounter>, config: MemoryConfig) -> Self {
        Self {
            llm,
            counter,
            config,
            model: String::new(),
        }
    }

    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Condenses all observations (oldest first) into one generation-1 reflection covering
    /// their seq range, and deletes exactly those observations. None → `Ok(None)`, no call.
    pub async fn reflect(
        &self,
        store: &Store,
        key: &str,
    ) -> Result<Option<Condensed>, MemoryError> {
        let observations = store.list_observations(key).await?;
        if observations.is_empty() {
            return Ok(None);
        }
        let (content, covered) = self
            .generate_fitting(key, prompts::REFLECTOR, observations.len(), |n| {
                let mut input = String::new();
                for (i, o) in observations[..n].iter().enumerate() {
                    let _ = write!(input, "Observation {}:\n{}\n\n", i + 1, o.content);
                }
                input
            })
            .await?;
        let observations = &observations[..covered];
        let reflection = Reflection {
            id: String::new(),
            session_key: key.to_string(),
            token_count: to_i64(self.counter.count(&content)),
            content,
            generation: 1,
            seq_start: observations.iter().map(|o| o.seq_start).min().unwrap_or(0),
            seq_end: observations.iter().map(|o| o.seq_end).max().unwrap_or(0),
            source_token_count: observations.iter().map(|o| o.token_count).sum(),
            created_at: 0,
        };
        let ids: Vec<String> = observations.iter().map(|o| o.id.clone()).collect();
        let Some(saved) = store
            .record_reflection(reflection, &ids, &[])
            .await?
            .saved()
        else {
            tracing::debug!(
                session = key,
                "memory: another process condensed these first; this reflection is dropped"
            );
            return Ok(None);
        };
        Ok(Some(Condensed {
            reflection: saved,
            condensed_ids: ids,
        }))
    }

    /// Condenses all reflections (oldest first) into one of generation `max + 1` and deletes
    /// exactly those reflections. None → `Ok(None)`, no call.
    pub async fn meta_reflect(
        &self,
        store: &Store,
        key: &str,
    ) -> Result<Option<Condensed>, MemoryError> {
        let reflections = store.list_reflections(key).await?;
        if reflections.is_empty() {
            return Ok(None);
        }
        let (content, covered) = self
            .generate_fitting(key, prompts::META_REFLECTOR, reflections.len(), |n| {
                let mut input = String::new();
                for (i, r) in reflections[..n].iter().enumerate() {
                    let _ = write!(
                        input,
                        "Reflection {} (gen {}):\n{}\n\n",
                        i + 1,
                        r.generation,
                        r.content
                    );
                }
                input
            })
            .await?;
        let reflections = &reflections[..covered];
        let reflection = Reflection {
            id: String::new(),
            session_key: key.to_string(),
            token_count: to_i64(self.counter.count(&content)),
            content,
            generation: reflections.iter().map(|r| r.generation).max().unwrap_or(0) + 1,
            seq_start: reflections.iter().map(|r| r.seq_start).min().unwrap_or(0),
            seq_end: reflections.iter().map(|r| r.seq_end).max().unwrap_or(0),
            source_token_count: reflections.iter().map(|r| r.token_count).sum(),
            created_at: 0,
        };
        let ids: Vec<String> = reflections.iter().map(|r| r.id.clone()).collect();
        let Some(saved) = store
            .record_reflection(reflection, &[], &ids)
            .await?
            .saved()
        else {
            tracing::debug!(
                session = key,
                "memory: another process condensed these first; this reflection is dropped"
            );
            return Ok(None);
        };
        Ok(Some(Condensed {
            reflection: saved,
            condensed_ids: ids,
        }))
    }
}
