//! Chats with a real model (SmolLM2-135M behind llama.cpp's llama-server) through both of
//! its endpoints: a server none of us wrote. Run by `make test-real`, which builds and starts
//! the server and sets LANGO_REAL_LLM_URL; ignored in the default test run.

use futures_util::StreamExt;
use lango_core::provider::anthropic::Anthropic;
use lango_core::provider::assembler::ToolCallAssembler;
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    GenerateParams, Message, Provider, ProviderConfig, Role, StreamEvent, ToolCallRequest, ToolSpec,
};
use tokio_util::sync::CancellationToken;

const PROMPT: &str = "What is the capital of France? Answer in one sentence.";

fn server() -> String {
    std::env::var("LANGO_REAL_LLM_URL").expect("LANGO_REAL_LLM_URL (run `make test-real`)")
}

fn openai() -> OpenAiCompatible {
    OpenAiCompatible::new(
        ProviderConfig::new("local", format!("{}/v1", server())).with_default_model("smollm2"),
    )
    .unwrap()
}

fn anthropic() -> Anthropic {
    Anthropic::new(ProviderConfig::new("local-anthropic", server()).with_default_model("smollm2"))
        .unwrap()
}

struct Outcome {
    text: String,
    calls: Vec<ToolCallRequest>,
    done: bool,
}

async fn run(provider: &dyn Provider, params: GenerateParams) -> Outcome {
    let mut stream = provider.generate(params, CancellationToken::new());
    let (mut text, mut calls, mut done) = (String::new(), ToolCallAssembler::new(), false);
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta(t) => text.push_str(&t),
            StreamEvent::ToolCall(c) => calls.push(&c),
            StreamEvent::Done { .. } => done = true,
            StreamEvent::Error(e) => panic!("the model server failed: {e}"),
            _ => {}
        }
    }
    Outcome {
        text,
        calls: calls.finish(),
        done,
    }
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "get_weather".into(),
        description: "Get the current weather for a city".into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"]
        }),
    }
}

fn plain_params() -> GenerateParams {
    GenerateParams {
        messages: vec![Message::user(PROMPT)],
        temperature: Some(0.0),
        max_tokens: Some(40),
        ..Default::default()
    }
}

/// The model never calls a tool by itself: prefill the assistant turn with the start of a
/// call (setup-local-llm.sh explains the trick). The wording is the recorded request of
/// fixtures/*/llama-server/tool_*_prefill: a 135M model drifts with other phrasings (seen:
/// it kept writing a schema until max_tokens, leaving invalid arguments).
fn prefilled_tool_call_params() -> GenerateParams {
    GenerateParams {
        messages: vec![
            Message::user("What is the weather in Paris? Use the get_weather tool."),
            Message::assistant("{\"name\": \"get_weather\", \"arguments\": {\"city\": \""),
        ],
        tools: vec![weather_tool()],
        temperature: Some(0.0),
        max_tokens: Some(64),
        ..Default::default()
    }
}

fn tool_result_params() -> GenerateParams {
    let mut assistant = Message::assistant("");
    assistant.tool_calls = vec![ToolCallRequest {
        id: "call_get_weather".into(),
        name: "get_weather".into(),
        arguments: "{\"city\":\"Paris\"}".into(),
        ..Default::default()
    }];
    GenerateParams {
        messages: vec![
            Message::user("What is the weather in Paris?"),
            assistant,
            Message::tool_result(
                "call_get_weather",
                "get_weather",
                "{\"temperature_celsius\": 21, \"sky\": \"sunny\"}",
            ),
        ],
        temperature: Some(0.0),
        max_tokens: Some(60),
        ..Default::default()
    }
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn openai_endpoint_answers_the_capital_of_france() {
    let out = run(&openai(), plain_params()).await;
    assert!(out.done);
    assert_eq!(out.text.trim(), "The capital of France is Paris.");
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn anthropic_endpoint_answers_the_capital_of_france() {
    let out = run(&anthropic(), plain_params()).await;
    assert!(out.done);
    assert_eq!(out.text.trim(), "The capital of France is Paris.");
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn openai_endpoint_streams_a_real_tool_call() {
    let out = run(&openai(), prefilled_tool_call_params()).await;
    assert_eq!(out.calls.len(), 1, "text was {:?}", out.text);
    assert_eq!(out.calls[0].name, "get_weather");
    let args: serde_json::Value = serde_json::from_str(&out.calls[0].arguments).unwrap();
    assert!(
        args["city"].as_str().is_some_and(|c| c.contains("Paris")),
        "{args}"
    );
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn anthropic_endpoint_streams_a_real_tool_call() {
    let out = run(&anthropic(), prefilled_tool_call_params()).await;
    assert_eq!(out.calls.len(), 1, "text was {:?}", out.text);
    assert_eq!(out.calls[0].name, "get_weather");
    assert!(
        out.calls[0].arguments.contains("Paris"),
        "{}",
        out.calls[0].arguments
    );
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn openai_endpoint_accepts_a_tool_result_round_trip() {
    let out = run(&openai(), tool_result_params()).await;
    assert!(out.done);
    assert!(!out.text.trim().is_empty());
    assert!(out.calls.is_empty());
}

#[tokio::test]
#[ignore = "needs the local model: make test-real"]
async fn anthropic_endpoint_accepts_a_tool_result_round_trip() {
    let out = run(&anthropic(), tool_result_params()).await;
    assert!(out.done);
    assert!(!out.text.trim().is_empty());
}

#[test]
fn roles_are_plain_data() {
    // Keeps this file compiling into a test binary with one always-run check of its helpers.
    assert_eq!(plain_params().messages[0].role, Role::User);
    assert_eq!(prefilled_tool_call_params().messages.len(), 2);
}
