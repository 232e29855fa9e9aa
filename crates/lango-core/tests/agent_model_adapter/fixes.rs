//! The [FIX]es and details of REFERENCE §1.2–§1.4.

use super::support::*;

#[tokio::test]
async fn stream_ending_without_done_still_emits_the_final_response() {
    let events = vec![
        text("Hi"),
        StreamEvent::Usage(Usage {
            input_tokens: 3,
            output_tokens: 1,
            total_tokens: 4,
            cache_tokens: 0,
        }),
    ];
    let usage = Some(Usage {
        input_tokens: 3,
        output_tokens: 1,
        total_tokens: 4,
        cache_tokens: 0,
    });
    assert_eq!(
        responses(events.clone(), true).await,
        vec![
            partial_text("Hi"),
            final_response(vec![Part::text("Hi")], usage)
        ]
    );
    assert_eq!(
        responses(events, false).await,
        vec![final_response(vec![Part::text("Hi")], usage)]
    );
    // Nothing at all → one empty final response.
    assert_eq!(
        responses(vec![], false).await,
        vec![final_response(vec![], None)]
    );
}

#[tokio::test]
async fn thoughts_are_not_text_and_done_usage_wins() {
    let early = Usage {
        input_tokens: 1,
        output_tokens: 0,
        total_tokens: 1,
        cache_tokens: 0,
    };
    let last = Usage {
        input_tokens: 7,
        output_tokens: 3,
        total_tokens: 10,
        cache_tokens: 5,
    };
    let events = vec![
        StreamEvent::Thought("thinking…".into()),
        StreamEvent::Usage(early),
        text("Answer"),
        done(Some(last)),
        text(" ignored after done"),
    ];
    assert_eq!(
        responses(events.clone(), true).await,
        vec![
            partial_text("Answer"),
            final_response(vec![Part::text("Answer")], Some(last))
        ]
    );
    assert_eq!(
        responses(events, false).await,
        vec![final_response(vec![Part::text("Answer")], Some(last))]
    );
    // Done without usage keeps the last Usage event.
    let out = responses(
        vec![StreamEvent::Usage(early), text("x"), done(None)],
        false,
    )
    .await;
    assert_eq!(out[0].usage, Some(early));
}

