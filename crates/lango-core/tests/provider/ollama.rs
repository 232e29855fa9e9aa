//! Native Ollama client: every fixture under `fixtures/ollama/` replayed byte for byte, the
//! `/api/chat` request shape, start errors, `/api/tags` and `/api/embed`.

use super::harness::{fast_http, fold, user_shows_an_image, Outcome};
use futures_util::StreamExt;
use lango_core::provider::ollama::Ollama;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, ProviderError, StopReason, StreamEvent,
    ToolCallRequest, ToolSpec, Usage,
};
use lango_testkit::{FixtureServer, RecordedRequest, Reply, TestServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn client(base_url: String) -> Ollama {
    Ollama::new(
        ProviderConfig::new("ollama-test", base_url)
            .with_default_model("llama3.2")
            .with_http(fast_http()),
    )
    .expect("client")
}

fn hello() -> GenerateParams {
    GenerateParams {
        messages: vec![Message::user("hello")],
        ..Default::default()
    }
}

fn usage(input: u64, output: u64, cache: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        cache_tokens: cache,
    })
}

async fn replay(fixture: &str) -> Outcome {
    let server = FixtureServer::start().await;
    let provider = client(server.base_url_for(fixture));
    let events: Vec<StreamEvent> = provider
        .generate(hello(), CancellationToken::new())
        .collect()
        .await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, format!("/replay/{fixture}/api/chat"));
    fold(events, Vec::new())
}

fn calls(expected: &[(&str, &str, Value)]) -> Vec<(String, String, Value)> {
    expected
        .iter()
        .map(|(id, name, args)| (id.to_string(), name.to_string(), args.clone()))
        .collect()
}

/// Every fixture under `fixtures/ollama/` has a test below (checked by
/// `common::every_fixture_file_has_a_test`).
pub const COVERED: &[&str] = &[
    "ollama/docs_chat_stream_first_and_final.ndjson",
    "ollama/docs_chat_stream_tool_call.ndjson",
    "ollama/docs_midstream_error_generate.ndjson",
    "ollama/genai_SYNTHETIC_thinking_and_multi_tool_calls.ndjson",
    "ollama/genai_llama32_3b_cached_usage_stream.ndjson",
    "ollama/genai_ollama_cloud_gemma3_simple_stream.ndjson",
];

#[tokio::test]
async fn ollama_docs_chat_stream_first_and_final() {
    let o = replay("ollama/docs_chat_stream_first_and_final.ndjson").await;
    assert_eq!(o.text, "The");
    assert_eq!(o.thought, "");
    assert!(o.calls().is_empty());
    assert_eq!(
        o.terminal,
        StreamEvent::Done {
            usage: usage(26, 282, 0),
            stop: StopReason::Finished,
        }
    );
}

#[tokio::test]
async fn ollama_docs_chat_stream_tool_call_with_object_arguments() {
    let o = replay("ollama/docs_chat_stream_tool_call.ndjson").await;
    assert_eq!(o.text, "");
    assert_eq!(
        o.calls(),
        calls(&[("call_get_weather", "get_weather", json!({"city": "Tokyo"}))])
    );
    assert_eq!(
        o.terminal,
        StreamEvent::Done {
            usage: usage(169, 15, 0),
            stop: StopReason::Finished,
        }
    );
}

#[tokio::test]
async fn ollama_docs_midstream_error_generate_keeps_the_text_and_interrupts() {
    let o = replay("ollama/docs_midstream_error_generate.ndjson").await;
    assert_eq!(o.text, " Yes.Ican");
    assert!(o.calls().is_empty());
    assert_eq!(
        o.terminal,
        StreamEvent::Error(ProviderError::Interrupted {
            message: "an error was encountered while running the model".into()
        })
    );
}

#[tokio::test]
async fn ollama_genai_synthetic_thinking_and_multi_tool_calls() {
    let o = replay("ollama/genai_SYNTHETIC_thinking_and_multi_tool_calls.ndjson").await;
    assert_eq!(o.thought, "The sky is blue due to Rayleigh scattering. ");
    assert_eq!(
        o.text,
        "Rayleigh scattering dominates the sky. Let me check the weather."
    );
    assert_eq!(
        o.calls(),
        calls(&[
            ("call_a", "get_weather", json!({"city": "Paris"})),
            ("call_b", "get_weather", json!({"city": "Berlin"})),
            ("call_c", "get_time", json!({})),
        ])
    );
    assert_eq!(
        o.terminal,
        StreamEvent::Done {
            usage: usage(21, 40, 0),
            stop: StopReason::Finished,
        }
    );
}

