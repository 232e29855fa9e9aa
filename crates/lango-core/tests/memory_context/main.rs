//! Context assembly with observations (spec 002 "Context Assembly with Observations",
//! "Configurable memory context limits", "Memory token budgeting in context assembly";
//! REFERENCE §3.8; acceptance 54–57).
//!
//! Real SQLite stores in temp folders; the inner model is `Recorder`, a fake `Llm` that
//! records every request it is given and answers "ok".

mod acceptance;
mod assembly;
mod harness;
mod inspector;
mod limits;
