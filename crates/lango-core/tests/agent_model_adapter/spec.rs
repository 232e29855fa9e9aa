//! The spec scenarios (000/001/003: "SystemInstruction Forwarding", "Model adapter streams LLM
//! responses", "convertMessages forwards FunctionCall ID").

use super::support::*;

#[tokio::test]
async fn system_instruction_present_in_request() {
    let request = LlmRequest {
        contents: vec![Content::user_text("hello"), model(vec![Part::text("hi")])],
        config: instruction(&["You are Lango."]),
        ..LlmRequest::default()
    };
    let params = sent_params(request).await;
    assert_eq!(
        params.messages,
        vec![
            msg(Role::System, "You are Lango."),
            msg(Role::User, "hello"),
            msg(Role::Assistant, "hi")
        ]
    );
}

#[tokio::test]
async fn system_instruction_absent() {
    // No config at all.
    let params = sent_params(user_request("hello")).await;
    assert_eq!(params.messages, vec![msg(Role::User, "hello")]);
    // A config without an instruction, with only an empty text, with no text parts.
    let configs = [
        GenerateConfig {
            temperature: Some(0.5),
            ..GenerateConfig::default()
        },
        instruction(&[""]),
        instruction(&[]),
        GenerateConfig {
            system_instruction: Some(Content::new("system", vec![fc("c", "exec", json!({}))])),
            ..GenerateConfig::default()
        },
    ];
    for config in configs {
        let request = LlmRequest {
            config,
            ..user_request("hello")
        };
        assert_eq!(
            sent_params(request).await.messages,
            vec![msg(Role::User, "hello")]
        );
    }
}

#[tokio::test]
async fn multi_part_system_instruction() {
    let request = LlmRequest {
        config: instruction(&["Line one.", "", "Line two.", "Line three."]),
        ..user_request("q")
    };
    let params = sent_params(request).await;
    assert_eq!(
        params.messages,
        vec![
            msg(Role::System, "Line one.\nLine two.\nLine three."),
            msg(Role::User, "q")
        ]
    );
}

#[tokio::test]
async fn non_streaming_mode_accumulates_complete_response() {
    let usage = Usage {
        input_tokens: 10,
        output_tokens: 2,
        total_tokens: 12,
        cache_tokens: 0,
    };
    let out = responses(
        vec![text("Hello "), text("world"), done(Some(usage))],
        false,
    )
    .await;
    assert_eq!(
        out,
        vec![final_response(vec![Part::text("Hello world")], Some(usage))]
    );
}

#[tokio::test]
async fn non_streaming_mode_accumulates_tool_calls() {
    let out = responses(
        vec![
            chunk(Some(0), "call_9", "read_file", r#"{"path":"a.txt"}"#),
            done(None),
        ],
        false,
    )
    .await;
    assert_eq!(
        out,
        vec![final_response(
            vec![fc("call_9", "read_file", json!({"path": "a.txt"}))],
            None
        )]
    );
}

#[tokio::test]
async fn streaming_mode_yields_partial_events_and_complete_final() {
    let out = responses(vec![text("Hello "), text("world"), done(None)], true).await;
    assert_eq!(
        out,
        vec![
            partial_text("Hello "),
            partial_text("world"),
            final_response(vec![Part::text("Hello world")], None)
        ]
    );
}

#[tokio::test]
async fn provider_error_propagates_correctly() {
    let failure = ProviderError::Interrupted {
        message: "connection reset".into(),
    };
    for stream in [false, true] {
        // Events after the error are never read: the error is the last item.
        let provider = Scripted::new(vec![
            text("par"),
            StreamEvent::Error(failure.clone()),
            text("tial"),
            done(None),
        ]);
        let out = run(&adapter(&provider), user_request("hi"), stream).await;
        let expected_len = if stream { 2 } else { 1 };
        assert_eq!(out.len(), expected_len, "stream={stream}: {out:?}");
        if stream {
            assert_eq!(out[0].as_ref().unwrap(), &partial_text("par"));
        }
        assert_eq!(provider_error(out.last().unwrap()), &failure);
    }
}

#[tokio::test]
async fn function_call_with_original_id_in_convert_messages() {
    let messages = sent_messages(vec![
        Content::user_text("list files"),
        model(vec![
            fc("adk-uuid-123", "exec", json!({"command": "ls"})),
            fc("", "read", json!({})),
        ]),
    ])
    .await;
    assert_eq!(messages[1].role, Role::Assistant);
    assert_eq!(
        messages[1].tool_calls,
        vec![
            call_req("adk-uuid-123", "exec", r#"{"command":"ls"}"#),
            call_req("call_read", "read", "{}")
        ]
    );
}
