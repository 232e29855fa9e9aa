//! What the Anthropic Messages client sends (exact bodies and headers), its start errors,
//! model list and embeddings.

use super::*;

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
async fn a_user_image_is_a_base64_image_block_before_the_text() {
    let req = recorded(user_shows_an_image(), config).await;
    assert_eq!(
        req.json(),
        json!({
            "model": MODEL,
            "max_tokens": 4096,
            "stream": true,
            "system": "S",
            "messages": [super::super::harness::documented_image_message("anthropic", false)]
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
async fn anthropic_has_no_embeddings() {
    let provider = Anthropic::new(config("http://127.0.0.1:9".into())).expect("client");
    assert!(matches!(
        provider.embed(vec!["x".into()]).await,
        Err(ProviderError::Unsupported { .. })
    ));
}
