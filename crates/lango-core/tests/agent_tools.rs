//! Tool schema normalisation, the tool adapter (timeouts, errors) and the built-in tools
//! (REFERENCE §1.5, acceptance 16–18; spec 000 "Tool Adapter").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lango_core::agent::tools::{
    builtin_tools, format_duration, normalize_schema, params, CurrentDateTime,
    MemoryListObservations, MemoryListReflections, ParamDef, ToolAdapter,
};
use lango_core::agent::{Tool, ToolContext};
use lango_core::provider::BoxFuture;
use lango_core::store::{Observation, Reflection, Store};
use serde_json::{json, Map, Value};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Fakes

type RunFn = dyn Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
    + Send
    + Sync;

/// A tool whose body is a closure.
struct FnTool {
    name: String,
    schema: Value,
    run: Box<RunFn>,
}

impl FnTool {
    fn arc(
        name: &str,
        schema: Value,
        run: impl Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
            + Send
            + Sync
            + 'static,
    ) -> Arc<dyn Tool> {
        Arc::new(Self {
            name: name.into(),
            schema,
            run: Box::new(run),
        })
    }
}

impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        (self.run)(ctx, args)
    }
}

fn ctx(session_key: Option<&str>) -> ToolContext {
    ToolContext {
        agent_name: "lango-agent".into(),
        session_key: session_key.map(str::to_owned),
        call_id: "call_1".into(),
        progress: None,
    }
}

fn obj(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("object")
}

async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

// ---------------------------------------------------------------------------------------------
// Schema normalisation (acceptance 16, 17)

#[test]
fn acceptance_16_full_json_schema_keeps_properties_and_required() {
    let input = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "offset": {"type": "integer"},
            "limit": {"type": "integer"}
        },
        "required": ["path"]
    });
    let schema = normalize_schema(&input);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": input["properties"].clone(),
            "required": ["path"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_full_json_schema_keeps_its_required_order_and_only_strings() {
    let input = json!({
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
        "required": ["c", 7, "a", null]
    });
    assert_eq!(normalize_schema(&input)["required"], json!(["c", "a"]));
    // A non-list `required` gives none.
    let input = json!({"properties": {"a": {"type": "string"}}, "required": "a"});
    assert!(normalize_schema(&input).get("required").is_none());
}

#[test]
fn acceptance_16_typed_definitions_required_flag() {
    let input = params([
        (
            "command",
            ParamDef::new("string", "The command to run").required(),
        ),
        ("timeout", ParamDef::new("integer", "Seconds")),
    ]);
    let schema = normalize_schema(&input);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command to run"},
                "timeout": {"type": "integer", "description": "Seconds"}
            },
            "required": ["command"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_typed_definition_enum_is_kept() {
    let input = params([(
        "mode",
        ParamDef::new("string", "")
            .with_enum(["fast", "slow"])
            .required(),
    )]);
    assert_eq!(
        normalize_schema(&input),
        json!({
            "type": "object",
            "properties": {"mode": {"type": "string", "enum": ["fast", "slow"]}},
            "required": ["mode"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_raw_objects_with_boolean_required_and_nested_items() {
    let input = json!({
        "arg": {"type": "string", "required": true},
        "tags": {"type": "array", "description": "Tags", "items": {"type": "string"}},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "label": {"type": "string", "enum": ["x", "y"]}},
                "required": ["id"]
            }
        }
    });
    let schema = normalize_schema(&input);
    assert_eq!(schema["required"], json!(["arg"]));
    assert_eq!(schema["properties"]["arg"], json!({"type": "string"}));
    assert_eq!(
        schema["properties"]["tags"],
        json!({"type": "array", "description": "Tags", "items": {"type": "string"}})
    );
    assert_eq!(
        schema["properties"]["rows"],
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "label": {"type": "string", "enum": ["x", "y"]}},
                "required": ["id"]
            }
        })
    );
    // Only the top level is closed.
    assert_eq!(schema["additionalProperties"], json!(false));
    assert!(schema["properties"]["rows"]["items"]
        .get("additionalProperties")
        .is_none());
}

#[test]
fn acceptance_16_nested_boolean_required_adds_nested_names() {
    let input = json!({
        "filter": {"type": "object", "properties": {"from": {"type": "string", "required": true}, "to": {"type": "string"}}}
    });
    let schema = normalize_schema(&input);
    assert_eq!(
        schema["properties"]["filter"],
        json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from"]})
    );
    assert!(
        schema.get("required").is_none(),
        "a nested flag does not make the parent required"
    );
}

#[test]
fn required_order_is_declaration_order_fix() {
    // Parsed JSON objects iterate by name, so declaration order here is name order; the
    // reference's order was random (map iteration). Repeat to catch any nondeterminism.
    let input = json!({
        "zeta": {"type": "string", "required": true},
        "alpha": {"type": "string", "required": true},
        "mid": {"type": "string"},
        "beta": {"type": "string", "required": true}
    });
    for _ in 0..20 {
        assert_eq!(
            normalize_schema(&input)["required"],
            json!(["alpha", "beta", "zeta"])
        );
    }
}

#[test]
fn acceptance_17_unknown_value_type_becomes_string() {
    let input = json!({"a": 42, "b": "text", "c": [1, 2], "d": null, "e": true});
    let schema = normalize_schema(&input);
    for name in ["a", "b", "c", "d", "e"] {
        assert_eq!(
            schema["properties"][name],
            json!({"type": "string"}),
            "{name}"
        );
    }
    assert!(schema.get("required").is_none());
}