#[tokio::test]
async fn ollama_genai_llama32_3b_cached_usage_stream() {
    let o = replay("ollama/genai_llama32_3b_cached_usage_stream.ndjson").await;
    assert_eq!(o.text, "Hello!");
    assert!(o.calls().is_empty());
    assert_eq!(
        o.terminal,
        StreamEvent::Done {
            usage: usage(28, 3, 27),
            stop: StopReason::Finished,
        }
    );
}

#[tokio::test]
async fn ollama_genai_ollama_cloud_gemma3_simple_stream() {
    let o = replay("ollama/genai_ollama_cloud_gemma3_simple_stream.ndjson").await;
    assert_eq!(
        o.text,
        "The sky appears blue due to a phenomenon called Rayleigh scattering, where shorter wavelengths of sunlight \
         (blue and violet) are scattered more by the Earth’s atmosphere than longer wavelengths like red and orange."
    );
    assert!(o.calls().is_empty());
    assert_eq!(
        o.terminal,
        StreamEvent::Done {
            usage: usage(21, 40, 0),
            stop: StopReason::Finished,
        }
    );
}

// --- Behaviour beyond the fixtures ---

async fn scripted(body: &'static str) -> Outcome {
    let server =
        TestServer::start(move |_, _| Reply::full(200, "application/x-ndjson", body)).await;
    let events: Vec<StreamEvent> = client(server.base_url())
        .generate(hello(), CancellationToken::new())
        .collect()
        .await;
    fold(events, Vec::new())
}

#[tokio::test]
async fn two_nameless_index_calls_in_one_line_stay_two_calls() {
    let o = scripted(concat!(
        r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read","arguments":{"p":"a"}}},{"function":{"name":"read","arguments":{"p":"b"}}}]},"done":false}"#,
        "\n",
        r#"{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":1,"eval_count":2}"#,
        "\n"
    ))
    .await;
    let calls = o.calls();
    let args: Vec<&Value> = calls.iter().map(|c| &c.2).collect();
    assert_eq!(args, [&json!({"p": "a"}), &json!({"p": "b"})]);
}

// --- Request shape ---

async fn send_and_record(params: GenerateParams) -> RecordedRequest {
    let server = FixtureServer::start().await;
    let provider =
        client(server.base_url_for("ollama/genai_llama32_3b_cached_usage_stream.ndjson"));
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
async fn request_body_for_a_tool_turn_is_exactly_the_api_chat_shape() {
    let params = GenerateParams {
        model: "qwen2.5".into(),
        messages: vec![
            Message::system("You are Lango."),
            Message::user("Weather in Paris?"),
            Message {
                tool_calls: vec![ToolCallRequest {
                    id: "call_1".into(),
                    name: "get_weather".into(),
                    arguments: r#"{"city":"Paris"}"#.into(),
                    ..Default::default()
                }],
                ..Message::assistant("")
            },
            Message::tool_result("call_1", "get_weather", r#"{"temp_c":18}"#),
            Message::system("Be brief."),
        ],
        tools: vec![ToolSpec {
            name: "get_weather".into(),
            description: "Get the weather".into(),
            parameters: json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}),
        }],
        temperature: Some(0.0),
        max_tokens: Some(128),
    };
    let request = send_and_record(params).await;
    let expected = json!({
        "model": "qwen2.5",
        "messages": [
            {"role": "system", "content": "You are Lango."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
            {"role": "tool", "content": "{\"temp_c\":18}", "tool_name": "get_weather"},
            {"role": "system", "content": "Be brief."}
        ],
        "stream": true,
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Get the weather",
            "parameters": {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}
        }}],
        "options": {"temperature": 0.0, "num_predict": 128}
    });
    assert_eq!(request.json(), expected);
    assert!(request
        .header("user-agent")
        .unwrap_or_default()
        .starts_with("lango/"));
    assert_eq!(
        request.header("authorization"),
        None,
        "no key configured → no Authorization header"
    );
}

