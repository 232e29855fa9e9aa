//! What the OpenAI-compatible client sends: the request body, start errors, `/models` and
//! `/embeddings` (the repairs before sending: `repairs.rs`).

use super::*;

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
pub(super) async fn send_and_record(params: GenerateParams, key: Option<&str>) -> RecordedRequest {
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
async fn a_user_image_is_an_image_url_part_with_a_data_url_after_the_text() {
    // The vision guide's shape: content becomes an array of parts only when there are
    // images (text-only messages keep the plain string, above).
    let body = send_and_record(user_shows_an_image(), None).await.json();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "S"},
            super::super::harness::documented_image_message("openai", false)
        ])
    );
}

#[tokio::test]
async fn an_image_without_text_is_sent_as_the_image_part_alone() {
    let mut params = user_shows_an_image();
    params.messages[1].content.clear();
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{RED_PIXEL_PNG}")}}
        ]})
    );
}

#[tokio::test]
async fn unset_max_tokens_and_tools_are_omitted_and_the_default_model_is_used() {
    let body = send_and_record(hello(), None).await.json();
    assert_eq!(
        body["model"], "gpt-4o",
        "empty model → the configured default"
    );
    assert!(body.get("max_tokens").is_none(), "{body}");
    assert!(
        body.get("tools").is_none(),
        "no tools → no tools key: {body}"
    );
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
    let events = events(&provider, params).await;
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
