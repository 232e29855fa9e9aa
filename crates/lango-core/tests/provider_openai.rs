//! OpenAI-compatible client: every recorded stream under `fixtures/openai/` and
//! `fixtures/openai-compatible/` replayed byte for byte, plus the request shape, the
//! conversation repairs (acceptance 63–65), start errors, `/models` and `/embeddings`.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use lango_core::provider::assembler::ToolCallAssembler;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, StopReason, StreamEvent,
    ToolCallRequest, ToolSpec, Usage,
};
use lango_core::secrets::ApiKey;
use lango_testkit::{fixtures_dir, FixtureServer, RecordedRequest, Reply, TestServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// Fast retries so the 5xx fixtures do not wait for real backoff.
fn fast_http() -> HttpSettings {
    HttpSettings {
        max_retries: 1,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        idle_timeout: Duration::from_secs(10),
        ..HttpSettings::default()
    }
}

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

async fn collect(provider: &OpenAiCompatible, params: GenerateParams) -> Vec<StreamEvent> {
    provider
        .generate(params, CancellationToken::new())
        .collect()
        .await
}

/// What a replayed stream amounted to.
#[derive(Debug)]
struct Outcome {
    text: String,
    thought: String,
    /// Assembled calls: (id, name, parsed arguments).
    calls: Vec<(String, String, Value)>,
    terminal: StreamEvent,
    requests: Vec<RecordedRequest>,
}

impl Outcome {
    fn assert_done(&self, usage: Option<Usage>) {
        let stop = StopReason::Finished;
        assert_eq!(
            self.terminal,
            StreamEvent::Done { usage, stop },
            "terminal event"
        );
    }

    /// Complete, but cut at the output limit (`finish_reason: "length"`).
    fn assert_truncated(&self, usage: Option<Usage>) {
        let stop = StopReason::OutputLimit;
        assert_eq!(
            self.terminal,
            StreamEvent::Done { usage, stop },
            "terminal event"
        );
    }

    fn assert_interrupted(&self, fragment: &str) {
        match &self.terminal {
            StreamEvent::Error(ProviderError::Interrupted { message }) => {
                assert!(
                    message.contains(fragment),
                    "message {message:?} lacks {fragment:?}"
                )
            }
            other => panic!("expected Interrupted containing {fragment:?}, got {other:?}"),
        }
    }

    fn assert_calls(&self, expected: &[(&str, &str, Value)]) {
        let expected: Vec<(String, String, Value)> = expected
            .iter()
            .map(|(id, name, args)| (id.to_string(), name.to_string(), args.clone()))
            .collect();
        assert_eq!(self.calls, expected, "assembled tool calls");
    }

    fn assert_no_text_thought_or_calls(&self) {
        assert_eq!(self.text, "");
        assert_eq!(self.thought, "");
        assert!(self.calls.is_empty(), "{:?}", self.calls);
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

/// Folds events into an outcome, checking the invariants every stream must keep: exactly one
/// terminal event and it comes last, no empty text or thought deltas, and `Done` carries the
/// last `Usage` event.
fn fold(events: Vec<StreamEvent>, requests: Vec<RecordedRequest>) -> Outcome {
    let (mut text, mut thought, mut assembler, mut last_usage) =
        (String::new(), String::new(), ToolCallAssembler::new(), None);
    let terminals = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error(_)))
        .count();
    assert_eq!(terminals, 1, "exactly one terminal event: {events:?}");
    let terminal = events.last().cloned().expect("at least one event");
    assert!(
        matches!(terminal, StreamEvent::Done { .. } | StreamEvent::Error(_)),
        "terminal last: {events:?}"
    );
    for event in &events {
        match event {
            StreamEvent::TextDelta(t) => {
                assert!(!t.is_empty(), "empty text delta");
                text.push_str(t);
            }
            StreamEvent::Thought(t) => {
                assert!(!t.is_empty(), "empty thought delta");
                thought.push_str(t);
            }
            StreamEvent::ToolCall(c) => assembler.push(c),
            StreamEvent::Usage(u) => last_usage = Some(*u),
            StreamEvent::Done { usage, .. } => {
                assert_eq!(*usage, last_usage, "Done carries the last usage")
            }
            StreamEvent::Error(_) => {}
        }
    }
    let calls = assembler
        .finish()
        .into_iter()
        .map(|c: ToolCallRequest| {
            let args = serde_json::from_str(&c.arguments).expect("assembled arguments are JSON");
            (c.id, c.name, args)
        })
        .collect();
    Outcome {
        text,
        thought,
        calls,
        terminal,
        requests,
    }
}

async fn replay(fixture: &str) -> Outcome {
    let server = FixtureServer::start().await;
    let provider = client(server.base_url_for(fixture));
    let events = collect(&provider, hello()).await;
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

/// Every fixture file these tests replay. `every_fixture_file_has_a_conformance_test` fails
/// when a file is added to the folders without a test here.
const COVERED: &[&str] = &[
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

fn list_fixtures(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            list_fixtures(root, &path, out);
            continue;
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".request.json") || name.starts_with("README") {
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(relative);
    }
}

#[test]
fn every_fixture_file_has_a_conformance_test() {
    let root = fixtures_dir();
    let mut on_disk = BTreeSet::new();
    for folder in ["openai", "openai-compatible"] {
        list_fixtures(&root, &root.join(folder), &mut on_disk);
    }
    let covered: BTreeSet<String> = COVERED.iter().map(|s| s.to_string()).collect();
    let untested: Vec<_> = on_disk.difference(&covered).collect();
    let missing: Vec<_> = covered.difference(&on_disk).collect();
    assert!(
        untested.is_empty(),
        "fixtures without a conformance test: {untested:?}"
    );
    assert!(
        missing.is_empty(),
        "tests for fixtures that no longer exist: {missing:?}"
    );
}

// ---------------------------------------------------------------------------------------
// openai/
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn openai_content_logprobs_stream() {
    let o = replay("openai/content_logprobs_stream.sse").await;
    assert_eq!(o.text, "Foo!");
    assert_eq!(o.thought, "");
    o.assert_calls(&[]);
    o.assert_done(usage(9, 2, 11, 0));
}

#[tokio::test]
async fn openai_finish_reason_length_stream_is_complete_but_cut_at_the_output_limit() {
    let o = replay("openai/finish_reason_length_stream.sse").await;
    assert_eq!(o.text, "{\"");
    o.assert_calls(&[]);
    o.assert_truncated(usage(79, 1, 80, 0));
}

#[tokio::test]
async fn openai_json_object_response_format_stream() {
    let o = replay("openai/json_object_response_format_stream.sse").await;
    assert_long_text(
        &o.text,
        608,
        "\n  {\n    \"location\": \"San Francisco, CA\"",
        "\"Cloudy\"\n      }\n    ]\n  }\n",
        0x9578_27f3_71a4_948d,
    );
    assert!(
        serde_json::from_str::<Value>(&o.text).is_ok(),
        "the streamed JSON object is whole"
    );
    o.assert_calls(&[]);
    o.assert_done(usage(19, 177, 196, 0));
}

#[tokio::test]
async fn openai_json_schema_response_format_stream() {
    let o = replay("openai/json_schema_response_format_stream.sse").await;
    assert_eq!(
        o.text,
        r#"{"city":"San Francisco","temperature":61,"units":"f"}"#
    );
    o.assert_calls(&[]);
    o.assert_done(usage(79, 14, 93, 0));
}

#[tokio::test]
async fn openai_multiple_choices_n3_stream_keeps_only_choice_0() {
    let o = replay("openai/multiple_choices_n3_stream.sse").await;
    assert_eq!(
        o.text,
        r#"{"city":"San Francisco","temperature":65,"units":"f"}"#
    );
    o.assert_calls(&[]);
    o.assert_done(usage(79, 42, 121, 0));
}

#[tokio::test]
async fn openai_parallel_tool_calls_stream() {
    let o = replay("openai/parallel_tool_calls_stream.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[
        (
            "call_JMW1whyEaYG438VE1OIflxA2",
            "GetWeatherArgs",
            json!({"city": "Edinburgh", "country": "GB", "units": "c"}),
        ),
        (
            "call_DNYTawLBoN8fj3KN6qU9N1Ou",
            "get_stock_price",
            json!({"ticker": "AAPL", "exchange": "NASDAQ"}),
        ),
    ]);
    o.assert_done(usage(149, 60, 209, 0));
}

#[tokio::test]
async fn openai_refusal_logprobs_stream_shows_the_refusal_as_text() {
    let o = replay("openai/refusal_logprobs_stream.sse").await;
    assert_eq!(o.text, "I'm very sorry, but I can't assist with that.");
    o.assert_calls(&[]);
    o.assert_done(usage(79, 12, 91, 0));
}

#[tokio::test]
async fn openai_refusal_stream_shows_the_refusal_as_text() {
    let o = replay("openai/refusal_stream.sse").await;
    assert_eq!(o.text, "I'm sorry, I can't assist with that request.");
    assert_eq!(o.thought, "");
    o.assert_calls(&[]);
    o.assert_done(usage(79, 11, 90, 0));
}

#[tokio::test]
async fn openai_text_stream_with_usage() {
    let o = replay("openai/text_stream_with_usage.sse").await;
    assert_eq!(
        o.text,
        "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend \
         checking a reliable weather website or a weather app."
    );
    assert_eq!(o.thought, "");
    o.assert_calls(&[]);
    o.assert_done(usage(14, 30, 44, 0));
}

#[tokio::test]
async fn openai_tool_call_non_strict_stream() {
    let o = replay("openai/tool_call_non_strict_stream.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call_4XzlGBLtUe9dy3GVNV4jhq7h",
        "get_weather",
        json!({"city": "New York City"}),
    )]);
    o.assert_done(usage(44, 16, 60, 0));
}

