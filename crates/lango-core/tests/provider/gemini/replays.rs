//! Every recording under `fixtures/gemini/` replayed byte for byte through the Gemini client.

use super::*;

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
