//! End to end over the real OpenAI-compatible client, against the testkit's fake HTTP server.

use super::support::*;

#[tokio::test]
async fn end_to_end_over_openai_compatible_client() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Hello ", "world"])])).await;
    let client = OpenAiCompatible::new(ProviderConfig::new(
        "fake-openai",
        format!("{}/v1", fake.base_url()),
    ))
    .expect("client");
    let llm = ModelAdapter::new(Arc::new(client), "fake-model");
    let request = LlmRequest {
        config: instruction(&["Be brief."]),
        ..user_request("hi")
    };
    let out: Vec<LlmResponse> = run(&llm, request, true)
        .await
        .into_iter()
        .map(|r| r.expect("no error"))
        .collect();

    let sent = fake.generate_requests();
    assert_eq!(sent.len(), 1);
    let body = sent[0].json();
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}])
    );
    // The fake reports prompt tokens = body bytes / 4 and one completion token per chunk.
    let input = (sent[0].body.len() as u64 / 4).max(1);
    let usage = Usage {
        input_tokens: input,
        output_tokens: 2,
        total_tokens: input + 2,
        cache_tokens: 0,
    };
    assert_eq!(
        out,
        vec![
            partial_text("Hello "),
            partial_text("world"),
            final_response(vec![Part::text("Hello world")], Some(usage))
        ]
    );
}