#[tokio::test]
async fn openai_tool_call_strict_pydantic_stream() {
    let o = replay("openai/tool_call_strict_pydantic_stream.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call_c91SqDXlYFuETYv8mUHzz6pp",
        "GetWeatherArgs",
        json!({"city": "Edinburgh", "country": "UK", "units": "c"}),
    )]);
    o.assert_done(usage(76, 24, 100, 0));
}

#[tokio::test]
async fn openai_tool_call_strict_stream() {
    let o = replay("openai/tool_call_strict_stream.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call_CTf1nWJLqSeRgDqaCG27xZ74",
        "get_weather",
        json!({"city": "San Francisco", "state": "CA"}),
    )]);
    o.assert_done(usage(48, 19, 67, 0));
}

#[tokio::test]
async fn openai_vercel_azure_model_router_ignores_the_empty_first_chunk() {
    let o = replay("openai/vercel_azure_model_router.chunks.jsonl").await;
    assert_eq!(o.text, "Capital of Denmark.");
    o.assert_calls(&[]);
    o.assert_done(usage(15, 78, 93, 0));
}

#[tokio::test]
async fn openai_vercel_text_gpt41nano_with_usage_ignores_usage_null() {
    let o = replay("openai/vercel_text_gpt41nano_with_usage.chunks.jsonl").await;
    assert_long_text(
        &o.text,
        1724,
        "**Holiday Name:** Harmony Day\n\n**Date:**",
        "ed human experiences and mutual respect.",
        0xbc17_797f_cd79_871a,
    );
    assert_eq!(o.thought, "");
    o.assert_calls(&[]);
    o.assert_done(usage(16, 300, 316, 0));
}

