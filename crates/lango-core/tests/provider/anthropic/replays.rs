//! Every recording under `fixtures/anthropic/` replayed byte for byte through the Anthropic
//! Messages client.

use super::*;

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
async fn llama_server_error_http400_exceed_context_size_openai_shaped_names_the_window_and_the_prompt(
) {
    let out =
        replay("anthropic/llama-server/error_http400_exceed_context_size_OPENAI_SHAPED.json").await;
    assert!(
        matches!(out.error(), ProviderError::ContextExceeded { limit, message }
            if message.contains("exceeds the available context size")
                && limit.window == Some(4096) && limit.sent == Some(6010)),
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
