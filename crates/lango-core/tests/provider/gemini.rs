//! The Gemini client against recorded streams (every file under `shared/fixtures/gemini/`,
//! replayed byte for byte) and recorded requests (REFERENCE §5.4, acceptance 71).
//! Acceptance 68–70 (sanitising, name inference) are unit tests in `provider::gemini`.

use std::time::Duration;

use lango_core::provider::gemini::Gemini;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, ToolCallRequest, ToolSpec,
    Usage,
};
use lango_core::secrets::ApiKey;

use super::harness::{collect, user_says, Outcome};
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

// ---------------------------------------------------------------- conformance (fixtures)

#[tokio::test]
async fn genai_thinking_thought_parts_are_thoughts_not_text() {
    let out = replay("gemini/genai_thinking_thought_parts.sse").await;
    assert_eq!(
        out.text,
        "The sky is blue because the Earth's atmosphere, primarily nitrogen and oxygen molecules, scatters shorter, bluer wavelengths of sunlight more efficiently than longer wavelengths, dispersing blue light across the sky."
    );
    assert!(
        out.thought.starts_with(
            "**Defining Atmospheric Color**\n\nI'm working on explaining why the sky appears blue."
        ),
        "{}",
        out.thought
    );
    assert!(out.thought.contains("**Condensing Final Explanation**"));
    assert!(out
        .thought
        .ends_with("dispersing blue light across the sky.\n\n\n"));
    assert_eq!(out.thought.chars().count(), 1604);
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(12, 35, 744));
}

#[tokio::test]
async fn genai_thought_summary_then_function_call_keeps_gemini_id_and_signature() {
    let out = replay("gemini/genai_thought_summary_then_function_call.sse").await;
    assert!(
        out.thought.starts_with("**Defining the Problem**\n\n"),
        "{}",
        out.thought
    );
    assert!(out
        .thought
        .ends_with("It's a two-step process, but the first step is key.\n\n\n"));
    assert_eq!(out.thought.chars().count(), 322);
    assert!(out.text.starts_with("To determine which of these three cities is in Africa, let's look at each one:\n\n1. **Berlin**"), "{}", out.text);
    assert!(
        out.text
            .ends_with("I will now fetch the current weather for Cairo in Celsius. \n\n"),
        "{}",
        out.text
    );
    assert_eq!(out.text.chars().count(), 440);
    assert_eq!(
        out.calls(),
        [(
            "u959pftr".to_string(),
            "get_weather".to_string(),
            json!({"country": "Egypt", "unit": "C", "city": "Cairo"})
        )]
    );
    assert!(!out.calls[0].thought);
    assert_signature(&out.calls[0], "EpoICpcIAQw51sc7", "2VSHKnlk", 1404);
    assert_usage(&out, usage(135, 136, 497));
}

#[tokio::test]
async fn text_stream_crlf_text_and_last_usage() {
    let out = replay("gemini/text_stream.sse").await;
    assert_eq!(out.text, "The capital of France is Paris.\n");
    assert_eq!(out.thought, "");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(13, 8, 21));
}

#[tokio::test]
async fn tool_call_stream_flash2_turn1_whole_call_without_id_gets_call_name() {
    let out = replay("gemini/tool_call_stream_flash2_turn1.sse").await;
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [(
            "call_get_capital".to_string(),
            "get_capital".to_string(),
            json!({"country": "France"})
        )]
    );
    assert_eq!(out.calls[0].thought_signature, "");
    assert_usage(&out, usage(52, 5, 57));
}

#[tokio::test]
async fn tool_call_stream_flash2_turn2_second_tool() {
    let out = replay("gemini/tool_call_stream_flash2_turn2.sse").await;
    assert_eq!(
        out.calls(),
        [(
            "call_get_temperature".to_string(),
            "get_temperature".to_string(),
            json!({"city": "Paris"})
        )]
    );
    assert_usage(&out, usage(64, 5, 69));
}

#[tokio::test]
async fn tool_call_stream_flash2_turn3_final_text() {
    let out = replay("gemini/tool_call_stream_flash2_turn3.sse").await;
    assert_eq!(out.text, "The temperature in Paris is 30°C.\n");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(79, 12, 91));
}