// ---------------------------------------------------------------------------------------
// openai-compatible/
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn compat_genai_github_copilot_gpt41mini_tool_stream() {
    let o = replay("openai-compatible/genai_github_copilot_gpt41mini_tool_stream.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call_YC2QMIr5bbEvqMl96iKr7oCN",
        "get_weather",
        json!({"city": "Paris", "country": "France", "unit": "C"}),
    )]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_groq_midstream_error_event_interrupts_after_the_reasoning() {
    let o = replay("openai-compatible/groq_midstream_error_event.sse").await;
    assert_eq!(o.text, "");
    assert_long_text(
        &o.thought,
        412,
        "We need to call the tool with invalid pa",
        "d call with name: \"test\". Let's do that.",
        0x5891_17ad_8306_ce4c,
    );
    o.assert_calls(&[]);
    o.assert_interrupted(
        "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not \
         match schema",
    );
    assert_eq!(o.requests.len(), 1, "a mid-stream error is never retried");
}

#[tokio::test]
async fn compat_vercel_anthropic_via_openai_compat_tool_call_index1() {
    let o =
        replay("openai-compatible/vercel_anthropic_via_openai_compat_tool_call_index1.sse").await;
    assert_eq!(o.text, "Reading it.");
    o.assert_calls(&[("toolu_sanitized", "read_file", json!({"path": "a.txt"}))]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_vercel_deepseek_reasoner_tool_call_usage_in_the_finish_chunk() {
    let o = replay("openai-compatible/vercel_deepseek_reasoner_tool_call.chunks.jsonl").await;
    assert_eq!(o.text, "");
    assert_eq!(
        o.thought,
        "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. \
         Let me invoke the weather tool with the location parameter set to \"San Francisco\"."
    );
    o.assert_calls(&[(
        "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
        "weather",
        json!({"location": "San Francisco"}),
    )]);
    o.assert_done(usage(339, 83, 422, 320));
}

#[tokio::test]
async fn compat_vercel_deepseek_reasoning_content() {
    let o = replay("openai-compatible/vercel_deepseek_reasoning_content.chunks.jsonl").await;
    assert_eq!(o.text, "The word \"strawberry\" contains three \"r\"s.");
    assert_long_text(
        &o.thought,
        606,
        "We need to count the number of the lette",
        "nd 9. So yes, 3.\n\nThus, the answer is 3.",
        0x6341_ba03_ab01_eafd,
    );
    o.assert_calls(&[]);
    o.assert_done(usage(18, 219, 237, 0));
}

#[tokio::test]
async fn compat_vercel_groq_tool_call_single_chunk() {
    let o = replay("openai-compatible/vercel_groq_tool_call_single_chunk.chunks.jsonl").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[("tk85n1k4m", "weather", json!({}))]);
    o.assert_done(usage(210, 15, 225, 0));
}

#[tokio::test]
async fn compat_vercel_mistral_api_glm_incremental_tool_call_keeps_the_name() {
    let o =
        replay("openai-compatible/vercel_mistral_api_glm_incremental_tool_call.chunks.jsonl").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "chatcmpl-tool-9f149c74c42f265b",
        "webSearchTool",
        json!({"query": "current Berlin weather"}),
    )]);
    o.assert_done(usage(171, 14, 185, 128));
}

