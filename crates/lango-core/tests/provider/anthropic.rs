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

use super::harness::{collect, user_says, Outcome};
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
        .with_http(HttpSettings {
            max_retries: 0,
            idle_timeout: Duration::from_secs(10),
            ..HttpSettings::default()
        })
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

// ---------------------------------------------------------------- conformance (fixtures)

#[tokio::test]
async fn error_overloaded_event_ends_the_stream_as_interrupted_naming_overloaded() {
    let out = replay("anthropic/error_overloaded_event.sse").await;
    assert!(
        matches!(out.error(), ProviderError::Interrupted { message } if message.contains("Overloaded")),
        "{:?}",
        out.terminal
    );
    assert_eq!(out.text, "");
    assert!(out.calls.is_empty());
    assert_eq!(out.usage_event, None);
}

#[tokio::test]
async fn genai_haiku45_usage_stream_text_and_usage_with_padding_and_ping() {
    let out = replay("anthropic/genai_haiku45_usage_stream.sse").await;
    assert_eq!(
        out.text,
        "The sky is blue because sunlight scatters off nitrogen and oxygen molecules in the atmosphere, and blue light scatters more efficiently than other colors."
    );
    assert_eq!(out.thought, "");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(19, 34, 0, 53));
}

#[tokio::test]
async fn llama_server_error_http400_exceed_context_size_openai_shaped_is_a_bad_request_with_the_message(
) {
    let out =
        replay("anthropic/llama-server/error_http400_exceed_context_size_OPENAI_SHAPED.json").await;
    assert!(
        matches!(out.error(), ProviderError::BadRequest { message } if message.contains("exceeds the available context size")),
        "{:?}",
        out.terminal
    );
    assert_eq!(out.text, "");
}

#[tokio::test]
async fn llama_server_text_stream_counts_cache_reads() {
    let out = replay("anthropic/llama-server/text_stream.sse").await;
    assert_eq!(out.text, "The capital of France is Paris.");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(1, 8, 31, 40));
}

#[tokio::test]
async fn llama_server_tool_result_followup_stream_text() {
    let out = replay("anthropic/llama-server/tool_result_followup_stream.sse").await;
    assert_eq!(
        out.text,
        "The weather in Paris is indeed quite unusual. The temperature in Paris is currently at 18 degrees Celsius, while the sky is cloudy."
    );
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(1, 29, 160, 190));
}

#[tokio::test]
async fn llama_server_tool_use_stream_prefill_start_without_input_assembles_the_call() {
    let out = replay("anthropic/llama-server/tool_use_stream_prefill.sse").await;
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [(
            "MzTFU18YsL8NVAJJCqA7FBAmpJ3cYE4I".to_string(),
            "get_weather".to_string(),
            json!({"city": "Paris"})
        )]
    );
    assert_usage(&out, usage(1, 4, 140, 145));
}

#[tokio::test]
async fn redacted_thinking_stream_keeps_only_the_text() {
    let out = replay("anthropic/redacted_thinking_stream.sse").await;
    assert!(
        out.text.starts_with(
            "I notice that you've sent what appears to be some kind of test string or command."
        ),
        "{}",
        out.text
    );
    assert!(
        out.text
            .ends_with("How can I assist you today with a legitimate task or question?"),
        "{}",
        out.text
    );
    assert_eq!(out.text.chars().count(), 359);
    assert_eq!(out.thought, "", "redacted thinking has no text");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(92, 189, 0, 281));
}

#[tokio::test]
async fn sdkpy_basic_response_text_and_usage_with_the_last_event_ended_by_eof() {
    let out = replay("anthropic/sdkpy_basic_response.sse").await;
    assert_eq!(out.text, "Hello there!");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(11, 6, 0, 17));
}

#[tokio::test]
async fn sdkpy_incomplete_partial_json_response_keeps_the_text_and_gives_the_cut_call_empty_args() {
    let out = replay("anthropic/sdkpy_incomplete_partial_json_response.sse").await;
    assert_eq!(
        out.text,
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."
    );
    // The tool JSON stops mid-string (max_tokens): the assembler turns it into {}.
    assert_eq!(
        out.calls(),
        [(
            "toolu_01EKqbqmZrGRXy18eN7m9kvY".to_string(),
            "make_file".to_string(),
            json!({})
        )]
    );
    assert_usage(&out, usage(450, 124, 0, 574));
}

