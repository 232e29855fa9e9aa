//! REFERENCE acceptance cases 1–5 and 11–15.

use super::support::*;

#[tokio::test]
async fn acceptance_01_text_deltas_stream_and_non_stream() {
    let events = vec![text("Hello "), text("world"), done(None)];
    let final_hello = final_response(vec![Part::text("Hello world")], None);
    assert_eq!(
        responses(events.clone(), true).await,
        vec![
            partial_text("Hello "),
            partial_text("world"),
            final_hello.clone()
        ]
    );
    assert_eq!(responses(events, false).await, vec![final_hello]);
}

#[tokio::test]
async fn acceptance_02_start_failure_and_mid_stream_error() {
    let deadline = ProviderError::Timeout {
        phase: "waiting for the response".into(),
    };
    let provider = Scripted::new(vec![StreamEvent::Error(deadline.clone())]);
    let out = run(&adapter(&provider), user_request("hi"), false).await;
    assert_eq!(out.len(), 1);
    assert_eq!(provider_error(&out[0]), &deadline);

    let provider = Scripted::new(vec![
        text("partial"),
        StreamEvent::Error(ProviderError::Cancelled),
    ]);
    let out = run(&adapter(&provider), user_request("hi"), true).await;
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].as_ref().unwrap(), &partial_text("partial"));
    assert_eq!(provider_error(&out[1]), &ProviderError::Cancelled);
}

