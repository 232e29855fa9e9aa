//! The provider clients (OpenAI-compatible, Anthropic, Gemini, Ollama) over real HTTP: one
//! test binary. What every wire format must do is asserted once, in tables run against all
//! four (`common`: configuration, request options, keys, fixture coverage; `conformance`:
//! stream faults; `errors`: HTTP and connection faults; `decoder_props`: arbitrary bytes and
//! chunkings). The per-format modules hold what is specific to one wire format: its recorded
//! fixtures replayed byte for byte, its exact request bodies, its model list and embeddings.

mod anthropic;
mod common;
mod conformance;
mod decoder_props;
mod errors;
mod gemini;
mod harness;
mod ollama;
mod openai;