#[tokio::test]
async fn compat_vercel_mistral_tool_call_no_index() {
    let o = replay("openai-compatible/vercel_mistral_tool_call_no_index.chunks.jsonl").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[("gSIMJiOkT", "weather", json!({"location": "San Francisco"}))]);
    o.assert_done(usage(124, 22, 146, 0));
}

#[tokio::test]
async fn compat_vercel_xai_grok3mini_reasoning_tool_call() {
    let o = replay("openai-compatible/vercel_xai_grok3mini_reasoning_tool_call.chunks.jsonl").await;
    assert_eq!(o.text, "");
    assert_long_text(
        &o.thought,
        1069,
        "First, the user is asking about the weat",
        " for now, this is the logical next step.",
        0x31ee_df7e_8389_a895,
    );
    o.assert_calls(&[(
        "call_79382389",
        "weather",
        json!({"location": "San Francisco"}),
    )]);
    // xAI's total counts the reasoning tokens that completion_tokens leaves out: kept as sent.
    o.assert_done(usage(307, 26, 560, 306));
}

// --- llama-cpp-python/ ---

#[tokio::test]
async fn compat_llama_cpp_python_auto_tool_choice_stream_empty_body_http200_is_an_interruption() {
    let o =
        replay("openai-compatible/llama-cpp-python/auto_tool_choice_stream_EMPTY_BODY_http200.sse")
            .await;
    o.assert_no_text_thought_or_calls();
    o.assert_interrupted("the provider returned an empty response");
}

#[tokio::test]
async fn compat_llama_cpp_python_auto_tool_choice_stream_gguf_template_tools_ignored() {
    let o = replay("openai-compatible/llama-cpp-python/auto_tool_choice_stream_gguf_template_tools_ignored.sse").await;
    assert_eq!(
        o.text,
        "The weather in Paris is mostly sunny, with a moderate temperature of 25°C (70°F). The sky is clear and the \
         air is filled with the scent of blooming flowers. The sun shines brightly during the day, but it's not too \
         hot for the city to be considered as an outdoor venue."
    );
    o.assert_calls(&[]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_llama_cpp_python_error_http500_assistant_content_null() {
    let o = replay("openai-compatible/llama-cpp-python/error_http500_assistant_content_null.json")
        .await;
    o.assert_no_text_thought_or_calls();
    match &o.terminal {
        StreamEvent::Error(ProviderError::Server {
            status: 500,
            message,
        }) => {
            assert!(message.starts_with("7 validation errors:"), "{message}");
            assert!(message.chars().count() <= 500, "the message is capped");
        }
        other => panic!("expected Server 500, got {other:?}"),
    }
    assert_eq!(
        o.requests.len(),
        2,
        "a 5xx is retried before the stream starts"
    );
}

#[tokio::test]
async fn compat_llama_cpp_python_error_http500_validation_messages_not_list() {
    let o = replay(
        "openai-compatible/llama-cpp-python/error_http500_validation_messages_not_list.json",
    )
    .await;
    o.assert_no_text_thought_or_calls();
    match &o.terminal {
        StreamEvent::Error(ProviderError::Server {
            status: 500,
            message,
        }) => {
            assert!(message.starts_with("1 validation error:"), "{message}");
            assert!(
                message.contains("Input should be a valid list"),
                "{message}"
            );
        }
        other => panic!("expected Server 500, got {other:?}"),
    }
}

#[tokio::test]
async fn compat_llama_cpp_python_forced_tool_choice_stream_chatml_function_calling() {
    let o = replay(
        "openai-compatible/llama-cpp-python/forced_tool_choice_stream_chatml_function_calling.sse",
    )
    .await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call__0_get_weather_cmpl-e69ef23f-49f2-48c8-9b36-471932d08016",
        "get_weather",
        json!({"city": "Paris"}),
    )]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_llama_cpp_python_forced_tool_choice_stream_gguf_template_repeats_id_and_name() {
    let o =
        replay("openai-compatible/llama-cpp-python/forced_tool_choice_stream_gguf_template.sse")
            .await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "call__0_get_weather_cmpl-5babc0b8-f0e0-4b87-bd52-40a02a938339",
        "get_weather",
        json!({"city": "Paris"}),
    )]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_llama_cpp_python_text_stream_temp0_without_usage() {
    let o = replay("openai-compatible/llama-cpp-python/text_stream_temp0.sse").await;
    assert_eq!(o.text, "The capital of France is Paris.");
    o.assert_calls(&[]);
    o.assert_done(None);
}