#[tokio::test]
async fn tool_call_stream_gemini3_empty_args_and_thought_signature() {
    let out = replay("gemini/tool_call_stream_gemini3.sse").await;
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [(
            "call_get_country".to_string(),
            "get_country".to_string(),
            json!({})
        )]
    );
    assert_signature(&out.calls[0], "EpwICpkIAXLI2nxl", "15QuFyU=", 1408);
    assert_usage(&out, usage(29, 10, 241));
}

#[tokio::test]
async fn tool_result_followup_stream_gemini3_text_with_empty_last_part() {
    let out = replay("gemini/tool_result_followup_stream_gemini3.sse").await;
    assert_eq!(out.text, "The capital of Mexico is Mexico City.");
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(257, 8, 265));
}

#[tokio::test]
async fn usage_mid_stream_the_last_usage_wins() {
    let out = replay("gemini/usage_mid_stream.sse").await;
    let expected: Vec<String> = (1..=30).map(|n| n.to_string()).collect();
    assert_eq!(out.text, expected.join("\n"));
    assert_usage(&out, usage(18, 80, 133));
}

#[tokio::test]
async fn vercel_error_429_retry_info_is_rate_limited_with_the_body_retry_delay() {
    let out = replay("gemini/vercel_error_429_retry_info.json").await;
    match out.error() {
        ProviderError::RateLimited {
            retry_after,
            message,
        } => {
            assert_eq!(*retry_after, Some(Duration::from_secs_f64(34.4)));
            assert!(
                message.contains("You exceeded your current quota"),
                "{message}"
            );
        }
        other => panic!("expected RateLimited, got {other:?}"),
    }
    assert_eq!(out.text, "");
}

#[tokio::test]
async fn vercel_text_gemini3_ignores_the_empty_signed_part() {
    let out = replay("gemini/vercel_text_gemini3.chunks.jsonl").await;
    assert_eq!(
        out.text,
        "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y"
    );
    assert!(out.calls.is_empty());
    assert_usage(&out, usage(9, 23, 217));
}

#[tokio::test]
async fn vercel_text_gemini3_thoughts_token_count_text_and_usage() {
    let out = replay("gemini/vercel_text_gemini3_thoughtsTokenCount.chunks.jsonl").await;
    assert_eq!(
        out.text,
        "There are **3** \"r\"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y."
    );
    assert_eq!(out.thought, "");
    assert_usage(&out, usage(9, 29, 294));
}

#[tokio::test]
async fn vercel_tool_call_gemini3_call_with_signature_then_empty_stop_chunk() {
    let out = replay("gemini/vercel_tool_call_gemini3.chunks.jsonl").await;
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [(
            "call_weather".to_string(),
            "weather".to_string(),
            json!({"location": "San Francisco"})
        )]
    );
    assert_signature(&out.calls[0], "EqUCCqICAb4+9vsh", "yAMkHj4=", 396);
    assert_usage(&out, usage(29, 15, 89));
}

#[tokio::test]
async fn vercel_vertex_no_args_and_partial_args_assembles_four_calls_with_unique_ids() {
    let out = replay("gemini/vercel_vertex_no_args_and_partial_args.chunks.jsonl").await;
    assert!(
        out.thought.starts_with("**Processing User Requests**"),
        "{}",
        out.thought
    );
    assert_eq!(out.thought.chars().count(), 320);
    assert_eq!(out.text, "");
    assert_eq!(
        out.calls(),
        [
            (
                "call_read_theme".to_string(),
                "read_theme".to_string(),
                json!({})
            ),
            (
                "call_read_screen".to_string(),
                "read_screen".to_string(),
                json!({"id": "A"})
            ),
            (
                "call_read_screen_2".to_string(),
                "read_screen".to_string(),
                json!({"id": "B"})
            ),
            (
                "call_read_screen_3".to_string(),
                "read_screen".to_string(),
                json!({"id": "C"})
            ),
        ]
    );
    assert_signature(&out.calls[0], "AY89a18a8/Loc2wl", "NTtCJA==", 1060);
    assert_eq!(out.calls[1].thought_signature, "");
    assert_usage(&out, usage(249, 58, 490));
}

