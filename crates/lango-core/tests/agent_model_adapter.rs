//! `ModelAdapter` (REFERENCE §1.2–§1.4; specs 000/001/003 "SystemInstruction Forwarding",
//! "Model adapter streams LLM responses", "convertMessages forwards FunctionCall ID";
//! acceptance 1–5, 11–15).
//!
//! Most tests drive the adapter over `Scripted`, a fake `Provider` in this file that returns
//! fixed `StreamEvent`s and records the `GenerateParams` it was given (a seam no user sees).
//! `end_to_end_over_openai_compatible_client` runs it over the real OpenAI-compatible client
//! against the testkit's fake HTTP server to prove the wiring.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use lango_core::agent::model_adapter::ModelAdapter;
use lango_core::agent::{
    AgentError, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, Part, RequestContext,
};
use lango_core::provider::openai::OpenAiCompatible;
use lango_core::provider::{
    stream_of, BoxFuture, EventStream, GenerateParams, Message, ModelInfo, Provider,
    ProviderConfig, ProviderError, Role, StopReason, StreamEvent, ToolCallChunk, ToolCallRequest,
    ToolSpec, Usage,
};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// A provider that answers every request with the same events and records what it got.
#[derive(Debug, Default)]
struct Scripted {
    events: Vec<StreamEvent>,
    /// Never end after the events (for cancellation).
    hang: bool,
    calls: Mutex<Vec<(GenerateParams, CancellationToken)>>,
}

impl Scripted {
    fn new(events: Vec<StreamEvent>) -> Arc<Self> {
        Arc::new(Self {
            events,
            ..Self::default()
        })
    }

    fn params(&self) -> Vec<GenerateParams> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }

    fn only_params(&self) -> GenerateParams {
        let all = self.params();
        assert_eq!(all.len(), 1, "exactly one provider call");
        all.into_iter().next().unwrap()
    }
}

impl Provider for Scripted {
    fn id(&self) -> &str {
        "scripted"
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        self.calls.lock().unwrap().push((params, cancel));
        let events = stream_of(self.events.clone());
        if self.hang {
            Box::pin(events.chain(futures_util::stream::pending()))
        } else {
            events
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

fn adapter(provider: &Arc<Scripted>) -> ModelAdapter {
    ModelAdapter::new(provider.clone(), "test-model")
}

async fn run(
    llm: &dyn Llm,
    request: LlmRequest,
    stream: bool,
) -> Vec<Result<LlmResponse, AgentError>> {
    llm.generate_content(&RequestContext::default(), request, stream)
        .collect()
        .await
}

/// Runs the adapter over `events` and returns the responses, all of which must be Ok.
async fn responses(events: Vec<StreamEvent>, stream: bool) -> Vec<LlmResponse> {
    let provider = Scripted::new(events);
    run(&adapter(&provider), user_request("hi"), stream)
        .await
        .into_iter()
        .map(|r| r.expect("no error"))
        .collect()
}

/// The messages the provider received for `request`.
async fn sent_params(request: LlmRequest) -> GenerateParams {
    let provider = Scripted::new(vec![done(None)]);
    let out = run(&adapter(&provider), request, false).await;
    assert_eq!(out.len(), 1);
    provider.only_params()
}

async fn sent_messages(contents: Vec<Content>) -> Vec<Message> {
    sent_params(LlmRequest {
        contents,
        ..LlmRequest::default()
    })
    .await
    .messages
}

fn user_request(text: &str) -> LlmRequest {
    LlmRequest {
        contents: vec![Content::user_text(text)],
        ..LlmRequest::default()
    }
}

fn text(t: &str) -> StreamEvent {
    StreamEvent::TextDelta(t.into())
}

fn done(usage: Option<Usage>) -> StreamEvent {
    StreamEvent::Done {
        usage,
        stop: StopReason::Finished,
    }
}

fn chunk(index: Option<u32>, id: &str, name: &str, args: &str) -> StreamEvent {
    StreamEvent::ToolCall(ToolCallChunk {
        index,
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        ..ToolCallChunk::default()
    })
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn model(parts: Vec<Part>) -> Content {
    Content::new("model", parts)
}

fn fc(id: &str, name: &str, args: Value) -> Part {
    Part::function_call(id, name, obj(args))
}

fn fr(id: &str, name: &str, response: Value) -> Part {
    Part::function_response(id, name, obj(response))
}

fn partial_text(t: &str) -> LlmResponse {
    LlmResponse {
        content: Some(model(vec![Part::text(t)])),
        partial: true,
        turn_complete: false,
        usage: None,
        truncated: false,
    }
}

fn final_response(parts: Vec<Part>, usage: Option<Usage>) -> LlmResponse {
    LlmResponse {
        content: Some(model(parts)),
        partial: false,
        turn_complete: true,
        usage,
        truncated: false,
    }
}

fn instruction(parts: &[&str]) -> GenerateConfig {
    GenerateConfig {
        system_instruction: Some(Content::new(
            "system",
            parts.iter().map(|t| Part::text(*t)).collect(),
        )),
        ..GenerateConfig::default()
    }
}

fn msg(role: Role, content: &str) -> Message {
    Message::new(role, content)
}

fn tool_msg(id: &str, name: &str, content: &str) -> Message {
    Message::tool_result(id, name, content)
}

fn call_req(id: &str, name: &str, arguments: &str) -> ToolCallRequest {
    ToolCallRequest {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        ..ToolCallRequest::default()
    }
}

fn provider_error(result: &Result<LlmResponse, AgentError>) -> &ProviderError {
    match result {
        Err(AgentError::Provider(e)) => e,
        other => panic!("expected a provider error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Spec scenarios
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// REFERENCE acceptance cases
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// [FIX]es and details of REFERENCE §1.2–§1.4
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// End to end over the real OpenAI-compatible client
// ---------------------------------------------------------------------------------------

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