#[tokio::test]
async fn compat_llama_cpp_python_tool_result_followup_stream_stops_at_the_output_limit() {
    let o = replay("openai-compatible/llama-cpp-python/tool_result_followup_stream.sse").await;
    assert_eq!(
        o.text,
        "The weather in Paris is a classic example of how to create a function that returns the current weather \
         condition. In Python, you can use the `get_weather` function from the `pydance-python` library to achieve \
         this:\n```python\ndef get_weather(city):\n    return {\n        \""
    );
    o.assert_calls(&[]);
    o.assert_truncated(None);
}

// --- llama-server/ ---

#[tokio::test]
async fn compat_llama_server_auto_tool_choice_model_answered_text() {
    let o = replay("openai-compatible/llama-server/auto_tool_choice_model_answered_text.sse").await;
    assert_eq!(o.text, "The weather in Paris is Paris.");
    o.assert_calls(&[]);
    o.assert_done(usage(126, 8, 134, 125));
}

async fn assert_bad_request(fixture: &str, expected: &str) {
    let o = replay(fixture).await;
    o.assert_no_text_thought_or_calls();
    assert_eq!(
        o.terminal,
        StreamEvent::Error(ProviderError::BadRequest {
            message: expected.into()
        })
    );
    assert_eq!(o.requests.len(), 1, "a 400 is not retried");
}

#[tokio::test]
async fn compat_llama_server_error_http400_exceed_context_size() {
    assert_bad_request(
        "openai-compatible/llama-server/error_http400_exceed_context_size.json",
        "request (6010 tokens) exceeds the available context size (4096 tokens), try increasing it",
    )
    .await;
}

#[tokio::test]
async fn compat_llama_server_error_http400_invalid_json() {
    assert_bad_request(
        "openai-compatible/llama-server/error_http400_invalid_json.json",
        "[json.exception.parse_error.101] parse error at line 1, column 31: syntax error while parsing value - \
         unexpected end of input; expected '[', '{', or a literal",
    )
    .await;
}

#[tokio::test]
async fn compat_llama_server_error_http400_messages_missing() {
    assert_bad_request(
        "openai-compatible/llama-server/error_http400_messages_missing.json",
        "'messages' is required",
    )
    .await;
}

#[tokio::test]
async fn compat_llama_server_midstream_error_event_http200_tool_result_turn() {
    let o =
        replay("openai-compatible/llama-server/midstream_error_event_http200_tool_result_turn.sse")
            .await;
    o.assert_no_text_thought_or_calls();
    assert_eq!(
        o.terminal,
        StreamEvent::Error(ProviderError::Interrupted {
            message: "The model produced output that does not match the expected peg-native format"
                .into()
        })
    );
}

#[tokio::test]
async fn compat_llama_server_text_stream_with_usage_and_timings() {
    let o = replay("openai-compatible/llama-server/text_stream_with_usage_and_timings.sse").await;
    assert_eq!(o.text, "The capital of France is Paris.");
    o.assert_calls(&[]);
    o.assert_done(usage(32, 8, 40, 0));
}

