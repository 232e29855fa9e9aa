//! One user turn: tool calls and their one response event, streaming, errors, bounds and
//! cancellation.

use super::support::*;

#[tokio::test]
async fn tool_call_round_trip() {
    let model = ScriptedLlm::new([
        say(["Let me check. "]).with_calls(call("call-42", "echo", json!({"text": "ping"}))),
        say(["The echo said ping."]),
    ]);
    let f = fixture("lango-agent").await;
    let runner =
        f.runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(Arc::default())));
    let (events, error) = run_all(&runner, "echo ping", false).await;
    assert!(error.is_none(), "{error:?}");

    // Events: model call, function response, final answer (turn complete).
    assert_eq!(events.len(), 3);
    let call_event = &events[0];
    assert!(!call_event.partial && !call_event.turn_complete);
    let response = &events[1].content.as_ref().unwrap();
    assert_eq!(response.role, roles::FUNCTION);
    assert_eq!(response.parts.len(), 1);
    let fr = response.parts[0].function_response.as_ref().unwrap();
    assert_eq!((fr.id.as_str(), fr.name.as_str()), ("call-42", "echo"));
    assert_eq!(
        Value::Object(fr.response.clone()),
        json!({"echo": {"text": "ping"}})
    );
    assert!(events[2].turn_complete);
    assert_eq!(
        events[2].content.as_ref().unwrap().text(),
        "The echo said ping."
    );

    // The second model call sees the call and its response with the same id.
    let second = &model.seen()[1].request;
    let call_ids: Vec<String> = second
        .contents
        .iter()
        .flat_map(|c| &c.parts)
        .filter_map(|p| p.function_call.as_ref())
        .map(|c| c.id.clone())
        .collect();
    let response_ids: Vec<String> = second
        .contents
        .iter()
        .flat_map(|c| &c.parts)
        .filter_map(|p| p.function_response.as_ref())
        .map(|r| r.id.clone())
        .collect();
    assert_eq!(call_ids, ["call-42"]);
    assert_eq!(response_ids, ["call-42"]);

    // Persisted: user, assistant (call), tool (output), assistant (final answer).
    let rows = f.rows().await;
    let roles_: Vec<&str> = rows.iter().map(|r| r.role.as_str()).collect();
    assert_eq!(roles_, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(rows[0].content, "echo ping");
    assert_eq!(rows[1].tool_calls[0].id, "call-42");
    assert_eq!(rows[2].tool_calls[0].id, "call-42");
    assert_eq!(
        serde_json::from_str::<Value>(&rows[2].tool_calls[0].output).unwrap(),
        json!({"echo": {"text": "ping"}})
    );
    assert_eq!(rows[3].content, "The echo said ping.");
    assert_eq!(rows[3].author, "lango-agent");
}

#[tokio::test]
async fn several_calls_give_one_function_response_event() {
    let model = ScriptedLlm::new([
        call("a", "echo", json!({"text": "1"})).with_calls(call("b", "echo", json!({"text": "2"}))),
        say(["both done"]),
    ]);
    let f = fixture("lango-agent").await;
    let runner =
        f.runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(Arc::default())));
    let (events, error) = run_all(&runner, "two", false).await;
    assert!(error.is_none(), "{error:?}");
    let response = events[1].content.as_ref().unwrap();
    let ids: Vec<&str> = response
        .parts
        .iter()
        .map(|p| p.function_response.as_ref().unwrap().id.as_str())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    let rows = f.rows().await;
    assert_eq!(
        rows.iter().filter(|r| r.role == "tool").count(),
        1,
        "one function-response event"
    );
    assert_no_dangling_calls(&rows);
}

#[tokio::test]
async fn streaming_forwards_partials_without_persisting_them() {
    let model = ScriptedLlm::new([say(["Hel", "lo"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model));
    let (events, error) = run_all(&runner, "hi", true).await;
    assert!(error.is_none());
    let partial: Vec<String> = events
        .iter()
        .filter(|e| e.partial)
        .map(|e| e.content.as_ref().unwrap().text())
        .collect();
    assert_eq!(partial, ["Hel", "lo"]);
    let last = events.last().unwrap();
    assert!(!last.partial && last.turn_complete);
    assert_eq!(last.content.as_ref().unwrap().text(), "Hello");
    let rows = f.rows().await;
    assert_eq!(
        rows.iter().map(|r| r.content.as_str()).collect::<Vec<_>>(),
        ["hi", "Hello"]
    );
}

#[tokio::test]
async fn partial_call_notifications_are_not_executed() {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedLlm::new([call("c1", "echo", json!({"text": "x"})), say(["ok"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model).with_tool(echo_tool(ran.clone())));
    let (events, error) = run_all(&runner, "go", true).await;
    assert!(error.is_none());
    assert!(events
        .iter()
        .any(|e| e.partial && e.content.as_ref().unwrap().parts[0].function_call.is_some()));
    assert_eq!(
        ran.lock().unwrap().len(),
        1,
        "the call ran once, from the final response"
    );
}

#[tokio::test]
async fn tool_error_goes_back_to_the_model_and_the_run_continues() {
    let model = ScriptedLlm::new([call("c1", "flaky", json!({})), say(["sorry, it failed"])]);
    let flaky = FnTool::arc("flaky", json!({}), |_, _| {
        Box::pin(async { Err("permission denied".to_owned()) })
    });
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()).with_tool(flaky));
    let (events, error) = run_all(&runner, "try", false).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        tool_response(&events[1]),
        json!({"error": "permission denied"})
    );
    assert_eq!(model.calls(), 2);
    assert_eq!(
        events.last().unwrap().content.as_ref().unwrap().text(),
        "sorry, it failed"
    );
}

#[tokio::test]
async fn unknown_tool_goes_back_to_the_model_as_an_error() {
    let model = ScriptedLlm::new([call("c1", "nonexistent", json!({})), say(["ok"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model));
    let (events, error) = run_all(&runner, "try", false).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        tool_response(&events[1]),
        json!({"error": "tool \"nonexistent\" not found"})
    );
}

// Acceptance 18 through the runner: the timeout is reported to the model and the run continues.
#[tokio::test]
async fn acceptance_18_tool_timeout_in_a_run() {
    let model = ScriptedLlm::new([call("c1", "slow", json!({})), say(["moving on"])]);
    let slow = FnTool::arc("slow", json!({}), |_, _| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(json!({}))
        })
    });
    let f = fixture("lango-agent").await;
    let runner = f
        .runner(Agent::new("lango-agent", model).with_tool(slow))
        .with_tool_timeout(Duration::from_millis(50));
    let (events, error) = run_all(&runner, "go", false).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        tool_response(&events[1]),
        json!({"error": "tool \"slow\" timed out after 50ms"})
    );
    assert_eq!(
        events.last().unwrap().content.as_ref().unwrap().text(),
        "moving on"
    );
}

