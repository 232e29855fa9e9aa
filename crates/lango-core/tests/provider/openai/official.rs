//! The recordings of OpenAI's own API (`fixtures/openai/`), replayed byte for byte.

use super::*;

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
