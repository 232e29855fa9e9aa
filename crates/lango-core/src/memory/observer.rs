//! The observer (spec 002 "Observer Agent", REFERENCE §3.3): turns the un-observed part of a
//! session's history into one short observation note, saved atomically with the memory cursor
//! and, when compaction is on, with the compaction of the rows it covers (§3.6).

use std::sync::Arc;

use futures_util::StreamExt;

use super::context::fit_memory;
use super::prompts;
use super::{MemoryConfig, MemoryError};
use crate::agent::{roles, AgentError, Content, GenerateConfig, Llm, LlmRequest, RequestContext};
use crate::provider::ProviderError;
use crate::store::{MessageKind, Observation, Recorded, Store, StoredMessage};
use crate::tokens::{MessageParts, TokenCounter, ToolCallParts};

/// Longest rendered message content, in characters.
pub const PAYLOAD_CAP_CHARS: usize = 2_000;
/// Appended to a content cut at [`PAYLOAD_CAP_CHARS`].
pub const TRUNCATION_MARKER: &str = "… [truncated]";
/// Longest rendered tool input or result, in characters: the observer notes what a tool did
/// and found, so the start of its output is enough, and a huge output stays cheap.
pub const TOOL_CAP_CHARS: usize = 300;

/// Smaller batches tried after the memory's model refuses one as too long for its context.
pub(super) const MAX_REFITS: usize = 4;

/// Whether the memory's model refused its input as longer than its context window (the
/// memory's model may run with a smaller one than its budgets assume): a smaller batch may do.
pub(super) fn too_long_for_context<T>(result: &Result<T, MemoryError>) -> bool {
    matches!(
        result,
        Err(MemoryError::Model(AgentError::Provider(
            ProviderError::ContextExceeded { .. }
        )))
    )
}

/// The agent name the memory's model calls carry in their [`RequestContext`].
pub const OBSERVER_AGENT: &str = "memory-observer";

/// The observer's instructions, sent with every observation call (for cost estimates).
pub fn prompt_text() -> &'static str {
    prompts::OBSERVER
}

/// The rows an observation may cover now, oldest first, and what they cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unobserved {
    /// History rows after the cursor, without summary rows and without the newest complete
    /// exchange (REFERENCE §3.6 decision (a)).
    pub messages: Vec<StoredMessage>,
    /// Σ `counter.message_cost` of `messages`.
    pub tokens: usize,
}

/// Writes observation notes with its own model (the engine passes the one named by
/// `observationalMemory.provider/model`, or the agent's).
#[derive(Debug, Clone)]
pub struct Observer {
    pub llm: Arc<dyn Llm>,
    pub counter: Arc<dyn TokenCounter>,
    pub config: MemoryConfig,
    /// `LlmRequest::model`; empty = the model the `llm` was built for.
    pub model: String,
}

impl Observer {
    pub fn new(llm: Arc<dyn Llm>, counter: Arc<dyn TokenCounter>, config: MemoryConfig) -> Self {
        Self {
            llm,
            counter,
            config,
            model: String::new(),
        }
    }

    /// Sends `model` as the request's model (`observationalMemory.model`).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// What the next observation could cover: rows after the cursor, except summary rows and
    /// the newest complete exchange (the last user message and everything after it).
    pub async fn unobserved(&self, store: &Store, key: &str) -> Result<Unobserved, MemoryError> {
        let cursor = store.observed_through_seq(key).await?;
        let rows = store.list_messages_after(key, cursor).await?;
        // No user message after the cursor: everything there belongs to the newest exchange.
        let cut = rows.iter().rposition(is_user_turn).unwrap_or(0);
        let messages: Vec<StoredMessage> = rows
            .into_iter()
            .take(cut)
            .filter(|m| m.kind != MessageKind::Summary)
            .collect();
        let tokens = messages.iter().map(|m| self.cost(m)).sum();
        Ok(Unobserved { messages, tokens })
    }