#[tokio::test]
async fn compat_llama_server_tool_call_stream_prefill() {
    let o = replay("openai-compatible/llama-server/tool_call_stream_prefill.sse").await;
    assert_eq!(o.text, "");
    o.assert_calls(&[(
        "biPMc6ltSVU2LtWzuuW650rMILrxCjAh",
        "get_weather",
        json!({"city": "Paris"}),
    )]);
    o.assert_done(usage(141, 4, 145, 0));
}

#[tokio::test]
async fn compat_llama_server_tool_result_followup_stream_tool_choice_none() {
    let o =
        replay("openai-compatible/llama-server/tool_result_followup_stream_tool_choice_none.sse")
            .await;
    assert_eq!(
        o.text,
        "The weather in Paris is indeed quite unusual. The temperature in Paris is currently at 18 degrees Celsius, \
         while the sky is cloudy."
    );
    o.assert_calls(&[]);
    o.assert_done(usage(161, 29, 190, 160));
}

// ---------------------------------------------------------------------------------------
// Request shape
// ---------------------------------------------------------------------------------------

fn weather_call() -> ToolCallRequest {
    ToolCallRequest {
        id: "call_1".into(),
        name: "get_weather".into(),
        arguments: r#"{"city":"Paris"}"#.into(),
        ..Default::default()
    }
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "get_weather".into(),
        description: "Get the current weather for a city".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }),
    }
}

/// Sends `params` to a server replaying a short text stream; returns the recorded request.
async fn send_and_record(params: GenerateParams, key: Option<&str>) -> RecordedRequest {
    let server = FixtureServer::start().await;
    let mut config = ProviderConfig::new(
        "openai-test",
        server.base_url_for("openai/content_logprobs_stream.sse"),
    )
    .with_default_model("gpt-4o")
    .with_http(fast_http());
    if let Some(key) = key {
        config = config.with_key(ApiKey::new(key));
    }
    let provider = OpenAiCompatible::new(config).expect("client");
    let events: Vec<StreamEvent> = provider
        .generate(params, CancellationToken::new())
        .collect()
        .await;
    assert!(
        matches!(events.last(), Some(StreamEvent::Done { .. })),
        "{events:?}"
    );
    let mut requests = server.requests();
    assert_eq!(requests.len(), 1);
    requests.remove(0)
}

#[tokio::test]
async fn request_body_for_a_tool_turn_is_exactly_the_chat_completions_shape() {
    let params = GenerateParams {
        model: "gpt-4o-mini".into(),
        messages: vec![
            Message::system("You are Lango."),
            Message::user("Weather in Paris?"),
            Message {
                tool_calls: vec![weather_call()],
                ..Message::assistant("")
            },
            Message::tool_result("call_1", "get_weather", r#"{"temp_c":18}"#),
            Message::system("Be brief."),
        ],
        tools: vec![
            weather_tool(),
            ToolSpec {
                name: "search".into(),
                description: "Search".into(),
                parameters: json!({"type":"object","properties":{"q":{}}}),
            },
        ],
        temperature: Some(0.0),
        max_tokens: Some(256),
    };
    let request = send_and_record(params, Some("sk-test-key")).await;
    let expected = json!({
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are Lango."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\":18}"},
            {"role": "system", "content": "Be brief."}
        ],
        "stream": true,
        "stream_options": {"include_usage": true},
        "tools": [
            {"type": "function", "function": {
                "name": "get_weather",
                "description": "Get the current weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false},
                "strict": true
            }},
            {"type": "function", "function": {
                "name": "search", "description": "Search",
                "parameters": {"type": "object", "properties": {"q": {}}},
                "strict": false
            }}
        ],
        "temperature": 0.0,
        "max_tokens": 256
    });
    assert_eq!(request.json(), expected);
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    let agent = request.header("user-agent").unwrap_or_default();
    assert!(agent.starts_with("lango/"), "User-Agent {agent:?}");
}

#[tokio::test]
async fn unset_temperature_and_max_tokens_are_omitted_and_no_key_means_no_authorization() {
    let request = send_and_record(hello(), None).await;
    let body = request.json();
    assert_eq!(
        body["model"], "gpt-4o",
        "empty model → the configured default"
    );
    assert!(body.get("temperature").is_none(), "{body}");
    assert!(body.get("max_tokens").is_none(), "{body}");
    assert!(
        body.get("tools").is_none(),
        "no tools → no tools key: {body}"
    );
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn tool_turn_messages_match_what_llama_cpp_python_accepted() {
    // The request body that produced tool_result_followup_stream.sse: assistant content ""
    // (not null, which error_http500_assistant_content_null shows it rejects).
    let path = fixtures_dir()
        .join("openai-compatible/llama-cpp-python/tool_result_followup_stream.request.json");
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("request fixture"))
            .expect("JSON");
    let params = GenerateParams {
        messages: vec![
            Message::user("What is the weather in Paris?"),
            Message {
                tool_calls: vec![ToolCallRequest {
                    arguments: r#"{"city": "Paris"}"#.into(),
                    ..weather_call()
                }],
                ..Message::assistant("")
            },
            Message::tool_result(
                "call_1",
                "get_weather",
                r#"{"temp_c": 18, "sky": "cloudy"}"#,
            ),
        ],
        ..Default::default()
    };
    let request = send_and_record(params, None).await;
    assert!(recorded["messages"].is_array(), "{recorded}");
    assert_eq!(request.json()["messages"], recorded["messages"]);
}

