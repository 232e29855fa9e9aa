//! The tool adapter (spec 000 "Tool Adapter", acceptance 18): timeouts, errors, and tools that ignore
//! cancellation or block their thread.

use super::*;

// spec 000, Requirement: Tool Adapter — Scenario: Execute Legacy Tool
#[tokio::test]
async fn execute_legacy_tool() {
    let seen = Arc::new(Mutex::new(None));
    let seen_in_tool = Arc::clone(&seen);
    let tool = FnTool::arc(
        "exec",
        params([("command", ParamDef::new("string", "Command").required())]),
        move |ctx, args| {
            *seen_in_tool.lock().unwrap() =
                Some((ctx.call_id.clone(), ctx.session_key.clone(), args.clone()));
            let command = args
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Box::pin(async move { Ok(json!({"output": format!("ran {command}")})) })
        },
    );
    let adapter = ToolAdapter::new(tool, Duration::from_secs(5));

    assert_eq!(adapter.spec().name, "exec");
    assert_eq!(adapter.spec().description, "a test tool");
    assert_eq!(
        adapter.spec().parameters,
        json!({
            "type": "object",
            "properties": {"command": {"type": "string", "description": "Command"}},
            "required": ["command"],
            "additionalProperties": false
        })
    );

    let result = adapter
        .call(ctx(Some("s1")), obj(json!({"command": "ls"})))
        .await;
    assert_eq!(Value::Object(result), json!({"output": "ran ls"}));
    let (call_id, key, args) = seen.lock().unwrap().clone().expect("the tool ran");
    assert_eq!(call_id, "call_1");
    assert_eq!(key.as_deref(), Some("s1"));
    assert_eq!(Value::Object(args), json!({"command": "ls"}));
}

#[tokio::test]
async fn non_object_result_is_wrapped() {
    let tool = FnTool::arc("count", json!({}), |_, _| Box::pin(async { Ok(json!(3)) }));
    let result = ToolAdapter::new(tool, Duration::ZERO)
        .call(ctx(None), Map::new())
        .await;
    assert_eq!(Value::Object(result), json!({"result": 3}));
}

#[tokio::test]
async fn tool_error_becomes_error_object() {
    let tool = FnTool::arc("broken", json!({}), |_, _| {
        Box::pin(async { Err("disk on fire".to_owned()) })
    });
    let result = ToolAdapter::new(tool, Duration::from_secs(1))
        .call(ctx(None), Map::new())
        .await;
    assert_eq!(Value::Object(result), json!({"error": "disk on fire"}));
}

#[tokio::test]
async fn tool_panic_becomes_error_object() {
    let tool = FnTool::arc("boom", json!({}), |_, _| {
        Box::pin(async {
            panic!("tool bug");
        })
    });
    let result = ToolAdapter::new(tool, Duration::from_secs(1))
        .call(ctx(None), Map::new())
        .await;
    assert_eq!(
        Value::Object(result),
        json!({"error": "tool \"boom\" panicked"})
    );
}

// Acceptance 18: "slow" sleeps 200 ms, timeout 50 ms → an error naming the tool and the timeout.
#[tokio::test]
async fn acceptance_18_slow_tool_times_out() {
    let tool = FnTool::arc("slow", json!({}), |_, _| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(json!({"ok": true}))
        })
    });
    let adapter = ToolAdapter::new(tool, Duration::from_millis(50));
    let started = Instant::now();
    let result = adapter.call(ctx(None), Map::new()).await;
    assert!(
        started.elapsed() < Duration::from_millis(190),
        "returned at the timeout, not when the tool ended"
    );
    assert_eq!(
        Value::Object(result),
        json!({"error": "tool \"slow\" timed out after 50ms"})
    );
}

/// Sets its flag when dropped (the tool future was dropped, i.e. cancelled).
struct DropFlag(Arc<AtomicBool>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

// Acceptance 18 [FIX]: a tool that ignores cancellation (it waits on blocking work) does not
// hold up the call, and its future is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_18_tool_ignoring_cancellation_times_out() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let tool = FnTool::arc("stubborn", json!({}), move |_, _| {
        let guard = DropFlag(Arc::clone(&flag));
        Box::pin(async move {
            let _guard = guard;
            // Blocking work that no cancellation reaches.
            let _ = tokio::task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(1200)))
                .await;
            Ok(json!({"ok": true}))
        })
    });
    let adapter = ToolAdapter::new(tool, Duration::from_millis(50));
    let started = Instant::now();
    let result = adapter.call(ctx(None), Map::new()).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        Value::Object(result),
        json!({"error": "tool \"stubborn\" timed out after 50ms"})
    );
    // The tool future is dropped (its task aborted), not left running.
    let deadline = Instant::now() + Duration::from_secs(1);
    while !dropped.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "the timed-out tool future was dropped"
    );
}

// Acceptance 18 [FIX]: even a tool that blocks its own thread inside poll does not block the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceptance_18_tool_blocking_its_thread_times_out() {
    let tool = FnTool::arc("blocker", json!({}), |_, _| {
        Box::pin(async {
            std::thread::sleep(Duration::from_millis(1500));
            Ok(json!({"ok": true}))
        })
    });
    let adapter = ToolAdapter::new(tool, Duration::from_millis(50));
    let started = Instant::now();
    let result = adapter.call(ctx(None), Map::new()).await;
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        result["error"],
        json!("tool \"blocker\" timed out after 50ms")
    );
}

#[tokio::test]
async fn zero_timeout_means_no_limit() {
    let tool = FnTool::arc("slowish", json!({}), |_, _| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(80)).await;
            Ok(json!({"done": true}))
        })
    });
    let adapter = ToolAdapter::new(tool, Duration::ZERO);
    assert_eq!(adapter.timeout(), None);
    assert_eq!(
        Value::Object(adapter.call(ctx(None), Map::new()).await),
        json!({"done": true})
    );
}

#[tokio::test]
async fn dropping_the_call_aborts_the_tool() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let tool = FnTool::arc("forever", json!({}), move |_, _| {
        let guard = DropFlag(Arc::clone(&flag));
        Box::pin(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            Ok(Value::Null)
        })
    });
    let adapter = ToolAdapter::new(tool, Duration::ZERO);
    let outcome = tokio::time::timeout(
        Duration::from_millis(30),
        adapter.call(ctx(None), Map::new()),
    )
    .await;
    assert!(outcome.is_err());
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(dropped.load(Ordering::SeqCst));
}

#[test]
fn durations_print_like_the_reference() {
    assert_eq!(format_duration(Duration::from_millis(50)), "50ms");
    assert_eq!(format_duration(Duration::from_micros(1500)), "1.5ms");
    assert_eq!(format_duration(Duration::from_secs(120)), "2m0s");
    assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    assert_eq!(format_duration(Duration::from_secs(90)), "1m30s");
    assert_eq!(format_duration(Duration::from_secs(3600)), "1h0m0s");
    assert_eq!(format_duration(Duration::from_nanos(7)), "7ns");
    assert_eq!(format_duration(Duration::ZERO), "0s");
}