#[tokio::test]
async fn a_user_image_is_a_bare_base64_string_in_the_messages_images() {
    let body = send_and_record(user_shows_an_image()).await.json();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "S"},
            super::harness::documented_image_message("ollama", false)
        ])
    );
}

#[tokio::test]
async fn unset_options_are_omitted_and_the_default_model_is_used() {
    let body = send_and_record(hello()).await.json();
    assert_eq!(
        body,
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "hello"}], "stream": true})
    );
}

#[tokio::test]
async fn an_unanswered_call_gets_the_synthetic_interrupted_result() {
    let params = GenerateParams {
        messages: vec![
            Message {
                tool_calls: vec![ToolCallRequest {
                    id: "call_x".into(),
                    name: "exec".into(),
                    arguments: "{}".into(),
                    ..Default::default()
                }],
                ..Message::assistant("")
            },
            Message::user("go on"),
        ],
        ..Default::default()
    };
    let body = send_and_record(params).await.json();
    assert_eq!(body["messages"][1]["role"], "tool");
    assert_eq!(body["messages"][1]["tool_name"], "exec");
    assert!(body["messages"][1]["content"]
        .as_str()
        .is_some_and(|c| c.contains("interrupted")));
}

// --- Start errors, tags, embed ---

#[tokio::test]
async fn a_model_without_tool_support_is_reported_as_unsupported_with_advice() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            400,
            "application/json",
            r#"{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}"#,
        )
    })
    .await;
    let params = GenerateParams {
        model: "gemma:2b".into(),
        ..hello()
    };
    let events: Vec<StreamEvent> = client(server.base_url())
        .generate(params, CancellationToken::new())
        .collect()
        .await;
    match events.as_slice() {
        [StreamEvent::Error(ProviderError::Unsupported { message })] => {
            assert!(message.contains("\"gemma:2b\""), "{message}");
            assert!(message.contains("tool-capable model"), "{message}");
        }
        other => panic!("expected one Unsupported error, got {other:?}"),
    }
    assert_eq!(server.requests()[0].path, "/api/chat");
}

#[tokio::test]
async fn an_unknown_model_is_not_found() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            404,
            "application/json",
            r#"{"error":"model \"nope\" not found, try pulling it first"}"#,
        )
    })
    .await;
    let events: Vec<StreamEvent> = client(server.base_url())
        .generate(hello(), CancellationToken::new())
        .collect()
        .await;
    assert_eq!(
        events,
        vec![StreamEvent::Error(ProviderError::NotFound {
            message: "model \"nope\" not found, try pulling it first".into()
        })]
    );
}

#[tokio::test]
async fn list_models_reads_api_tags_names() {
    let server = TestServer::start(|_, _| {
        Reply::full(200, "application/json", r#"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","size":1},{"name":"qwen2.5:7b","model":"qwen2.5:7b"}]}"#)
    })
    .await;
    let models = client(server.base_url())
        .list_models()
        .await
        .expect("models");
    assert_eq!(
        models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        ["llama3.2:latest", "qwen2.5:7b"]
    );
    let request = &server.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/api/tags")
    );
}

#[tokio::test]
async fn embed_posts_to_api_embed_and_returns_the_vectors() {
    let server = TestServer::start(|_, _| {
        Reply::full(
            200,
            "application/json",
            r#"{"model":"nomic-embed-text","embeddings":[[0.5,-0.25],[1.0,2.0]]}"#,
        )
    })
    .await;
    let provider = Ollama::new(
        ProviderConfig::new("o", server.base_url())
            .with_default_model("nomic-embed-text")
            .with_http(fast_http()),
    )
    .expect("client");
    let vectors = provider
        .embed(vec!["a".into(), "b".into()])
        .await
        .expect("embeddings");
    assert_eq!(vectors, vec![vec![0.5, -0.25], vec![1.0, 2.0]]);
    let request = &server.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/api/embed")
    );
    assert_eq!(
        request.json(),
        json!({"model": "nomic-embed-text", "input": ["a", "b"]})
    );
}
