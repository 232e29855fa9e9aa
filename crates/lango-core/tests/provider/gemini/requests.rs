//! What the Gemini client sends (exact bodies and headers), its start errors, model list and
//! embeddings.

use super::*;

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
async fn a_user_image_is_an_inline_data_part_before_the_text() {
    let req = recorded(user_shows_an_image()).await;
    assert_eq!(
        req.json(),
        json!({
            "contents": [super::super::harness::documented_image_message("gemini", true)],
            "systemInstruction": {"parts": [{"text": "S"}]}
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