#[tokio::test]
async fn sdkpy_refusal_response_finishes_normally_with_no_text() {
    let out = replay("anthropic/sdkpy_refusal_response.sse").await;
    assert_eq!(out.text, "");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(20, 0, 0, 20));
}

// Acceptance 67: text, one call at index 1 from fragments "", `{"locati`, `on": "P`, `ar`, `is"}`, usage 377/65.
#[tokio::test]
async fn sdkpy_tool_use_response_text_then_call_assembled_from_fragments() {
    let out = replay("anthropic/sdkpy_tool_use_response.sse").await;
    assert_eq!(out.text, "I'll check the current weather in Paris for you.");
    assert_eq!(
        out.calls(),
        [(
            "toolu_01NRLabsLyVHZPKxbKvkfSMn".to_string(),
            "get_weather".to_string(),
            json!({"location": "Paris"})
        )]
    );
    assert_usage(&out, usage(377, 65, 0, 442));
}

#[tokio::test]
async fn thinking_stream_thinking_is_a_thought_and_never_text() {
    let out = replay("anthropic/thinking_stream.sse").await;
    assert_eq!(
        out.thought,
        "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely cross a street. This is basic safety information that could help prevent accidents."
    );
    assert!(
        out.text.starts_with(
            "Here are the basic steps for safely crossing the street:\n\n**At intersections wit"
        ),
        "{}",
        out.text
    );
    assert!(
        out.text
            .ends_with("Always prioritize safety over speed when crossing streets."),
        "{}",
        out.text
    );
    assert_eq!(out.text.chars().count(), 1021);
    assert!(!out.text.contains("pedestrian safety. I should"));
    assert_usage(&out, usage(43, 282, 0, 325));
}

#[tokio::test]
async fn vercel_json_tool_call_as_the_first_block() {
    let out = replay("anthropic/vercel_json_tool.chunks.jsonl").await;
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [(
            "toolu_01KFbKqPYSuAKujiL6mTfzYA".to_string(),
            "json".to_string(),
            json!({"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]})
        )]
    );
    assert_usage(&out, usage(849, 47, 0, 896));
}

#[tokio::test]
async fn vercel_message_delta_input_tokens_override_message_start() {
    let out = replay("anthropic/vercel_message_delta_input_tokens.chunks.jsonl").await;
    assert_eq!(out.text, "pong");
    assert_usage(&out, usage(61, 2, 0, 63));
}

#[tokio::test]
async fn vercel_text_with_ping_between_deltas() {
    let out = replay("anthropic/vercel_text_with_ping.chunks.jsonl").await;
    assert_eq!(out.text, "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    assert_usage(&out, usage(12, 30, 0, 42));
}

#[tokio::test]
async fn vercel_tool_use_no_args_gives_an_empty_object() {
    let out = replay("anthropic/vercel_tool_use_no_args.chunks.jsonl").await;
    assert_eq!(out.text, "I'll update the issue list for you.");
    assert_eq!(
        out.calls(),
        [(
            "toolu_01QE1WLsSVp5hy5Q3GmGTmjP".to_string(),
            "updateIssueList".to_string(),
            json!({})
        )]
    );
    assert_usage(&out, usage(565, 48, 0, 613));
}

// ---------------------------------------------------------------- request shape

/// Runs `params` against a fixture and returns the one recorded request.
async fn recorded(
    params: GenerateParams,
    cfg: impl FnOnce(String) -> ProviderConfig,
) -> lango_testkit::RecordedRequest {
    let server = FixtureServer::start().await;
    let provider = Anthropic::new(cfg(
        server.base_url_for("anthropic/sdkpy_basic_response.sse")
    ))
    .expect("client");
    let out = collect(&provider, params).await;
    assert_eq!(out.text, "Hello there!");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    requests.into_iter().next().expect("one request")
}

fn weather_turns() -> Vec<Message> {
    vec![
        Message::system("S"),
        Message::user("weather?"),
        Message {
            tool_calls: vec![ToolCallRequest {
                id: "toolu_1".into(),
                name: "get_weather".into(),
                arguments: "{\"location\":\"Paris\"}".into(),
                ..ToolCallRequest::default()
            }],
            ..Message::assistant("Checking")
        },
        Message::tool_result("toolu_1", "get_weather", "{\"temp\":21}"),
    ]
}

#[tokio::test]
async fn acceptance_66_tool_turns_become_tool_use_and_one_tool_result_message() {
    let req = recorded(
        GenerateParams {
            messages: weather_turns(),
            ..GenerateParams::default()
        },
        config,
    )
    .await;
    assert_eq!(
        req.json(),
        json!({
            "model": MODEL,
            "max_tokens": 4096,
            "stream": true,
            "system": "S",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking"},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"temp\":21}"}]}
            ]
        })
    );
}

