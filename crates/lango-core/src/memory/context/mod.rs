//! Context assembly for each model call (REFERENCE §3.8; spec 002 "Context Assembly with
//! Observations", "Configurable memory context limits", "Memory token budgeting in context
//! assembly").
//!
//! [`assemble`] is a pure read: it computes exactly the request the model gets (the desktop's
//! "what the model sees" inspector and `lango memory inspect` call it directly).
//! [`ContextAwareModelAdapter`] is the `Llm` wrapper the runner talks to; it calls
//! [`assemble`] and forwards the result, so the two can never differ.
//!
//! One file per concept: [`section`] (the memory section and its fitting), [`embedder`] (the
//! query embedder), [`cache`] (the memory cache), [`retrieval`], [`repeats`] (history summary
//! rows the memory section already carries), [`assembly`] and [`adapter`] (the model adapter
//! with prefetch).

mod adapter;
mod assembly;
mod cache;
mod embedder;
mod repeats;
mod retrieval;
mod section;

pub use adapter::ContextAwareModelAdapter;
pub use assembly::{assemble, AssembledRequest, AssemblyOptions, SectionInfo};
pub use embedder::{QueryEmbedder, DEFAULT_QUERY_EMBEDDING_TIMEOUT};
pub(crate) use section::fit_memory;
pub use section::{memory_section, DEFAULT_MEMORY_TOKEN_BUDGET, MEMORY_HEADING};

/// Section names in [`SectionInfo`].
pub const SECTION_BASE: &str = "base";
pub const SECTION_KNOWLEDGE: &str = "knowledge";
pub const SECTION_RUNTIME: &str = "runtime";
pub const SECTION_MEMORY: &str = "memory";

fn or_default(budget: usize, default: usize) -> usize {
    if budget == 0 {
        default
    } else {
        budget
    }
}