    /// One observation, if the un-observed cost is ≥ `messageTokenThreshold`. The input is
    /// bounded by `maxMessageTokenBudget` (oldest rows first, at least one; the rest waits for
    /// the next cycle). An empty reply → [`MemoryError::EmptyReply`]: nothing saved, cursor
    /// unchanged. Another writer that observed these rows first → `Ok(None)`, nothing saved. With `compact`, the covered rows move to the archive behind a summary in the
    /// same transaction as the save and the cursor move.
    pub async fn observe(
        &self,
        store: &Store,
        key: &str,
        compact: bool,
    ) -> Result<Option<Observation>, MemoryError> {
        let unobserved = self.unobserved(store, key).await?;
        if unobserved.messages.is_empty() || unobserved.tokens < self.config.message_token_threshold
        {
            return Ok(None);
        }
        let (content, batch) = self.generate_fitting(key, unobserved.messages).await?;
        let (Some(first), Some(last)) = (batch.first(), batch.last()) else {
            return Ok(None);
        };
        let (seq_start, seq_end) = (first.seq, last.seq);
        // Never archive rows behind a note the prompt would not show: they stay in the
        // history (observed, not compacted) instead.
        let compact = compact && self.note_is_placed(store, key, &content).await?;
        let observation = Observation {
            id: String::new(),
            session_key: key.to_string(),
            token_count: to_i64(self.counter.count(&content)),
            content,
            seq_start,
            seq_end,
            created_at: 0,
        };
        match store.record_observation(observation, compact).await? {
            Recorded::Saved((saved, _summary)) => Ok(Some(saved)),
            Recorded::Stale => {
                tracing::debug!(
                    session = key,
                    seq_start,
                    seq_end,
                    "memory: another process observed these messages first; this note is dropped"
                );
                Ok(None)
            }
        }
    }

    /// The model's note on the oldest of `messages` within `maxMessageTokenBudget`, and the
    /// rows it covers. The memory's model may run with a smaller context than that budget
    /// (llama.cpp's 4,096 tokens): when it refuses the batch as too long, the rows of half
    /// its tokens are tried, the rest left for the next cycle.
    async fn generate_fitting(
        &self,
        key: &str,
        messages: Vec<StoredMessage>,
    ) -> Result<(String, Vec<StoredMessage>), MemoryError> {
        let mut batch = self.within_budget(messages.clone(), self.config.max_message_token_budget);
        let mut refits = 0;
        loop {
            let result = generate(
                self.llm.as_ref(),
                self.counter.as_ref(),
                key,
                OBSERVER_AGENT,
                &self.model,
                prompts::OBSERVER,
                render_messages(&batch),
            )
            .await;
            if !too_long_for_context(&result) || refits == MAX_REFITS {
                return result.map(|content| (content, batch));
            }
            // In the units `within_budget` counts: each row rendered on its own.
            let tokens: usize = batch.iter().map(|m| self.rendered_cost(m)).sum();
            let smaller = self.within_budget(messages.clone(), tokens / 2);
            if smaller.len() >= batch.len() {
                return result.map(|content| (content, batch));
            }
            tracing::info!(
                session = key,
                rows = batch.len(),
                fewer = smaller.len(),
                "memory: the observer's model refused the batch as too long for its context; observing fewer messages"
            );
            batch = smaller;
            refits += 1;
        }
    }

    /// What `m` costs as the observer is sent it.
    fn rendered_cost(&self, m: &StoredMessage) -> usize {
        self.counter
            .count(&render_messages(std::slice::from_ref(m)))
    }