#[tokio::test]
async fn a_second_system_message_reaches_the_system_text_with_tools_and_options() {
    let mut messages = weather_turns();
    messages.push(Message::system(
        "[Compacted Summary]\nThe user lives in Paris.",
    ));
    messages.push(Message::user("and tomorrow?"));
    let schema = json!({"type": "object", "properties": {"location": {"type": "string", "description": "City"}}, "required": ["location"], "additionalProperties": false});
    let params = GenerateParams {
        model: "claude-haiku-4-5".into(),
        messages,
        tools: vec![
            ToolSpec {
                name: "get_weather".into(),
                description: "Weather for a city".into(),
                parameters: schema.clone(),
            },
            ToolSpec {
                name: String::new(),
                description: "nameless: skipped".into(),
                parameters: json!({}),
            },
        ],
        temperature: Some(0.5),
        max_tokens: Some(256),
    };
    let req = recorded(params, config).await;
    assert_eq!(
        req.json(),
        json!({
            "model": "claude-haiku-4-5",
            "max_tokens": 256,
            "stream": true,
            "temperature": 0.5,
            "system": "S\n\n[Compacted Summary]\nThe user lives in Paris.",
            "tools": [{"name": "get_weather", "description": "Weather for a city", "input_schema": schema}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking"},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"temp\":21}"},
                    {"type": "text", "text": "and tomorrow?"}
                ]}
            ]
        })
    );
}

#[tokio::test]
async fn an_unanswered_call_gets_an_interrupted_error_result_and_call_only_turns_have_no_text_block(
) {
    let messages = vec![
        Message::user("list files"),
        Message {
            tool_calls: vec![ToolCallRequest {
                id: "toolu_9".into(),
                name: "exec".into(),
                arguments: "{}".into(),
                ..ToolCallRequest::default()
            }],
            ..Message::assistant("")
        },
        Message::user("never mind"),
    ];
    let req = recorded(
        GenerateParams {
            messages,
            ..GenerateParams::default()
        },
        config,
    )
    .await;
    let body = req.json();
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "toolu_9", "name": "exec", "input": {}}])
    );
    let result = &body["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_9");
    assert_eq!(result["is_error"], true);
    let text = result["content"].as_str().expect("content text");
    assert!(
        text.contains("interrupted") && text.contains("not retry"),
        "{text}"
    );
    assert_eq!(
        body["messages"][2]["content"][1],
        json!({"type": "text", "text": "never mind"})
    );
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn max_tokens_zero_means_the_default_4096() {
    let req = recorded(
        GenerateParams {
            max_tokens: Some(0),
            ..user_params()
        },
        config,
    )
    .await;
    assert_eq!(req.json()["max_tokens"], 4096);
}

#[tokio::test]
async fn headers_carry_the_key_version_and_user_agent_and_the_path_is_v1_messages() {
    let req = recorded(user_params(), config).await;
    assert_eq!(req.method, "POST");
    assert_eq!(
        req.path,
        "/replay/anthropic/sdkpy_basic_response.sse/v1/messages"
    );
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert!(
        req.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{:?}",
        req.headers
    );
    assert!(
        req.header("user-agent")
            .is_some_and(|ua| ua.starts_with("lango/")),
        "{:?}",
        req.headers
    );
    assert!(req.header("authorization").is_none());
}