#[tokio::test]
async fn vercel_vertex_partial_args_streaming_assembles_string_pieces() {
    let out = replay("gemini/vercel_vertex_partial_args_streaming.chunks.jsonl").await;
    assert_eq!(
        out.calls(),
        [
            (
                "call_getWeather".to_string(),
                "getWeather".to_string(),
                json!({"location": "Boston"})
            ),
            (
                "call_getWeather_2".to_string(),
                "getWeather".to_string(),
                json!({"location": "San Francisco"})
            ),
        ]
    );
    assert_signature(&out.calls[0], "CiMBjz1rX25KieIB", "5VsZ0qQ=", 1032);
    assert_usage(&out, usage(26, 23, 181));
}

// ---------------------------------------------------------------- request shape

async fn recorded_with(
    fixture: &str,
    params: GenerateParams,
    cfg: impl FnOnce(String) -> ProviderConfig,
) -> (Outcome, lango_testkit::RecordedRequest) {
    let server = FixtureServer::start().await;
    let provider = Gemini::new(cfg(server.base_url_for(fixture))).expect("client");
    let out = collect(&provider, params).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    (out, requests.into_iter().next().expect("one request"))
}

async fn recorded(params: GenerateParams) -> lango_testkit::RecordedRequest {
    let (out, req) = recorded_with("gemini/text_stream.sse", params, config).await;
    assert_eq!(out.text, "The capital of France is Paris.\n");
    req
}

#[tokio::test]
async fn system_user_call_result_and_a_second_system_message_give_this_exact_body() {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"], "additionalProperties": false});
    let params = GenerateParams {
        model: String::new(),
        messages: vec![
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
            Message::system("[Compacted Summary]\nThe user lives in Paris."),
            Message::user("and tomorrow?"),
        ],
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
    let req = recorded(params).await;
    assert_eq!(
        req.json(),
        json!({
            "contents": [
                {"role": "user", "parts": [{"text": "weather?"}]},
                {"role": "model", "parts": [
                    {"text": "Checking"},
                    {"functionCall": {"id": "toolu_1", "name": "get_weather", "args": {"location": "Paris"}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "toolu_1", "name": "get_weather", "response": {"temp": 21}}},
                    {"text": "and tomorrow?"}
                ]}
            ],
            "systemInstruction": {"parts": [{"text": "S"}, {"text": "[Compacted Summary]\nThe user lives in Paris."}]},
            "tools": [{"functionDeclarations": [
                {"name": "get_weather", "description": "Weather for a city", "parametersJsonSchema": schema}
            ]}],
            "generationConfig": {"temperature": 0.5, "maxOutputTokens": 256}
        })
    );
}

#[tokio::test]
async fn headers_carry_the_key_and_user_agent_and_the_path_names_the_model() {
    let req = recorded(user_params()).await;
    assert_eq!(req.method, "POST");
    assert_eq!(
        req.path,
        "/replay/gemini/text_stream.sse/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(req.header("x-goog-api-key"), Some(KEY));
    assert!(!req.path.contains(KEY), "the key is never in the URL");
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
}

#[tokio::test]
async fn a_models_prefix_in_the_model_name_is_not_doubled() {
    let req = recorded(GenerateParams {
        model: "models/gemini-2.5-flash".into(),
        ..user_params()
    })
    .await;
    assert!(
        req.path
            .ends_with("/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
        "{}",
        req.path
    );
}

// Acceptance 71 [FIX]: Gemini gives no id; ours is call_get_country, and the next turn echoes
// it (and the thought signature) in functionCall and functionResponse.
#[tokio::test]
async fn acceptance_71_an_id_less_call_is_call_name_and_is_echoed_on_replay() {
    let first = GenerateParams {
        model: "gemini-3-pro-preview".into(),
        messages: vec![Message::user(
            "What is the capital of the user country? Call the tool",
        )],
        ..GenerateParams::default()
    };
    let (out, _) =
        recorded_with("gemini/tool_call_stream_gemini3.sse", first.clone(), config).await;
    assert_eq!(out.calls.len(), 1);
    let call = out.calls[0].clone();
    assert_eq!(call.id, "call_get_country");

    let mut messages = first.messages.clone();
    messages.push(Message {
        tool_calls: vec![call.clone()],
        ..Message::assistant(out.text.clone())
    });
    messages.push(Message::tool_result(
        call.id.clone(),
        call.name.clone(),
        "{\"return_value\":\"Mexico\"}",
    ));
    let (out, req) = recorded_with(
        "gemini/tool_result_followup_stream_gemini3.sse",
        GenerateParams { messages, ..first },
        config,
    )
    .await;
    assert_eq!(out.text, "The capital of Mexico is Mexico City.");
    assert_eq!(
        req.json()["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is the capital of the user country? Call the tool"}]},
            {"role": "model", "parts": [{
                "functionCall": {"id": "call_get_country", "name": "get_country", "args": {}},
                "thoughtSignature": call.thought_signature
            }]},
            {"role": "user", "parts": [{"functionResponse": {"id": "call_get_country", "name": "get_country", "response": {"return_value": "Mexico"}}}]}
        ])
    );
}