    /// Whether `note`, saved now as the newest observation, would be in the session's memory
    /// section (the same fitting as context assembly: budget and context limits).
    async fn note_is_placed(
        &self,
        store: &Store,
        key: &str,
        note: &str,
    ) -> Result<bool, MemoryError> {
        let reflections = store
            .list_recent_reflections(key, self.config.max_reflections_in_context)
            .await?;
        // The note takes one of the `maxObservationsInContext` places (0 = unlimited).
        let earlier = match self.config.max_observations_in_context {
            0 => store.list_recent_observations(key, 0).await?,
            1 => Vec::new(),
            n => store.list_recent_observations(key, n - 1).await?,
        };
        let reflections: Vec<&str> = reflections.iter().map(|r| r.content.as_str()).collect();
        let observations: Vec<&str> = earlier
            .iter()
            .map(|o| o.content.as_str())
            .chain(std::iter::once(note))
            .collect();
        let fit = fit_memory(
            &reflections,
            &observations,
            self.counter.as_ref(),
            self.config.memory_token_budget,
        );
        let placed = fit.observations == observations.len();
        if !placed {
            tracing::warn!(
                session = key,
                note_tokens = self.counter.count(note),
                budget = self.config.memory_token_budget,
                "memory: the new note does not fit the memory section; its messages stay in the history instead of being compacted"
            );
        }
        Ok(placed)
    }

    fn cost(&self, m: &StoredMessage) -> usize {
        let parts = MessageParts {
            content: &m.content,
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| ToolCallParts {
                    id: &c.id,
                    name: &c.name,
                    input: &c.input,
                    output: &c.output,
                })
                .collect(),
        };
        self.counter.message_cost(&parts)
    }

    /// The oldest rows whose rendered cost (what the observer is sent: tool payloads are
    /// cut) fits `budget`; always at least one, so a huge row never stops observation (and
    /// compaction) for good. The batch never ends between a call and its
    /// results (issue 14 item 7): compaction archives the batch, and a result left without
    /// its call makes providers refuse the history.
    fn within_budget(&self, messages: Vec<StoredMessage>, budget: usize) -> Vec<StoredMessage> {
        let mut used = 0usize;
        let mut end = 0;
        for m in &messages {
            let cost = self.rendered_cost(m);
            if end > 0 && used.saturating_add(cost) > budget {
                break;
            }
            used = used.saturating_add(cost);
            end += 1;
        }
        let splits = |end: usize| messages.get(end).is_some_and(StoredMessage::is_tool_result);
        if splits(end) {
            // Back to before the call these results answer; if that leaves nothing, forward
            // past the results instead.
            let caller = messages[..end].iter().rposition(|m| !m.is_tool_result());
            match caller {
                Some(c) if c > 0 => end = c,
                _ => {
                    while splits(end) {
                        end += 1;
                    }
                }
            }
        }
        messages.into_iter().take(end).collect()
    }
}

/// A message the user typed (not a legacy user-role tool response, not a summary).
fn is_user_turn(m: &StoredMessage) -> bool {
    m.role == roles::USER
        && m.kind == MessageKind::Message
        && m.tool_calls.iter().all(|c| c.output.is_empty())
}

/// The observer's input (REFERENCE §3.3): per row `[<role>]: <content>`, then per tool call
/// `  [tool:<name>] <input>` and `  [result] <output>` (if any). Each payload is printed once
/// (a tool row whose content repeats its output prints only the result); contents are capped
/// at [`PAYLOAD_CAP_CHARS`], tool inputs and results (and a tool row's own content) at
/// [`TOOL_CAP_CHARS`] with `… (n more characters)`; each attached file is one line `  [attached]
/// <description>`. Legacy roles read as `assistant` / `tool`.
pub fn render_messages(messages: &[StoredMessage]) -> String {
    let mut out = String::new();
    for m in messages {
        let role = match m.role.as_str() {
            roles::MODEL => roles::ASSISTANT,
            roles::FUNCTION => roles::TOOL,
            r => r,
        };
        let repeats_output = m
            .tool_calls
            .iter()
            .any(|c| !c.output.is_empty() && c.output.trim() == m.content.trim());
        let content = if repeats_output { "" } else { m.content.trim() };
        out.push_str(&format!("[{role}]:"));
        if !content.is_empty() {
            out.push(' ');
            if role == roles::TOOL {
                out.push_str(&cap_tool(content));
            } else {
                out.push_str(&cap(content));
            }
        }
        out.push('\n');
        // An attached file as one line (name, type, size, its text's gist), never its bytes.
        for a in &m.attachments {
            out.push_str(&format!("  [attached] {}\n", a.description));
        }
        for call in &m.tool_calls {
            out.push_str(&format!("  [tool:{}]", call.name));
            if !call.input.is_empty() {
                out.push(' ');
                out.push_str(&cap_tool(&call.input));
            }
            out.push('\n');
            if !call.output.is_empty() {
                out.push_str("  [result] ");
                out.push_str(&cap_tool(call.output.trim()));
                out.push('\n');
            }
        }
    }
    out
}