// ---------------------------------------------------------------------------------------
// Repairs before sending (acceptance 63–65)
// ---------------------------------------------------------------------------------------

fn roles_and_ids(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default();
            match role {
                "tool" => format!("tool:{}", m["tool_call_id"].as_str().unwrap_or_default()),
                "assistant" => {
                    let ids: Vec<&str> = m
                        .get("tool_calls")
                        .and_then(Value::as_array)
                        .map(|c| c.iter().filter_map(|c| c["id"].as_str()).collect())
                        .unwrap_or_default();
                    format!("assistant:{}", ids.join("+"))
                }
                other => other.to_string(),
            }
        })
        .collect()
}

fn call(id: &str, thought: bool) -> ToolCallRequest {
    ToolCallRequest {
        id: id.into(),
        name: "exec".into(),
        arguments: "{}".into(),
        thought,
        ..Default::default()
    }
}

fn assistant(calls: Vec<ToolCallRequest>) -> Message {
    Message {
        tool_calls: calls,
        ..Message::assistant("")
    }
}

#[tokio::test]
async fn acceptance_63_orphaned_call_gets_a_synthetic_interrupted_result_on_the_wire() {
    let params = GenerateParams {
        messages: vec![
            assistant(vec![call("call_orphan", false)]),
            Message::user("go on"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        ["assistant:call_orphan", "tool:call_orphan", "user"]
    );
    let result: Value =
        serde_json::from_str(body["messages"][1]["content"].as_str().expect("content"))
            .expect("JSON");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("interrupted")),
        "{result}"
    );
}