// ---------------------------------------------------------------- errors, models

fn overloaded_body() -> &'static str {
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
}

#[tokio::test]
async fn status_529_is_a_retryable_server_error() {
    let server =
        TestServer::start(|_, _| Reply::full(529, "application/json", overloaded_body())).await;
    let provider = Anthropic::new(config(server.base_url())).expect("client");
    let out = collect(&provider, user_params()).await;
    let e = out.error();
    assert!(
        matches!(e, ProviderError::Server { status: 529, message } if message == "Overloaded"),
        "{e:?}"
    );
    assert!(e.is_retryable());
}

#[tokio::test]
async fn a_529_before_the_stream_is_retried_then_the_stream_is_read() {
    let sse =
        std::fs::read(fixtures_dir().join("anthropic/sdkpy_basic_response.sse")).expect("fixture");
    let server = TestServer::start(move |_, n| {
        if n == 0 {
            Reply::full(529, "application/json", overloaded_body())
        } else {
            Reply::full(200, "text/event-stream", sse.clone())
        }
    })
    .await;
    let http = HttpSettings {
        max_retries: 1,
        initial_backoff: Duration::from_millis(10),
        ..HttpSettings::default()
    };
    let provider = Anthropic::new(config(server.base_url()).with_http(http)).expect("client");
    let out = collect(&provider, user_params()).await;
    assert_eq!(out.text, "Hello there!");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_stream_cut_before_message_stop_keeps_what_arrived_but_is_cut_off() {
    let raw = std::fs::read_to_string(fixtures_dir().join("anthropic/sdkpy_tool_use_response.sse"))
        .expect("fixture");
    let cut = raw
        .find("event: message_delta")
        .expect("message_delta in the fixture");
    let body = raw[..cut].to_string();
    let server =
        TestServer::start(move |_, _| Reply::full(200, "text/event-stream", body.clone())).await;
    let provider = Anthropic::new(config(server.base_url())).expect("client");
    let out = collect(&provider, user_params()).await;
    assert_eq!(out.text, "I'll check the current weather in Paris for you.");
    assert_eq!(
        out.calls(),
        [(
            "toolu_01NRLabsLyVHZPKxbKvkfSMn".to_string(),
            "get_weather".to_string(),
            json!({"location": "Paris"})
        )]
    );
    // What arrived is the caller's to keep, but the reply is not complete.
    assert_eq!(out.terminal, StreamEvent::Error(ProviderError::cut_off()));
}

#[tokio::test]
async fn list_models_reads_ids_and_display_names() {
    let body = json!({"data": [
        {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"},
        {"type": "model", "id": "claude-haiku-4-5"}
    ], "has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-haiku-4-5"})
    .to_string();
    let server =
        TestServer::start(move |_, _| Reply::full(200, "application/json", body.clone())).await;
    let provider = Anthropic::new(config(server.base_url())).expect("client");
    let models = provider.list_models().await.expect("models");
    let got: Vec<(&str, &str)> = models
        .iter()
        .map(|m| (m.id.as_str(), m.display_name.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("claude-sonnet-4-5", "Claude Sonnet 4.5"),
            ("claude-haiku-4-5", "claude-haiku-4-5")
        ]
    );
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("GET", "/v1/models?limit=1000")
    );
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn list_models_reports_a_bad_key() {
    let server = TestServer::start(|_, _| {
        Reply::full(401, "application/json", r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#)
    })
    .await;
    let provider = Anthropic::new(config(server.base_url())).expect("client");
    let e = provider.list_models().await.expect_err("401");
    assert_eq!(
        e,
        ProviderError::Unauthorized {
            message: "invalid x-api-key".into()
        }
    );
}

#[tokio::test]
async fn anthropic_has_no_embeddings() {
    let provider = Anthropic::new(config("http://127.0.0.1:9".into())).expect("client");
    assert!(matches!(
        provider.embed(vec!["x".into()]).await,
        Err(ProviderError::Unsupported { .. })
    ));
}
