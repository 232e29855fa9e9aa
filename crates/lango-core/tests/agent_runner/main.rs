//! The runner (one user turn over real SQLite sessions) and `run_and_collect`
//! (REFERENCE §1.6, acceptance 19–22; spec 003 "Agent hallucination retry in RunAndCollect",
//! "Agent text collection avoids duplication"; spec 000 "Agent Initialization").
//!
//! The model is a scripted `Llm` that behaves like the model adapter: with `stream = true`
//! it yields one partial response per text chunk, then the complete final response.

mod collect;
mod requests;
mod retry;
mod sub_agents;
mod support;
mod turn;