#[tokio::test]
async fn max_turns_bounds_the_loop() {
    let model = ScriptedLlm::forever(call("c", "echo", json!({"text": "again"})));
    let f = fixture("lango-agent").await;
    let runner = f
        .runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(Arc::default())))
        .with_max_turns(3);
    let (_, error) = run_all(&runner, "loop", false).await;
    assert!(matches!(error, Some(AgentError::MaxTurns(3))), "{error:?}");
    assert_eq!(model.calls(), 3);
}

#[tokio::test]
async fn cancelled_before_start_writes_nothing() {
    let model = ScriptedLlm::new([say(["never"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()));
    let ctx = ctx();
    ctx.cancel.cancel();
    let (events, error) = run_all_with(&runner, ctx, "hi", true).await;
    assert!(events.is_empty());
    assert!(matches!(error, Some(AgentError::Cancelled)), "{error:?}");
    assert_eq!(model.calls(), 0);
}

#[tokio::test]
async fn cancellation_stops_a_running_tool() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let hang = FnTool::arc("hang", json!({}), move |_, _| {
        let flag = flag.clone();
        Box::pin(async move {
            struct Guard(Arc<AtomicBool>);
            impl Drop for Guard {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let _guard = Guard(flag);
            std::future::pending::<()>().await;
            Ok(Value::Null)
        })
    });
    let model = ScriptedLlm::new([call("c1", "hang", json!({}))]);
    let f = fixture("lango-agent").await;
    let runner = f
        .runner(Agent::new("lango-agent", model).with_tool(hang))
        .with_tool_timeout(Duration::ZERO);
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let (_, error) = run_all_with(&runner, ctx, "go", false).await;
    assert!(matches!(error, Some(AgentError::Cancelled)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(dropped.load(Ordering::SeqCst), "the tool was aborted");
}

#[tokio::test]
async fn cancellation_stops_a_streaming_model() {
    let slow = Step {
        delay: Some(Duration::from_millis(100)),
        ..say(["a", "b", "c", "d", "e", "f", "g", "h"])
    };
    let model = ScriptedLlm::new([slow]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model));
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(250)).await;
        cancel.cancel();
    });
    let (events, error) = run_all_with(&runner, ctx, "go", true).await;
    assert!(matches!(error, Some(AgentError::Cancelled)), "{error:?}");
    assert!(events.iter().all(|e| e.partial));
    // What the user saw before stopping is kept, marked interrupted.
    let rows = f.rows().await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1].status, MessageStatus::Interrupted);
    assert!(
        !rows[1].content.is_empty() && "abcdefgh".starts_with(&rows[1].content),
        "{:?}",
        rows[1].content
    );
}

#[tokio::test]
async fn provider_error_mid_stream_keeps_the_partial_reply_interrupted_and_the_next_turn_works() {
    let model = ScriptedLlm::new([
        Step {
            chunks: vec!["par".into()],
            error: Some("connection reset".into()),
            ..Step::default()
        },
        say(["all good"]),
    ]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()));
    let (events, error) = run_all(&runner, "hi", true).await;
    assert_eq!(
        error.map(|e| e.to_string()).as_deref(),
        Some("connection reset")
    );
    assert_eq!(events.len(), 1);
    let rows = f.rows().await;
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[1].content.as_str(), rows[1].status),
        ("par", MessageStatus::Interrupted)
    );

    let (_, error) = run_all(&runner, "again", true).await;
    assert!(error.is_none(), "{error:?}");
    let rows = f.rows().await;
    assert_eq!(
        rows.last().map(|r| (r.content.as_str(), r.status)),
        Some(("all good", MessageStatus::Complete))
    );
    // The next request carried the kept partial reply as history.
    let seen = model.seen();
    assert!(
        seen[1].request.contents.iter().any(|c| c.text() == "par"),
        "{:?}",
        seen[1].request.contents
    );
}