#[tokio::test]
async fn streamed_text_and_calls_mix_and_argument_chunks_yield_nothing() {
    let out = responses(
        vec![
            text("Let me check. "),
            chunk(None, "", "lookup", r#"{"q":"rust"}"#),
            chunk(Some(1), "call_2", "exec", ""),
            chunk(None, "", "", r#"{"cmd":"ls"}"#),
            done(None),
        ],
        true,
    )
    .await;
    let notify = |part: Part| LlmResponse {
        content: Some(model(vec![part])),
        partial: true,
        turn_complete: false,
        usage: None,
        truncated: false,
    };
    assert_eq!(
        out,
        vec![
            partial_text("Let me check. "),
            // A whole-object first chunk (Gemini style) is shown with its arguments.
            notify(fc("call_lookup", "lookup", json!({"q": "rust"}))),
            notify(fc("call_2", "exec", json!({}))),
            // The index-less call arrived first and stays first (issue 14 item 20).
            final_response(
                vec![
                    Part::text("Let me check. "),
                    fc("call_lookup", "lookup", json!({"q": "rust"})),
                    fc("call_2", "exec", json!({"cmd": "ls"})),
                ],
                None
            ),
        ]
    );
}

#[tokio::test]
async fn thought_call_signature_round_trips_as_base64() {
    let signature = vec![0x01, 0x02, 0xFF, 0xFE, 0x00, 0xAB];
    // Provider → response: the base64 signature becomes bytes, the thought flag is kept.
    let out = responses(
        vec![
            StreamEvent::ToolCall(ToolCallChunk {
                index: Some(0),
                id: "call_think".into(),
                name: "deep_think".into(),
                arguments: r#"{"query":"#.into(),
                thought: true,
                thought_signature: "AQL//gCr".into(),
            }),
            chunk(Some(0), "", "", r#""test"}"#),
            done(None),
        ],
        false,
    )
    .await;
    let expected = Part {
        thought: true,
        thought_signature: Some(signature.clone()),
        ..fc("call_think", "deep_think", json!({"query": "test"}))
    };
    assert_eq!(out, vec![final_response(vec![expected.clone()], None)]);

    // Content → provider: bytes back to the same base64.
    let messages = sent_messages(vec![model(vec![expected])]).await;
    assert_eq!(
        messages[0].tool_calls,
        vec![ToolCallRequest {
            thought: true,
            thought_signature: "AQL//gCr".into(),
            ..call_req("call_think", "deep_think", r#"{"query":"test"}"#)
        }]
    );
}

#[tokio::test]
async fn user_content_with_only_responses_is_a_tool_message() {
    let messages = sent_messages(vec![
        model(vec![
            fc("call_1", "exec", json!({})),
            fc("call_2", "read", json!({})),
        ]),
        Content::new("user", vec![fr("call_1", "exec", json!({"output": "1"}))]),
        Content::new(
            "user",
            vec![
                fr("call_2", "read", json!({"a": 1})),
                fr("call_3", "read", json!({"b": 2})),
            ],
        ),
        // Text next to a response keeps the user role (not a pure tool content).
        Content::new(
            "user",
            vec![Part::text("note"), fr("call_4", "exec", json!({}))],
        ),
    ])
    .await;
    let mut mixed = msg(Role::User, "note\n{}");
    mixed.tool_call_id = "call_4".into();
    mixed.tool_call_name = "exec".into();
    assert_eq!(
        messages[1..],
        [
            tool_msg("call_1", "exec", r#"{"output":"1"}"#),
            tool_msg("call_2", "read", r#"{"a":1}"#),
            tool_msg("call_3", "read", r#"{"b":2}"#),
            mixed,
        ]
    );
}

#[tokio::test]
async fn text_parts_join_with_newlines_and_thought_text_is_not_sent() {
    let hidden = Part {
        thought: true,
        ..Part::text("secret reasoning")
    };
    let messages = sent_messages(vec![
        model(vec![
            Part::text("part1"),
            hidden,
            Part::text("part2"),
            fc("", "exec", json!({"a": [1, 2]})),
        ]),
        Content::new(
            "tool",
            vec![
                Part::text("prefix"),
                fr("call_exec", "exec", json!({"r": "ok"})),
            ],
        ),
    ])
    .await;
    let mut assistant = msg(Role::Assistant, "part1\npart2");
    assistant.tool_calls = vec![call_req("call_exec", "exec", r#"{"a":[1,2]}"#)];
    assert_eq!(
        messages,
        vec![
            assistant,
            tool_msg("call_exec", "exec", "prefix\n{\"r\":\"ok\"}")
        ]
    );
}

#[tokio::test]
async fn model_and_options_are_copied_only_when_set() {
    let provider = Scripted::new(vec![done(None)]);
    let llm = adapter(&provider);
    assert_eq!(llm.name(), "test-model");
    assert_eq!(run(&llm, user_request("a"), false).await.len(), 1);
    let request = LlmRequest {
        model: "other-model".into(),
        config: GenerateConfig {
            temperature: Some(0.0),
            max_output_tokens: Some(256),
            ..GenerateConfig::default()
        },
        ..user_request("b")
    };
    assert_eq!(run(&llm, request, false).await.len(), 1);
    let params = provider.params();
    assert_eq!(
        params[0],
        GenerateParams {
            model: "test-model".into(),
            messages: vec![msg(Role::User, "a")],
            ..GenerateParams::default()
        }
    );
    assert_eq!(
        params[1],
        GenerateParams {
            model: "other-model".into(),
            messages: vec![msg(Role::User, "b")],
            temperature: Some(0.0),
            max_tokens: Some(256),
            ..GenerateParams::default()
        }
    );
}

#[tokio::test]
async fn cancellation_reaches_the_provider_and_ends_the_stream() {
    let provider = Arc::new(Scripted {
        events: vec![text("par")],
        hang: true,
        ..Scripted::default()
    });
    let llm = adapter(&provider);
    let ctx = RequestContext::default();
    let mut out = llm.generate_content(&ctx, user_request("hi"), true);
    assert_eq!(out.next().await.unwrap().unwrap(), partial_text("par"));
    let (_, token) = provider.calls.lock().unwrap()[0].clone();
    assert!(!token.is_cancelled());
    ctx.cancel.cancel();
    assert!(token.is_cancelled(), "the provider got the caller's token");
    let next = tokio::time::timeout(Duration::from_secs(5), out.next())
        .await
        .expect("stream ends promptly");
    assert_eq!(provider_error(&next.unwrap()), &ProviderError::Cancelled);
    assert!(out.next().await.is_none());
}
