//! The Anthropic Messages client against recorded streams (every file under
//! `shared/fixtures/anthropic/`, replayed byte for byte) and recorded requests
//! (REFERENCE §5.3, acceptance 66 and 67).

use std::time::Duration;

use lango_core::provider::anthropic::Anthropic;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, StreamEvent, ToolCallRequest,
    ToolSpec, Usage,
};
use lango_core::secrets::ApiKey;

mod replays;
mod requests;

use super::harness::{collect, no_retries, user_says, user_shows_an_image, Outcome};
use lango_testkit::{fixtures_dir, FixtureServer, Reply, TestServer};
use serde_json::json;

const KEY: &str = "sk-ant-test-key";
const MODEL: &str = "claude-sonnet-4-5";

/// Every fixture (not `*.request.json`) under `fixtures/anthropic/` has a test below
/// (checked by `common::every_fixture_file_has_a_test`).
pub const COVERED: &[&str] = &[
    "anthropic/error_overloaded_event.sse",
    "anthropic/genai_haiku45_usage_stream.sse",
    "anthropic/llama-server/error_http400_exceed_context_size_OPENAI_SHAPED.json",
    "anthropic/llama-server/text_stream.sse",
    "anthropic/llama-server/tool_result_followup_stream.sse",
    "anthropic/llama-server/tool_use_stream_prefill.sse",
    "anthropic/redacted_thinking_stream.sse",
    "anthropic/sdkpy_basic_response.sse",
    "anthropic/sdkpy_incomplete_partial_json_response.sse",
    "anthropic/sdkpy_refusal_response.sse",
    "anthropic/sdkpy_tool_use_response.sse",
    "anthropic/thinking_stream.sse",
    "anthropic/vercel_json_tool.chunks.jsonl",
    "anthropic/vercel_message_delta_input_tokens.chunks.jsonl",
    "anthropic/vercel_text_with_ping.chunks.jsonl",
    "anthropic/vercel_tool_use_no_args.chunks.jsonl",
];

fn config(base_url: String) -> ProviderConfig {
    ProviderConfig::new("anthropic", base_url)
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
    let provider = Anthropic::new(config(server.base_url_for(fixture))).expect("client");
    collect(&provider, user_params()).await
}

fn usage(input: u64, output: u64, cache: u64, total: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total,
        cache_tokens: cache,
    }
}

/// Checks a finished stream's usage: a `Usage` event equal to `Done`'s.
fn assert_usage(out: &Outcome, expected: Usage) {
    assert_eq!(out.done_usage(), Some(expected));
    assert_eq!(out.usage_event, Some(expected));
}