#[tokio::test]
async fn acceptance_63_partially_answered_turn_gets_the_synthetic_result_first() {
    let params = GenerateParams {
        messages: vec![
            assistant(vec![call("call_a", false), call("call_b", false)]),
            Message::tool_result("call_a", "exec", "a done"),
            Message::user("go on"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        [
            "assistant:call_a+call_b",
            "tool:call_b",
            "tool:call_a",
            "user"
        ]
    );
    assert_eq!(body["messages"][2]["content"], "a done");
}

#[tokio::test]
async fn acceptance_63_pending_and_matched_calls_are_sent_unchanged() {
    let pending = GenerateParams {
        messages: vec![Message::user("q"), assistant(vec![call("call_1", false)])],
        ..hello()
    };
    assert_eq!(
        roles_and_ids(&send_and_record(pending, None).await.json()),
        ["user", "assistant:call_1"]
    );
    let matched = GenerateParams {
        messages: vec![
            assistant(vec![call("call_1", false)]),
            Message::tool_result("call_1", "exec", "ok"),
            Message::user("q"),
        ],
        ..hello()
    };
    assert_eq!(
        roles_and_ids(&send_and_record(matched, None).await.json()),
        ["assistant:call_1", "tool:call_1", "user"]
    );
}

#[tokio::test]
async fn acceptance_64_thought_calls_and_their_results_are_not_sent() {
    let params = GenerateParams {
        messages: vec![
            Message::user("q"),
            assistant(vec![call("call_thought", true), call("call_real", false)]),
            Message::tool_result("call_thought", "exec", "t"),
            Message::tool_result("call_real", "exec", "r"),
            Message::user("next"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        ["user", "assistant:call_real", "tool:call_real", "user"]
    );
}

#[tokio::test]
async fn acceptance_64_an_assistant_with_only_thought_calls_sends_no_tool_calls() {
    let params = GenerateParams {
        messages: vec![
            Message::user("q"),
            assistant(vec![call("call_thought", true)]),
            Message::tool_result("call_thought", "exec", "t"),
            Message::user("next"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": ""})
    );
}

#[tokio::test]
async fn acceptance_65_strict_flags_and_nameless_tools_on_the_wire() {
    let tool = |name: &str, parameters: Value| ToolSpec {
        name: name.into(),
        description: String::new(),
        parameters,
    };
    let closed = json!({"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false});
    let params = GenerateParams {
        tools: vec![
            tool("all_required", closed),
            tool(
                "optional",
                json!({"type":"object","properties":{"a":{},"b":{}},"required":["a"],"additionalProperties":false}),
            ),
            tool("", json!({})),
            tool(
                "open",
                json!({"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":true}),
            ),
            tool(
                "no_ap",
                json!({"type":"object","properties":{"a":{}},"required":["a"]}),
            ),
            tool("no_schema", Value::Null),
            tool(
                "no_properties",
                json!({"type":"object","additionalProperties":false}),
            ),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    let flags: Vec<(String, bool)> = body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                t["function"]["strict"].as_bool().expect("strict"),
            )
        })
        .collect();
    let expected: Vec<(String, bool)> = [
        ("all_required", true),
        ("optional", false),
        ("open", false),
        ("no_ap", false),
        ("no_schema", false),
        ("no_properties", true),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), *s))
    .collect();
    assert_eq!(flags, expected);
}

// ---------------------------------------------------------------------------------------
// Start errors, models, embeddings
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_model_without_tool_support_is_reported_as_unsupported_with_advice() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            400,
            "application/json",
            r#"{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error","param":null,"code":null}}"#,
        )
    })
    .await;
    let provider = client(format!("{}/v1", server.base_url()));
    let params = GenerateParams {
        model: "gemma:2b".into(),
        tools: vec![weather_tool()],
        ..hello()
    };
    let events = collect(&provider, params).await;
    match events.as_slice() {
        [StreamEvent::Error(ProviderError::Unsupported { message })] => {
            assert!(message.contains("\"gemma:2b\""), "{message}");
            assert!(message.contains("tool-capable model"), "{message}");
        }
        other => panic!("expected one Unsupported error, got {other:?}"),
    }
}

#[tokio::test]
async fn list_models_reads_data_ids_with_the_key() {
    let server = TestServer::start(|_, _| {
        Reply::full(200, "application/json", r#"{"object":"list","data":[{"id":"gpt-4o","object":"model"},{"id":"o3-mini","object":"model"}]}"#)
    })
    .await;
    let provider = client(format!("{}/v1", server.base_url()));
    let models = provider.list_models().await.expect("models");
    assert_eq!(
        models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        ["gpt-4o", "o3-mini"]
    );
    let request = &server.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-key"));
}

#[tokio::test]
async fn list_models_with_an_unexpected_body_is_an_error_not_an_empty_list() {
    let server =
        TestServer::start(|_, _| Reply::full(200, "application/json", r#"{"models":[]}"#)).await;
    let provider = client(format!("{}/v1", server.base_url()));
    assert!(matches!(
        provider.list_models().await,
        Err(ProviderError::Interrupted { .. })
    ));
}

#[tokio::test]
async fn embed_posts_the_inputs_and_orders_vectors_by_index() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            r#"{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.5,-1.0]},{"object":"embedding","index":0,"embedding":[0.25,2.0]}],"model":"text-embedding-3-small"}"#,
        )
    })
    .await;
    let config = ProviderConfig::new("openai-test", format!("{}/v1", server.base_url()))
        .with_default_model("text-embedding-3-small")
        .with_http(fast_http());
    let provider = OpenAiCompatible::new(config).expect("client");
    let vectors = provider
        .embed(vec!["first".into(), "second".into()])
        .await
        .expect("embeddings");
    assert_eq!(vectors, vec![vec![0.25, 2.0], vec![0.5, -1.0]]);
    let request = &server.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/embeddings")
    );
    assert_eq!(
        request.json(),
        json!({"model": "text-embedding-3-small", "input": ["first", "second"]})
    );
}

#[tokio::test]
async fn embed_with_a_missing_vector_is_an_error() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            r#"{"data":[{"index":0,"embedding":[1.0]}]}"#,
        )
    })
    .await;
    let provider = client(format!("{}/v1", server.base_url()));
    let result = provider.embed(vec!["a".into(), "b".into()]).await;
    assert!(
        matches!(result, Err(ProviderError::Interrupted { ref message }) if message.contains("2")),
        "{result:?}"
    );
}

#[test]
fn a_base_url_that_is_not_http_is_a_config_error() {
    let result = OpenAiCompatible::new(ProviderConfig::new("x", "localhost:1234/v1"));
    assert!(
        matches!(result, Err(ProviderError::Config { .. })),
        "{result:?}"
    );
}