#[test]
fn acceptance_17_empty_params() {
    let empty = json!({"type": "object", "properties": {}, "additionalProperties": false});
    assert_eq!(normalize_schema(&json!({})), empty);
    assert_eq!(normalize_schema(&Value::Null), empty);
    assert_eq!(
        normalize_schema(&json!({"type": "object"})),
        empty,
        "a bare object schema has no parameter named type"
    );
}

#[test]
fn missing_type_is_inferred() {
    let input = json!({
        "o": {"properties": {"x": {"type": "integer"}}},
        "l": {"items": {"type": "number"}},
        "s": {"description": "plain"}
    });
    let schema = normalize_schema(&input);
    assert_eq!(schema["properties"]["o"]["type"], "object");
    assert_eq!(schema["properties"]["l"]["type"], "array");
    assert_eq!(
        schema["properties"]["s"],
        json!({"type": "string", "description": "plain"})
    );
}

// ---------------------------------------------------------------------------------------------
// Tool adapter (spec 000 "Tool Adapter", acceptance 18)

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

// ---------------------------------------------------------------------------------------------
// Built-in tools

#[test]
fn builtins_are_safe_by_default() {
    let names: Vec<String> = builtin_tools(None)
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["current_datetime"]);
    for name in &names {
        for banned in ["file", "shell", "exec", "write", "read", "delete"] {
            assert!(!name.contains(banned), "{name}");
        }
    }
}

#[tokio::test]
async fn builtins_with_a_store_add_the_memory_listings() {
    let (_dir, store) = temp_store().await;
    let names: Vec<String> = builtin_tools(Some(store))
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "current_datetime",
            "memory_list_observations",
            "memory_list_reflections"
        ]
    );
}

#[tokio::test]
async fn current_datetime_reports_local_utc_and_weekday() {
    let adapter = ToolAdapter::new(Arc::new(CurrentDateTime), Duration::from_secs(1));
    assert_eq!(
        adapter.spec().parameters,
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    let result = adapter.call(ctx(None), Map::new()).await;
    let local = chrono::DateTime::parse_from_rfc3339(result["local"].as_str().unwrap())
        .expect("local is RFC 3339");
    let utc = chrono::DateTime::parse_from_rfc3339(result["utc"].as_str().unwrap())
        .expect("utc is RFC 3339");
    assert!(result["utc"].as_str().unwrap().ends_with('Z'));
    assert_eq!(local.timestamp(), utc.timestamp());
    assert!((chrono::Utc::now().timestamp() - utc.timestamp()).abs() < 5);
    assert_eq!(
        result["weekday"].as_str().unwrap(),
        local.format("%A").to_string()
    );
}

#[tokio::test]
async fn memory_listings_are_empty_until_the_memory_writes() {
    let (_dir, store) = temp_store().await;
    store.create_session("s1", "").await.unwrap();
    let observations = ToolAdapter::new(
        Arc::new(MemoryListObservations::new(store.clone())),
        Duration::from_secs(5),
    );
    let reflections = ToolAdapter::new(
        Arc::new(MemoryListReflections::new(store.clone())),
        Duration::from_secs(5),
    );
    assert_eq!(
        Value::Object(observations.call(ctx(Some("s1")), Map::new()).await),
        json!({"observations": []})
    );
    assert_eq!(
        Value::Object(reflections.call(ctx(Some("s1")), Map::new()).await),
        json!({"reflections": []})
    );
    // No session in the context, or an unknown one → empty.
    assert_eq!(
        Value::Object(observations.call(ctx(None), Map::new()).await),
        json!({"observations": []})
    );
    assert_eq!(
        Value::Object(reflections.call(ctx(Some("nope")), Map::new()).await),
        json!({"reflections": []})
    );
}

fn observation(key: &str, content: &str) -> Observation {
    Observation {
        id: String::new(),
        session_key: key.into(),
        content: content.into(),
        token_count: 5,
        seq_start: 1,
        seq_end: 2,
        created_at: 0,
    }
}

#[tokio::test]
async fn memory_listings_show_only_the_current_session() {
    let (_dir, store) = temp_store().await;
    store.create_session("s1", "").await.unwrap();
    store.create_session("s2", "").await.unwrap();
    for content in ["o1", "o2", "o3"] {
        store
            .save_observation(observation("s1", content))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    store
        .save_observation(observation("s2", "other"))
        .await
        .unwrap();
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: "s1".into(),
            content: "user builds a REST API".into(),
            token_count: 7,
            generation: 1,
            seq_start: 1,
            seq_end: 2,
            source_token_count: 15,
            created_at: 0,
        })
        .await
        .unwrap();

    let observations = ToolAdapter::new(
        Arc::new(MemoryListObservations::new(store.clone())),
        Duration::from_secs(5),
    );
    let result = observations.call(ctx(Some("s1")), Map::new()).await;
    let contents: Vec<&str> = result["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["o1", "o2", "o3"]);

    let result = observations
        .call(ctx(Some("s1")), obj(json!({"limit": 2})))
        .await;
    let contents: Vec<&str> = result["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        ["o2", "o3"],
        "limit keeps the newest, oldest first"
    );

    let result = observations
        .call(ctx(Some("s1")), obj(json!({"limit": "two"})))
        .await;
    assert!(result["error"].as_str().unwrap().contains("limit"));

    let reflections = ToolAdapter::new(
        Arc::new(MemoryListReflections::new(store.clone())),
        Duration::from_secs(5),
    );
    let result = reflections.call(ctx(Some("s1")), Map::new()).await;
    assert_eq!(result["reflections"].as_array().unwrap().len(), 1);
    assert_eq!(
        result["reflections"][0]["content"],
        "user builds a REST API"
    );
    assert_eq!(result["reflections"][0]["generation"], 1);
    let result = reflections.call(ctx(Some("s2")), Map::new()).await;
    assert_eq!(result["reflections"], json!([]));
}