/// `text` cut to [`PAYLOAD_CAP_CHARS`] characters plus [`TRUNCATION_MARKER`].
fn cap(text: &str) -> String {
    match text.char_indices().nth(PAYLOAD_CAP_CHARS) {
        Some((at, _)) => format!("{}{TRUNCATION_MARKER}", &text[..at]),
        None => text.to_string(),
    }
}

/// A tool payload cut to [`TOOL_CAP_CHARS`] characters plus `… (n more characters)`.
fn cap_tool(text: &str) -> String {
    match text.char_indices().nth(TOOL_CAP_CHARS) {
        Some((at, _)) => {
            let more = text[at..].chars().count();
            format!("{}… ({more} more characters)", &text[..at])
        }
        None => text.to_string(),
    }
}

pub(crate) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Replies longer than this many times the requested `max_output_tokens` are rejected: the
/// margin absorbs our counter disagreeing with the provider's tokenizer.
const REPLY_TOKEN_MARGIN: usize = 2;
/// Characters per token above which a reply is rejected without counting it (no tokenizer
/// averages this many), so a huge reply is never tokenized.
const MAX_CHARS_PER_TOKEN: usize = 16;

/// The longest memory reply accepted, in tokens of `counter`.
pub(crate) fn reply_token_limit() -> usize {
    prompts::MAX_OUTPUT_TOKENS as usize * REPLY_TOKEN_MARGIN
}

/// One memory model call: system + user text, no tools, `max_output_tokens` 1024,
/// `stream = false`, in the session's context. Returns the trimmed reply; empty →
/// [`MemoryError::EmptyReply`]; above [`reply_token_limit`] → [`MemoryError::ReplyTooLong`]
/// (a model that ignores its output limit fails the cycle rather than store a note that
/// would crowd everything else out of the memory section).
pub(crate) async fn generate(
    llm: &dyn Llm,
    counter: &dyn TokenCounter,
    key: &str,
    agent: &str,
    model: &str,
    system: &str,
    input: String,
) -> Result<String, MemoryError> {
    let ctx = RequestContext::for_session(key, agent);
    let request = LlmRequest {
        model: model.to_string(),
        contents: vec![Content::user_text(input)],
        config: GenerateConfig {
            system_instruction: Some(Content::new(
                roles::SYSTEM,
                vec![crate::agent::Part::text(system)],
            )),
            max_output_tokens: Some(prompts::MAX_OUTPUT_TOKENS),
            ..GenerateConfig::default()
        },
    };
    let mut stream = llm.generate_content(&ctx, request, false);
    let mut reply = String::new();
    while let Some(item) = stream.next().await {
        let response = item?;
        if !response.partial {
            reply = response.content.map(|c| c.text()).unwrap_or_default();
        }
    }
    let reply = reply.trim();
    if reply.is_empty() {
        return Err(MemoryError::EmptyReply);
    }
    let limit = reply_token_limit();
    if reply.len() > limit * MAX_CHARS_PER_TOKEN || counter.count(reply) > limit {
        return Err(MemoryError::ReplyTooLong { limit });
    }
    Ok(reply.to_string())
}
