//! The Gemini client against recorded streams (every file under `shared/fixtures/gemini/`,
//! replayed byte for byte) and recorded requests (REFERENCE §5.4, acceptance 71).
//! Acceptance 68–70 (sanitising, name inference) are unit tests in `provider::gemini`.

use std::time::Duration;

use lango_core::provider::gemini::Gemini;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, ToolCallRequest, ToolSpec,
    Usage,
};
use lango_core::secrets::ApiKey;

mod replays;
mod requests;

use super::harness::{collect, no_retries, user_says, user_shows_an_image, Outcome};
use lango_testkit::{FixtureServer, Reply, TestServer};
use serde_json::json;

const KEY: &str = "AIza-test-key";
const MODEL: &str = "gemini-2.0-flash";

/// Every fixture (not `*.request.json`) under `fixtures/gemini/` has a test below
/// (checked by `common::every_fixture_file_has_a_test`).
pub const COVERED: &[&str] = &[
    "gemini/genai_thinking_thought_parts.sse",
    "gemini/genai_thought_summary_then_function_call.sse",
    "gemini/text_stream.sse",
    "gemini/tool_call_stream_flash2_turn1.sse",
    "gemini/tool_call_stream_flash2_turn2.sse",
    "gemini/tool_call_stream_flash2_turn3.sse",
    "gemini/tool_call_stream_gemini3.sse",
    "gemini/tool_result_followup_stream_gemini3.sse",
    "gemini/usage_mid_stream.sse",
    "gemini/vercel_error_429_retry_info.json",
    "gemini/vercel_text_gemini3.chunks.jsonl",
    "gemini/vercel_text_gemini3_thoughtsTokenCount.chunks.jsonl",
    "gemini/vercel_tool_call_gemini3.chunks.jsonl",
    "gemini/vercel_vertex_no_args_and_partial_args.chunks.jsonl",
    "gemini/vercel_vertex_partial_args_streaming.chunks.jsonl",
];

fn config(base_url: String) -> ProviderConfig {
    ProviderConfig::new("gemini", base_url)
        .with_key(ApiKey::new(KEY))
        .with_default_model(MODEL)
        .with_http(no_retries())
}

fn user_params() -> GenerateParams {
    user_says("hi")
}

async fn replay(fixture: &str) -> Outcome {
    assert!(
        COVERED.contains(&fixture),
        "{fixture} is missing from COVERED"
    );
    let server = FixtureServer::start().await;
    let provider = Gemini::new(config(server.base_url_for(fixture))).expect("client");
    collect(&provider, user_params()).await
}

fn usage(input: u64, output: u64, total: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total,
        cache_tokens: 0,
    }
}

fn assert_usage(out: &Outcome, expected: Usage) {
    assert_eq!(out.done_usage(), Some(expected));
    assert_eq!(out.usage_event, Some(expected));
}

fn assert_signature(call: &ToolCallRequest, start: &str, end: &str, len: usize) {
    let sig = &call.thought_signature;
    assert!(
        sig.starts_with(start) && sig.ends_with(end) && sig.len() == len,
        "signature {sig:?}"
    );
}
