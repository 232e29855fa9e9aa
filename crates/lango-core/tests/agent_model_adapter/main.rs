//! `ModelAdapter` (REFERENCE §1.2–§1.4; specs 000/001/003 "SystemInstruction Forwarding",
//! "Model adapter streams LLM responses", "convertMessages forwards FunctionCall ID";
//! acceptance 1–5, 11–15).
//!
//! Most tests drive the adapter over `Scripted`, a fake `Provider` (`support`) that returns
//! fixed `StreamEvent`s and records the `GenerateParams` it was given (a seam no user sees).
//! `end_to_end_over_openai_compatible_client` runs it over the real OpenAI-compatible client
//! against the testkit's fake HTTP server to prove the wiring.

mod acceptance;
mod end_to_end;
mod fixes;
mod spec;
mod support;
