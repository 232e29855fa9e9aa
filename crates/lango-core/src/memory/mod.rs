//! Observational memory (spec 002, REFERENCE §3–§4): older turns become observations, then
//! reflections, which are put back into the prompt so a conversation never overflows the
//! model's context and never loses what mattered.
//!
//! Owns the observer, the reflector, the background buffer that runs them off the send
//! path, and context assembly (the memory and knowledge sections of the system prompt). It
//! must not send anything itself on the user's turn: the buffer works after the turn, and the
//! context adapter only reads. Persistence goes through `store` (atomic `record_*` writes).

pub mod buffer;
pub mod context;
pub mod cycle;
pub mod embedding;
pub mod graph;
pub mod knowledge;
pub mod knowledge_index;
mod knowledge_rank;
mod knowledge_session;
mod knowledge_vocabulary;
pub mod observer;
mod prompts;
pub mod reflector;
pub mod runtime_context;
mod settings;
mod status;

pub use settings::MemoryConfig;
pub use status::{MemoryError, MemoryEvent, MemoryPhase, MemoryStatus};
