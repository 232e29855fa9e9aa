//! The memory browser and the "what the model sees" inspector: a session's status,
//! observations and reflections, their source messages, edits and deletions, and the
//! exact next request. Reads and edits go through `store`; assembly is `Engine::inspect`.

use super::dto::{HistoryItemView, InspectView, MemoryItemKind, MemoryOverview, SectionView};
use super::{App, AppError};
use crate::agent::Content;
use crate::store::StoredMessage;

/// Most source messages one observation can show at once.
const MAX_SOURCE: i64 = 500;

impl App {
    /// Status and every observation and reflection of `key`, oldest first.
    pub async fn memory_overview(&self, key: &str) -> Result<MemoryOverview, AppError> {
        let engine = self.engine().await.ok();
        let memory = engine.as_ref().and_then(|e| e.memory.as_ref());
        let store = &self.inner.store;
        let Some(session) = store.find_session(key).await? else {
            return Ok(MemoryOverview {
                title: String::new(),
                enabled: memory.is_some(),
                status: None,
                observations: Vec::new(),
                reflections: Vec::new(),
            });
        };
        let observations = store.list_observations(key).await?;
        let reflections = store.list_reflections(key).await?;
        let status = match memory {
            Some(m) => match m.cycle.status(key).await {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!(session = %key, "memory status unavailable: {e}");
                    None
                }
            },
            None => None,
        };
        Ok(MemoryOverview {
            title: session.title,
            enabled: memory.is_some(),
            status,
            observations,
            reflections,
        })
    }

    /// The messages an observation covers (`seq_start..=seq_end`), from the archive when
    /// compaction moved them out of the history.
    pub async fn memory_sources(
        &self,
        key: &str,
        seq_start: i64,
        seq_end: i64,
    ) -> Result<Vec<StoredMessage>, AppError> {
        if seq_end < seq_start {
            return Ok(Vec::new());
        }
        let span = (seq_end - seq_start + 1).min(MAX_SOURCE);
        let page = self
            .inner
            .store
            .page_messages(key, Some(seq_end.saturating_add(1)), span as u32)
            .await?;
        Ok(page.into_iter().filter(|m| m.seq >= seq_start).collect())
    }

    /// Replaces an observation's or reflection's text; the next prompt uses it.
    pub async fn update_memory_item(
        &self,
        kind: MemoryItemKind,
        id: &str,
        content: &str,
    ) -> Result<(), AppError> {
        let content = content.trim();
        if content.is_empty() {
            return Err(AppError::new(
                "empty_memory_item",
                "a memory item cannot be empty; delete it instead",
            ));
        }
        let store = &self.inner.store;
        let tokens = i64::try_from(store.counter().count(content)).unwrap_or(i64::MAX);
        match kind {
            MemoryItemKind::Observation => store.update_observation(id, content, tokens).await?,
            MemoryItemKind::Reflection => store.update_reflection(id, content, tokens).await?,
        }
        Ok(())
    }

    /// Forgets an observation or reflection: the next prompt no longer carries it.
    pub async fn delete_memory_item(&self, kind: MemoryItemKind, id: &str) -> Result<(), AppError> {
        let store = &self.inner.store;
        let ids = [id.to_owned()];
        let deleted = match kind {
            MemoryItemKind::Observation => store.delete_observations(&ids).await?,
            MemoryItemKind::Reflection => store.delete_reflections(&ids).await?,
        };
        if deleted == 0 {
            return Err(AppError::new(
                "not_found",
                "that memory item no longer exists",
            ));
        }
        Ok(())
    }

    /// Exactly what the next turn of `key` would send, without sending anything.
    pub async fn inspect(&self, key: &str) -> Result<InspectView, AppError> {
        let engine = self.engine().await?;
        // A conversation not started yet is inspected as an empty one.
        self.inner.store.get_or_create_session(key).await?;
        let turn = engine.turn(key).await?;
        let assembled = engine.inspect_turn(key, &turn).await?;
        // The conversation's own model's budget (its context window), as the turn uses —
        // less when the model refused a longer history in this run (runner::fit).
        let configured = turn.history_budget.unwrap_or(engine.history_budget);
        let learned = engine
            .runner
            .learned_budget(Some(&turn))
            .filter(|&learned| learned < configured);
        let history_budget = learned.unwrap_or(configured);
        let memory_enabled = engine.memory.is_some();
        let memory = assembled.sections.iter().find(|s| s.name == "memory");
        let tools = engine.tool_definitions();
        Ok(InspectView {
            system_prompt: assembled.system_prompt.clone(),
            sections: assembled
                .sections
                .iter()
                .map(|s| SectionView {
                    name: s.name.clone(),
                    tokens: s.tokens,
                    budget: s.budget,
                })
                .collect(),
            history: assembled.contents.iter().map(history_item).collect(),
            history_tokens: assembled.history_tokens,
            history_budget,
            history_budget_learned: learned.is_some(),
            summaries_not_repeated: assembled.summaries_not_repeated,
            summary_tokens_saved: assembled.summary_tokens_saved,
            memory_tokens: memory.map_or(0, |s| s.tokens),
            memory_budget: engine.memory.as_ref().map(|m| m.config.memory_token_budget),
            memory_enabled,
            tool_definitions: tools.count,
            tool_definition_tokens: tools.tokens,
            errors: assembled.errors.clone(),
        })
    }
}

fn history_item(content: &Content) -> HistoryItemView {
    let mut lines = Vec::new();
    for part in &content.parts {
        if part.thought {
            continue;
        }
        if let Some(text) = part.text.as_deref().filter(|t| !t.is_empty()) {
            lines.push(text.to_owned());
        }
        if let Some(call) = &part.function_call {
            lines.push(format!(
                "→ {}({})",
                call.name,
                serde_json::Value::Object(call.args.clone())
            ));
        }
        if let Some(response) = &part.function_response {
            lines.push(format!(
                "← {}: {}",
                response.name,
                serde_json::Value::Object(response.response.clone())
            ));
        }
    }
    HistoryItemView {
        role: content.role.clone(),
        text: lines.join("\n"),
    }
}
