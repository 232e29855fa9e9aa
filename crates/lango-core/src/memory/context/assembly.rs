//! Assembly: turns what retrieval read into the sections appended to the request's own
//! system instruction, and [`assemble`], the pure read the inspector and the adapter share.

use std::collections::HashSet;
use std::sync::Arc;

use super::cache::MemoryCache;
use super::embedder::QueryEmbedder;
use super::repeats::without_carried;
use super::retrieval::{read, search, worth_searching, Reads};
use super::section::DEFAULT_MEMORY_TOKEN_BUDGET;
use super::{or_default, SECTION_BASE, SECTION_KNOWLEDGE, SECTION_MEMORY, SECTION_RUNTIME};
use crate::agent::{roles, Content, LlmRequest, Part};
use crate::memory::knowledge::{self, DEFAULT_KNOWLEDGE_TOKEN_BUDGET};
use crate::memory::knowledge_index::KnowledgeIndex;
use crate::memory::runtime_context::RuntimeContext;
use crate::memory::settings::MemoryConfig;
use crate::store::Store;
use crate::tokens::{MessageParts, TokenCounter, ToolCallParts};

/// What [`assemble`] may add besides the memory section.
#[derive(Debug, Clone)]
pub struct AssemblyOptions {
    /// Memory section budget in tokens; 0 → 4000.
    pub memory_token_budget: usize,
    /// Add the `## Semantic Context (RAG)` section (and the runtime context, if given).
    pub knowledge: bool,
    /// Knowledge section budget in tokens; 0 → [`DEFAULT_KNOWLEDGE_TOKEN_BUDGET`].
    pub knowledge_token_budget: usize,
    /// Rendered after the knowledge section when `knowledge` is on (the reference served the
    /// runtime context as a knowledge layer).
    pub runtime_context: Option<Arc<RuntimeContext>>,
    /// Embeds the query for hybrid (BM25 + cosine) retrieval; None → BM25 only.
    pub embedder: Option<QueryEmbedder>,
    /// The knowledge ranking's per-session statistics, kept between calls (cheap to clone,
    /// shared by clones): an adapter and the inspector that should show exactly what it
    /// sends use the same one.
    pub knowledge_index: KnowledgeIndex,
}

impl Default for AssemblyOptions {
    fn default() -> Self {
        Self {
            memory_token_budget: DEFAULT_MEMORY_TOKEN_BUDGET,
            knowledge: false,
            knowledge_token_budget: DEFAULT_KNOWLEDGE_TOKEN_BUDGET,
            runtime_context: None,
            embedder: None,
            knowledge_index: KnowledgeIndex::default(),
        }
    }
}

impl AssemblyOptions {
    pub fn with_memory_token_budget(budget: usize) -> Self {
        Self {
            memory_token_budget: budget,
            ..Self::default()
        }
    }
}

/// One part of the system prompt as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// `base`, `knowledge`, `runtime` or `memory`.
    pub name: String,
    /// Base/runtime: tokens of the text. Knowledge/memory: the tokens charged against the
    /// budget (item contents/blocks; headings are not charged).
    pub tokens: usize,
    pub budget: Option<usize>,
}

/// Exactly what goes to the model for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledRequest {
    /// The session key resolved from the call context (None → nothing was read).
    pub session_key: Option<String>,
    /// The system instruction as sent (the request's own, possibly extended).
    pub system_instruction: Option<Content>,
    /// Its text as the providers see it (text parts joined with `\n`).
    pub system_prompt: String,
    /// Base first, then each added section in prompt order.
    pub sections: Vec<SectionInfo>,
    /// The recent messages as sent: the request's own, less the summary rows whose note the
    /// memory section carries (issue 16: the same memory is never sent twice).
    pub contents: Vec<Content>,
    /// Σ message cost of `contents` (REFERENCE §3.2).
    pub history_tokens: usize,
    /// Summary rows left out of the history because the memory section carries them.
    pub summaries_not_repeated: usize,
    /// The history tokens that saved.
    pub summary_tokens_saved: usize,
    /// True when a section was added; false → the request goes out byte for byte unchanged.
    pub changed: bool,
    /// Retrieval failures (logged, not fatal; the inspector shows them).
    pub errors: Vec<String>,
}

impl AssembledRequest {
    /// `request` with the assembled system instruction and history (untouched when nothing
    /// was added).
    pub fn apply(&self, mut request: LlmRequest) -> LlmRequest {
        if self.changed {
            request.config.system_instruction = self.system_instruction.clone();
        }
        if self.summaries_not_repeated > 0 {
            request.contents = self.contents.clone();
        }
        request
    }
}

