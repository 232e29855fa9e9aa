//! OpenAI-compatible client: every recorded stream under `fixtures/openai/` and
//! `fixtures/openai-compatible/` replayed byte for byte, plus the request shape, the
//! conversation repairs (acceptance 63–65), start errors, `/models` and `/embeddings`.

use futures_util::StreamExt;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, StreamEvent, ToolCallRequest,
    ToolSpec, Usage,
};
use lango_core::secrets::ApiKey;

mod compatible;
mod official;
mod repairs;
mod requests;

use super::harness::{events, fast_http, fold, user_shows_an_image, Outcome, RED_PIXEL_PNG};
use lango_testkit::{fixtures_dir, FixtureServer, RecordedRequest, Reply, TestServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

fn client(base_url: String) -> OpenAiCompatible {
    let config = ProviderConfig::new("openai-test", base_url)
        .with_default_model("gpt-4o")
        .with_key(ApiKey::new("sk-test-key"))
        .with_http(fast_http());
    OpenAiCompatible::new(config).expect("client")
}

fn hello() -> GenerateParams {
    GenerateParams {
        messages: vec![Message::user("hello")],
        ..Default::default()
    }
}

fn usage(input: u64, output: u64, total: u64, cache: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total,
        cache_tokens: cache,
    })
}

async fn replay(fixture: &str) -> Outcome {
    let server = FixtureServer::start().await;
    let provider = client(server.base_url_for(fixture));
    let events = events(&provider, hello()).await;
    let requests = server.requests();
    assert!(!requests.is_empty(), "no request reached the server");
    for r in &requests {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, format!("/replay/{fixture}/chat/completions"));
    }
    fold(events, requests)
}

/// FNV-1a 64 of a long text, so a long answer is checked exactly without pasting it here.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn assert_long_text(actual: &str, chars: usize, head: &str, tail: &str, hash: u64) {
    assert_eq!(actual.chars().count(), chars, "length of {actual:?}");
    assert!(
        actual.starts_with(head),
        "{actual:?} should start with {head:?}"
    );
    assert!(
        actual.ends_with(tail),
        "{actual:?} should end with {tail:?}"
    );
    assert_eq!(fnv1a(actual), hash, "exact content of {actual:?}");
}

// ---------------------------------------------------------------------------------------
// Every fixture has a test
// ---------------------------------------------------------------------------------------

/// Every fixture file these tests replay. `common::every_fixture_file_has_a_test` fails
/// when a file is added to the folders without a test here.
pub const COVERED: &[&str] = &[
    "openai/content_logprobs_stream.sse",
    "openai/finish_reason_length_stream.sse",
    "openai/json_object_response_format_stream.sse",
    "openai/json_schema_response_format_stream.sse",
    "openai/multiple_choices_n3_stream.sse",
    "openai/parallel_tool_calls_stream.sse",
    "openai/refusal_logprobs_stream.sse",
    "openai/refusal_stream.sse",
    "openai/text_stream_with_usage.sse",
    "openai/tool_call_non_strict_stream.sse",
    "openai/tool_call_strict_pydantic_stream.sse",
    "openai/tool_call_strict_stream.sse",
    "openai/vercel_azure_model_router.chunks.jsonl",
    "openai/vercel_text_gpt41nano_with_usage.chunks.jsonl",
    "openai-compatible/genai_github_copilot_gpt41mini_tool_stream.sse",
    "openai-compatible/groq_midstream_error_event.sse",
    "openai-compatible/vercel_anthropic_via_openai_compat_tool_call_index1.sse",
    "openai-compatible/vercel_deepseek_reasoner_tool_call.chunks.jsonl",
    "openai-compatible/vercel_deepseek_reasoning_content.chunks.jsonl",
    "openai-compatible/vercel_groq_tool_call_single_chunk.chunks.jsonl",
    "openai-compatible/vercel_mistral_api_glm_incremental_tool_call.chunks.jsonl",
    "openai-compatible/vercel_mistral_tool_call_no_index.chunks.jsonl",
    "openai-compatible/vercel_xai_grok3mini_reasoning_tool_call.chunks.jsonl",
    "openai-compatible/llama-cpp-python/auto_tool_choice_stream_EMPTY_BODY_http200.sse",
    "openai-compatible/llama-cpp-python/auto_tool_choice_stream_gguf_template_tools_ignored.sse",
    "openai-compatible/llama-cpp-python/error_http500_assistant_content_null.json",
    "openai-compatible/llama-cpp-python/error_http500_validation_messages_not_list.json",
    "openai-compatible/llama-cpp-python/forced_tool_choice_stream_chatml_function_calling.sse",
    "openai-compatible/llama-cpp-python/forced_tool_choice_stream_gguf_template.sse",
    "openai-compatible/llama-cpp-python/text_stream_temp0.sse",
    "openai-compatible/llama-cpp-python/tool_result_followup_stream.sse",
    "openai-compatible/llama-server/auto_tool_choice_model_answered_text.sse",
    "openai-compatible/llama-server/error_http400_exceed_context_size.json",
    "openai-compatible/llama-server/error_http400_invalid_json.json",
    "openai-compatible/llama-server/error_http400_messages_missing.json",
    "openai-compatible/llama-server/midstream_error_event_http200_tool_result_turn.sse",
    "openai-compatible/llama-server/text_stream_with_usage_and_timings.sse",
    "openai-compatible/llama-server/tool_call_stream_prefill.sse",
    "openai-compatible/llama-server/tool_result_followup_stream_tool_choice_none.sse",
];