// ---------------------------------------------------------------- stream errors, models, embeddings

#[tokio::test]
async fn list_models_strips_the_models_prefix_and_follows_pages() {
    let server = TestServer::start(|req, _| {
        let body = if req.path.contains("pageToken=") {
            json!({"models": [{"name": "models/text-embedding-004", "displayName": "Text Embedding 004"}]})
        } else {
            json!({"models": [{"name": "models/gemini-2.0-flash", "displayName": "Gemini 2.0 Flash"}, {"name": "models/aqa"}], "nextPageToken": "p 2/+"})
        };
        Reply::full(200, "application/json", body.to_string())
    })
    .await;
    let provider = Gemini::new(config(server.base_url())).expect("client");
    let models = provider.list_models().await.expect("models");
    let got: Vec<(&str, &str)> = models
        .iter()
        .map(|m| (m.id.as_str(), m.display_name.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("gemini-2.0-flash", "Gemini 2.0 Flash"),
            ("aqa", "aqa"),
            ("text-embedding-004", "Text Embedding 004")
        ]
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/models?pageSize=1000",
            "/models?pageSize=1000&pageToken=p%202%2F%2B"
        ]
    );
    assert_eq!(server.requests()[0].header("x-goog-api-key"), Some(KEY));
}

#[tokio::test]
async fn embed_sends_one_batch_request_and_returns_the_vectors_in_order() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            json!({"embeddings": [{"values": [0.5, -1.0]}, {"values": [0.25, 2.0]}]}).to_string(),
        )
    })
    .await;
    let provider = Gemini::new(config(server.base_url())).expect("client");
    let vectors = provider
        .embed(vec!["a".into(), "b".into()])
        .await
        .expect("vectors");
    assert_eq!(vectors, vec![vec![0.5, -1.0], vec![0.25, 2.0]]);
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/models/gemini-embedding-001:batchEmbedContents")
    );
    assert_eq!(req.header("x-goog-api-key"), Some(KEY));
    assert_eq!(
        req.json(),
        json!({"requests": [
            {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "a"}]}},
            {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "b"}]}}
        ]})
    );
    assert!(provider
        .embed(Vec::new())
        .await
        .expect("nothing to embed")
        .is_empty());
    assert_eq!(server.requests().len(), 1, "no request for an empty list");
}

#[tokio::test]
async fn embed_uses_an_embedding_default_model_and_rejects_a_short_answer() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            json!({"embeddings": [{"values": [1.0]}]}).to_string(),
        )
    })
    .await;
    let provider =
        Gemini::new(config(server.base_url()).with_default_model("models/text-embedding-004"))
            .expect("client");
    let e = provider
        .embed(vec!["a".into(), "b".into()])
        .await
        .expect_err("one vector for two texts");
    assert!(matches!(e, ProviderError::Interrupted { .. }), "{e:?}");
    assert_eq!(
        server.requests()[0].path,
        "/models/text-embedding-004:batchEmbedContents"
    );
}
