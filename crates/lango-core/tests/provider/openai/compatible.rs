//! The recordings of OpenAI-compatible servers (`fixtures/openai-compatible/`: Groq, DeepSeek,
//! Mistral, xAI, GitHub Copilot, llama-cpp-python, llama-server), replayed byte for byte.

use super::*;

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
async fn compat_llama_server_error_http400_exceed_context_size_names_the_window_and_the_prompt() {
    let o = replay("openai-compatible/llama-server/error_http400_exceed_context_size.json").await;
    o.assert_no_text_thought_or_calls();
    assert_eq!(
        o.terminal,
        StreamEvent::Error(ProviderError::ContextExceeded {
            limit: lango_core::provider::ContextLimit {
                window: Some(4096),
                sent: Some(6010),
            },
            message: "request (6010 tokens) exceeds the available context size (4096 tokens), try increasing it".into(),
        })
    );
    assert_eq!(o.requests.len(), 1, "a 400 is not retried by the client");
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