#[tokio::test]
async fn acceptance_03_non_stream_tool_call() {
    let out = responses(
        vec![
            chunk(Some(0), "call_1", "exec", r#"{"command":"ls"}"#),
            done(None),
        ],
        false,
    )
    .await;
    assert_eq!(
        out,
        vec![final_response(
            vec![fc("call_1", "exec", json!({"command": "ls"}))],
            None
        )]
    );
}

#[tokio::test]
async fn acceptance_04_system_instruction_prepended_once() {
    let request = LlmRequest {
        contents: vec![Content::user_text("hello")],
        config: instruction(&["You are a helpful assistant.", "Always be concise."]),
        ..LlmRequest::default()
    };
    let messages = sent_params(request).await.messages;
    assert_eq!(
        messages,
        vec![
            msg(
                Role::System,
                "You are a helpful assistant.\nAlways be concise."
            ),
            msg(Role::User, "hello")
        ]
    );
    assert_eq!(sent_params(user_request("hello")).await.messages.len(), 1);
    let only_empty = LlmRequest {
        config: instruction(&[""]),
        ..user_request("hello")
    };
    assert_eq!(
        sent_params(only_empty).await.messages,
        vec![msg(Role::User, "hello")]
    );
}

#[tokio::test]
async fn acceptance_05_streamed_call_notification_is_partial() {
    let out = responses(
        vec![
            chunk(Some(0), "call_abc", "exec", r#"{"comma"#),
            chunk(Some(0), "", "", r#"nd":"l"#),
            chunk(Some(0), "", "", r#"s"}"#),
            done(None),
        ],
        true,
    )
    .await;
    assert_eq!(
        out,
        vec![
            LlmResponse {
                content: Some(model(vec![fc("call_abc", "exec", json!({}))])),
                partial: true,
                turn_complete: false,
                usage: None,
                truncated: false,
            },
            final_response(vec![fc("call_abc", "exec", json!({"command": "ls"}))], None),
        ]
    );
}

#[tokio::test]
async fn acceptance_11_roles_map_and_empty_tool_names_skipped() {
    let messages = sent_messages(vec![
        Content::user_text("u"),
        model(vec![Part::text("m")]),
        Content::new("function", vec![Part::text("f")]),
        Content::new("system", vec![Part::text("s")]),
    ])
    .await;
    assert_eq!(
        messages,
        vec![
            msg(Role::User, "u"),
            msg(Role::Assistant, "m"),
            msg(Role::Tool, "f"),
            msg(Role::System, "s")
        ]
    );

    let spec = |name: &str| ToolSpec {
        name: name.into(),
        description: format!("{name} tool"),
        parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
    };
    let request = LlmRequest {
        config: GenerateConfig {
            tools: vec![spec("valid_tool"), spec("")],
            ..GenerateConfig::default()
        },
        ..user_request("hi")
    };
    assert_eq!(sent_params(request).await.tools, vec![spec("valid_tool")]);
    assert_eq!(
        sent_params(user_request("hi")).await.tools,
        Vec::<ToolSpec>::new()
    );
}

#[tokio::test]
async fn acceptance_12_empty_call_names_skipped_no_orphan_repair() {
    let messages = sent_messages(vec![model(vec![
        fc("call_1", "valid", json!({})),
        fc("call_2", "", json!({})),
    ])])
    .await;
    assert_eq!(messages.len(), 1);
    assert_eq!(
        messages[0].tool_calls,
        vec![call_req("call_1", "valid", "{}")]
    );

    // No orphan repair here: an unanswered call stays unanswered.
    let messages = sent_messages(vec![
        model(vec![fc("call_orphan", "exec", json!({}))]),
        Content::user_text("next"),
    ])
    .await;
    assert_eq!(
        messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::Assistant, Role::User]
    );
    assert_eq!(
        messages[0].tool_calls,
        vec![call_req("call_orphan", "exec", "{}")]
    );

    let messages = sent_messages(vec![
        Content::user_text("go"),
        model(vec![fc("call_p", "exec", json!({}))]),
    ])
    .await;
    assert_eq!(
        messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant]
    );
}

#[tokio::test]
async fn acceptance_13_matched_call_and_response() {
    let messages = sent_messages(vec![
        model(vec![fc("call_matched", "exec", json!({"command": "ls"}))]),
        Content::new(
            "function",
            vec![fr("call_matched", "exec", json!({"output": "file.txt"}))],
        ),
        Content::user_text("thanks"),
    ])
    .await;
    let mut assistant = msg(Role::Assistant, "");
    assistant.tool_calls = vec![call_req("call_matched", "exec", r#"{"command":"ls"}"#)];
    assert_eq!(
        messages,
        vec![
            assistant,
            tool_msg("call_matched", "exec", r#"{"output":"file.txt"}"#),
            msg(Role::User, "thanks")
        ]
    );
}

#[tokio::test]
async fn acceptance_14_multiple_responses_split() {
    let messages = sent_messages(vec![Content::new(
        "function",
        vec![
            fr("call_a", "read", json!({"content": "A"})),
            Part::text("dropped when split"),
            fr("call_b", "exec", json!({"output": "B"})),
            fr("", "search", json!({"results": []})),
        ],
    )])
    .await;
    assert_eq!(
        messages,
        vec![
            tool_msg("call_a", "read", r#"{"content":"A"}"#),
            tool_msg("call_b", "exec", r#"{"output":"B"}"#),
            tool_msg("call_search", "search", r#"{"results":[]}"#),
        ]
    );

    let messages = sent_messages(vec![Content::new(
        "function",
        vec![fr("call_only", "exec", json!({"ok": true}))],
    )])
    .await;
    assert_eq!(
        messages,
        vec![tool_msg("call_only", "exec", r#"{"ok":true}"#)]
    );

    let messages = sent_messages(vec![model(vec![
        fc("call_a", "read", json!({})),
        fc("call_b", "exec", json!({})),
    ])])
    .await;
    assert_eq!(messages.len(), 1);
    assert_eq!(
        messages[0].tool_calls,
        vec![
            call_req("call_a", "read", "{}"),
            call_req("call_b", "exec", "{}")
        ]
    );
}

#[tokio::test]
async fn acceptance_15_response_without_id_gets_call_prefix() {
    let messages = sent_messages(vec![Content::new(
        "function",
        vec![fr("", "exec", json!({"output": "x"}))],
    )])
    .await;
    assert_eq!(
        messages,
        vec![tool_msg("call_exec", "exec", r#"{"output":"x"}"#)]
    );
}