/// The instruction text as providers see it: non-thought, non-empty text parts joined by `\n`.
pub(super) fn instruction_text(instruction: Option<&Content>) -> String {
    instruction
        .map(|c| {
            c.parts
                .iter()
                .filter(|p| !p.thought)
                .filter_map(|p| p.text.as_deref())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Appends `added` to the request's OWN instruction (REFERENCE §3.8 [FIX]): onto its last
/// text part, else as a new part, else as a new system instruction.
pub(super) fn extend_instruction(instruction: Option<&Content>, added: &str) -> Content {
    let mut content = instruction
        .cloned()
        .unwrap_or_else(|| Content::new(roles::SYSTEM, Vec::new()));
    let last_text = content
        .parts
        .iter_mut()
        .rev()
        .find(|p| !p.thought && p.text.as_deref().is_some_and(|t| !t.is_empty()));
    match last_text {
        Some(part) => part.text.get_or_insert_with(String::new).push_str(added),
        None => content
            .parts
            .push(Part::text(added.trim_start_matches('\n'))),
    }
    content
}

pub(super) fn history_tokens(contents: &[Content], counter: &dyn TokenCounter) -> usize {
    contents
        .iter()
        .map(|c| {
            let text = c.text();
            let calls: Vec<(String, String, String, String)> = c
                .parts
                .iter()
                .filter_map(|p| {
                    if let Some(fc) = &p.function_call {
                        Some((
                            fc.id.clone(),
                            fc.name.clone(),
                            serde_json::Value::Object(fc.args.clone()).to_string(),
                            String::new(),
                        ))
                    } else {
                        p.function_response.as_ref().map(|fr| {
                            (
                                fr.id.clone(),
                                fr.name.clone(),
                                String::new(),
                                serde_json::Value::Object(fr.response.clone()).to_string(),
                            )
                        })
                    }
                })
                .collect();
            // Attached files at their estimated cost, as the stored message counts them.
            let files: usize = c
                .parts
                .iter()
                .filter_map(|p| p.attachment.as_ref())
                .map(|a| usize::try_from(a.token_count).unwrap_or(usize::MAX))
                .sum();
            counter
                .message_cost(&MessageParts {
                    content: &text,
                    tool_calls: calls
                        .iter()
                        .map(|(id, name, input, output)| ToolCallParts {
                            id,
                            name,
                            input,
                            output,
                        })
                        .collect(),
                })
                .saturating_add(files)
        })
        .sum()
}

/// What context assembly adds to one request's system instruction, in prompt order, with
/// the retrieval failures (logged, not fatal).
#[derive(Debug, Default)]
pub(super) struct Additions {
    /// `(section name, text, tokens, budget)`.
    pub(super) sections: Vec<(&'static str, String, usize, Option<usize>)>,
    pub(super) errors: Vec<String>,
    /// Contents of the summary rows the added memory section carries (not to be repeated).
    pub(super) carried_summaries: HashSet<String>,
}

/// Turns what was read into the sections added to `request`'s instruction, in prompt order.
/// A search the reads skipped but the request needs (history rows beyond its contents, only
/// known now) is done here. `count_runtime` → the runtime section's tokens are counted (the
/// inspector shows them).
pub(super) async fn finish(
    store: &Store,
    key: &str,
    request: &LlmRequest,
    reads: Reads,
    counter: &dyn TokenCounter,
    options: &AssemblyOptions,
    count_runtime: bool,
) -> Additions {
    let mut out = Additions {
        sections: Vec::new(),
        errors: reads.errors,
        carried_summaries: HashSet::new(),
    };
    let memory_budget = or_default(options.memory_token_budget, DEFAULT_MEMORY_TOKEN_BUDGET);
    if options.knowledge {
        let knowledge_budget = or_default(
            options.knowledge_token_budget,
            DEFAULT_KNOWLEDGE_TOKEN_BUDGET,
        );
        let candidates = match reads.candidates {
            Some(found) => Some(found),
            None => match knowledge::rag_query(&request.contents) {
                Some(q)
                    if worth_searching(
                        reads.state,
                        reads.appended,
                        Some(request.contents.len()),
                    ) =>
                {
                    Some(search(store, key, q, options, reads.state).await)
                }
                _ => None,
            },
        };
        let candidates = match candidates {
            Some(Ok(found)) => found,
            Some(Err(e)) => {
                tracing::warn!(session = %key, error = %e, "knowledge retrieval failed");
                out.errors.push(format!("knowledge: {e}"));
                Vec::new()
            }
            None => Vec::new(),
        };
        if !candidates.is_empty() {
            let visible: Vec<String> = request.contents.iter().map(Content::text).collect();
            // Items already in the memory section are not repeated.
            let items: Vec<_> = knowledge::select(&candidates, &visible, &HashSet::new())
                .into_iter()
                .filter(|i| !reads.memory.shown.contains(&i.id))
                .collect();
            let tokens = |block: &str| {
                (reads.block_tokens.get(block).copied()).unwrap_or_else(|| counter.count(block))
            };
            if let Some((text, used)) =
                knowledge::format_knowledge_with(&items, tokens, knowledge_budget)
            {
                out.sections
                    .push((SECTION_KNOWLEDGE, text, used, Some(knowledge_budget)));
            }
        }
        if let Some(rc) = &options.runtime_context {
            let text = rc.render_for(key, request.config.tools.len());
            let tokens = if count_runtime {
                counter.count(&text)
            } else {
                0
            };
            out.sections.push((SECTION_RUNTIME, text, tokens, None));
        }
    }
    if let Some(text) = &reads.memory.text {
        out.sections.push((
            SECTION_MEMORY,
            text.clone(),
            reads.memory.used,
            Some(memory_budget),
        ));
        out.carried_summaries = reads.memory.carried_summaries.clone();
    }
    out
}

/// [`read`] then [`finish`] for one request, nothing prefetched.
#[allow(clippy::too_many_arguments)]
pub(super) async fn additions(
    store: &Store,
    key: &str,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
    cache: Option<&MemoryCache>,
    count_runtime: bool,
) -> Additions {
    let query = if options.knowledge {
        knowledge::rag_query(&request.contents)
    } else {
        None
    };
    let reads = read(
        store,
        key,
        query,
        Some(request.contents.len()),
        0,
        counter,
        config,
        options,
        cache,
    )
    .await;
    finish(store, key, request, reads, counter, options, count_runtime).await
}

/// The sections joined as appended to the instruction: `"\n\n" + section` each.
pub(super) fn suffix(additions: &Additions) -> String {
    let mut suffix = String::new();
    for (_, text, _, _) in &additions.sections {
        suffix.push_str("\n\n");
        suffix.push_str(text);
    }
    suffix
}

/// Computes what the model gets for `request` in session `key` without sending anything:
/// base prompt → knowledge/RAG (+ runtime context) → memory section, each appended as
/// `"\n\n" + section` onto the request's own instruction; history summary rows the memory
/// section carries are left out. No key → no store access and the
/// request unchanged. The memory section and the knowledge retrieval are read concurrently;
/// failures are logged and leave their section out.
pub async fn assemble(
    store: &Store,
    key: Option<&str>,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
) -> AssembledRequest {
    assemble_cached(store, key, request, counter, config, options, None).await
}

pub(super) async fn assemble_cached(
    store: &Store,
    key: Option<&str>,
    request: &LlmRequest,
    counter: &dyn TokenCounter,
    config: &MemoryConfig,
    options: &AssemblyOptions,
    cache: Option<&MemoryCache>,
) -> AssembledRequest {
    let instruction = request.config.system_instruction.as_ref();
    let base = instruction_text(instruction);
    let mut assembled = AssembledRequest {
        session_key: key.map(str::to_owned),
        system_instruction: instruction.cloned(),
        system_prompt: base.clone(),
        sections: vec![SectionInfo {
            name: SECTION_BASE.to_owned(),
            tokens: counter.count(&base),
            budget: None,
        }],
        contents: request.contents.clone(),
        history_tokens: history_tokens(&request.contents, counter),
        summaries_not_repeated: 0,
        summary_tokens_saved: 0,
        changed: false,
        errors: Vec::new(),
    };
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return assembled;
    };
    let added = additions(store, key, request, counter, config, options, cache, true).await;
    assembled.errors = added.errors.clone();
    if added.sections.is_empty() {
        return assembled;
    }
    let extended = extend_instruction(instruction, &suffix(&added));
    for (name, _, tokens, budget) in added.sections {
        assembled.sections.push(SectionInfo {
            name: name.to_owned(),
            tokens,
            budget,
        });
    }
    if let Some((contents, left_out)) =
        without_carried(&request.contents, &added.carried_summaries, counter)
    {
        assembled.contents = contents;
        assembled.history_tokens -= left_out.tokens;
        assembled.summaries_not_repeated = left_out.summaries;
        assembled.summary_tokens_saved = left_out.tokens;
    }
    assembled.system_prompt = instruction_text(Some(&extended));
    assembled.system_instruction = Some(extended);
    assembled.changed = true;
    assembled
}
