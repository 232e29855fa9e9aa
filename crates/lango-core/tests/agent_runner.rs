//! The runner (one user turn over real SQLite sessions) and `run_and_collect`
//! (REFERENCE §1.6, acceptance 19–22; spec 003 "Agent hallucination retry in RunAndCollect",
//! "Agent text collection avoids duplication"; spec 000 "Agent Initialization").
//!
//! The model is a scripted `Llm` that behaves like the model adapter: with `stream = true`
//! it yields one partial response per text chunk, then the complete final response.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use lango_core::agent::runner::{
    correction_message, extract_missing_agent, run_and_collect, Agent, Runner, TRANSFER_TO_AGENT,
};
use lango_core::agent::session::SessionServiceAdapter;
use lango_core::agent::tools::{params, ParamDef};
use lango_core::agent::{
    roles, AgentError, Content, Event, Llm, LlmRequest, LlmResponse, LlmStream, Part,
    RequestContext, Tool, ToolContext,
};
use lango_core::config::AgentSettings;
use lango_core::provider::BoxFuture;
use lango_core::store::{MessageStatus, Store, StoredMessage};
use lango_core::tokens::FixedCostCounter;
use serde_json::{json, Map, Value};
use tempfile::TempDir;

const KEY: &str = "desktop:chat-1";
const CORRECTION_21: &str = "[System: Agent \"browser_agent\" does not exist. Valid agents: planner, researcher. Please retry using one of the valid agent names listed above.]";

// ---------------------------------------------------------------------------------------------
// Scripted model

/// One scripted model call.
#[derive(Debug, Clone, Default)]
struct Step {
    chunks: Vec<String>,
    calls: Vec<(String, String, Value)>,
    thought: Option<String>,
    /// Fails after the partial chunks, with no final response.
    error: Option<String>,
    /// Yields only the final response, even when streaming.
    final_only: bool,
    delay: Option<Duration>,
}

fn say<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Step {
    Step {
        chunks: chunks.into_iter().map(Into::into).collect(),
        ..Step::default()
    }
}

fn call(id: &str, name: &str, args: Value) -> Step {
    Step {
        calls: vec![(id.into(), name.into(), args)],
        ..Step::default()
    }
}

fn transfer(agent: &str) -> Step {
    call(
        "call_transfer",
        TRANSFER_TO_AGENT,
        json!({"agent_name": agent}),
    )
}

fn fail(message: &str) -> Step {
    Step {
        error: Some(message.into()),
        ..Step::default()
    }
}

impl Step {
    fn with_calls(mut self, calls: Step) -> Self {
        self.calls.extend(calls.calls);
        self
    }
}

/// What the model saw on one call.
#[derive(Debug, Clone)]
struct Seen {
    session_key: Option<String>,
    agent_name: String,
    request: LlmRequest,
    stream: bool,
}

#[derive(Debug)]
struct ScriptedLlm {
    name: String,
    steps: Mutex<VecDeque<Step>>,
    seen: Mutex<Vec<Seen>>,
    /// Repeats the last step forever instead of running out.
    repeat_last: bool,
}

impl ScriptedLlm {
    fn new(steps: impl IntoIterator<Item = Step>) -> Arc<Self> {
        Self::named("scripted-model", steps)
    }

    fn named(name: &str, steps: impl IntoIterator<Item = Step>) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            steps: Mutex::new(steps.into_iter().collect()),
            seen: Mutex::default(),
            repeat_last: false,
        })
    }

    fn forever(step: Step) -> Arc<Self> {
        Arc::new(Self {
            name: "loop".into(),
            steps: Mutex::new([step].into()),
            seen: Mutex::default(),
            repeat_last: true,
        })
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

impl Llm for ScriptedLlm {
    fn name(&self) -> &str {
        &self.name
    }

    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream {
        self.seen.lock().unwrap().push(Seen {
            session_key: ctx.session_key.clone(),
            agent_name: ctx.agent_name.clone(),
            request,
            stream,
        });
        let step = {
            let mut steps = self.steps.lock().unwrap();
            if self.repeat_last && steps.len() == 1 {
                steps.front().cloned()
            } else {
                steps.pop_front()
            }
        };
        let Some(step) = step else {
            return Box::pin(futures_util::stream::iter([Err(AgentError::Other(
                "script exhausted".into(),
            ))]));
        };
        let mut items: Vec<Result<LlmResponse, AgentError>> = Vec::new();
        if stream && !step.final_only {
            if let Some(thought) = &step.thought {
                let mut part = Part::text(thought.clone());
                part.thought = true;
                items.push(Ok(LlmResponse {
                    content: Some(Content::new(roles::MODEL, vec![part])),
                    partial: true,
                    ..Default::default()
                }));
            }
            for chunk in &step.chunks {
                items.push(Ok(LlmResponse {
                    content: Some(Content::model_text(chunk.clone())),
                    partial: true,
                    ..Default::default()
                }));
            }
            for (id, name, _) in &step.calls {
                // The adapter's call notification: partial, args not yet complete.
                let part = Part::function_call(id.clone(), name.clone(), Map::new());
                items.push(Ok(LlmResponse {
                    content: Some(Content::new(roles::MODEL, vec![part])),
                    partial: true,
                    ..Default::default()
                }));
            }
        }
        if let Some(error) = step.error {
            items.push(Err(AgentError::Other(error)));
        } else {
            let mut parts = Vec::new();
            if let Some(thought) = &step.thought {
                let mut part = Part::text(thought.clone());
                part.thought = true;
                parts.push(part);
            }
            let text: String = step.chunks.concat();
            if !text.is_empty() {
                parts.push(Part::text(text));
            }
            for (id, name, args) in step.calls {
                parts.push(Part::function_call(
                    id,
                    name,
                    args.as_object().cloned().unwrap_or_default(),
                ));
            }
            items.push(Ok(LlmResponse {
                content: Some(Content::new(roles::MODEL, parts)),
                partial: false,
                turn_complete: true,
                ..Default::default()
            }));
        }
        let delay = step.delay;
        Box::pin(
            futures_util::stream::iter(items).then(move |item| async move {
                if let Some(delay) = delay {
                    tokio::time::sleep(delay).await;
                }
                item
            }),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Test tools

type RunFn = dyn Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
    + Send
    + Sync;

struct FnTool {
    name: String,
    schema: Value,
    run: Box<RunFn>,
}

fn tool(
    name: &str,
    schema: Value,
    run: impl Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<Value, String>>
        + Send
        + Sync
        + 'static,
) -> Arc<dyn Tool> {
    Arc::new(FnTool {
        name: name.into(),
        schema,
        run: Box::new(run),
    })
}

impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "test tool"
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

/// `echo`: returns its args under "echo", and records the contexts it saw.
fn echo_tool(seen: Arc<Mutex<Vec<ToolContext>>>) -> Arc<dyn Tool> {
    tool(
        "echo",
        params([("text", ParamDef::new("string", "What to echo").required())]),
        move |ctx, args| {
            seen.lock().unwrap().push(ctx);
            Box::pin(async move { Ok(json!({"echo": Value::Object(args)})) })
        },
    )
}

// ---------------------------------------------------------------------------------------------
// Fixture

struct Fixture {
    _dir: TempDir,
    store: Store,
    sessions: Arc<SessionServiceAdapter>,
}

async fn fixture(root_name: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        Arc::new(FixedCostCounter { cost: 1 }),
    )
    .await
    .expect("open store");
    let sessions = Arc::new(SessionServiceAdapter::new(store.clone(), root_name));
    Fixture {
        _dir: dir,
        store,
        sessions,
    }
}

impl Fixture {
    fn runner(&self, root: Agent) -> Runner {
        Runner::with_store_sessions(root, Arc::clone(&self.sessions))
    }

    async fn rows(&self) -> Vec<StoredMessage> {
        self.store.list_messages(KEY).await.expect("list messages")
    }
}

fn ctx() -> RequestContext {
    RequestContext::default()
}

async fn run_all(runner: &Runner, text: &str, stream: bool) -> (Vec<Event>, Option<AgentError>) {
    run_all_with(runner, ctx(), text, stream).await
}

async fn run_all_with(
    runner: &Runner,
    ctx: RequestContext,
    text: &str,
    stream: bool,
) -> (Vec<Event>, Option<AgentError>) {
    let mut events = Vec::new();
    let mut error = None;
    let mut stream = runner.run(ctx, KEY, text, stream);
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                assert!(error.is_none(), "nothing follows an error");
                events.push(event);
            }
            Err(e) => error = Some(e),
        }
    }
    (events, error)
}

fn last_user_text(request: &LlmRequest) -> String {
    request
        .contents
        .iter()
        .rev()
        .find(|c| c.role == roles::USER)
        .map(Content::text)
        .unwrap_or_default()
}

/// Every call on an assistant row is answered by a later tool row.
fn assert_no_dangling_calls(rows: &[StoredMessage]) {
    for (i, row) in rows.iter().enumerate() {
        for call in row.tool_calls.iter().filter(|c| !c.input.is_empty()) {
            let answered = rows[i + 1..].iter().any(|r| {
                r.tool_calls
                    .iter()
                    .any(|c| c.id == call.id && !c.output.is_empty())
            });
            assert!(answered, "call {} ({}) has no response", call.id, call.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Agent initialization and requests

// spec 000, Requirement: ADK Agent Abstraction — Scenario: Agent Initialization
#[tokio::test]
async fn agent_initialization() {
    let model = ScriptedLlm::named("gpt-4o", [say(["hi"])]);
    let settings = AgentSettings {
        max_turns: 7,
        tool_timeout: 3,
        ..AgentSettings::default()
    };
    let seen_tools = Arc::new(Mutex::new(Vec::new()));
    let root = Agent::from_settings("", &settings, model.clone(), vec![echo_tool(seen_tools)]);
    assert_eq!(root.name, "lango-agent");
    assert_eq!(root.model.name(), "gpt-4o");
    assert_eq!(
        root.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["echo"]
    );
    assert_eq!(root.instruction, settings.system_prompt);

    let f = fixture("lango-agent").await;
    let runner = f.runner(root).with_settings(&settings);
    assert_eq!(runner.max_turns(), 7);
    assert_eq!(runner.tool_timeout(), Duration::from_secs(3));
    assert_eq!(
        Runner::new(runner.root().clone(), f.sessions.clone()).max_turns(),
        50
    );
    assert_eq!(
        f.runner(runner.root().clone())
            .with_max_turns(0)
            .max_turns(),
        50
    );

    let (_, error) = run_all(&runner, "hello", false).await;
    assert!(error.is_none(), "{error:?}");
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    let config = &seen[0].request.config;
    assert_eq!(
        config
            .system_instruction
            .as_ref()
            .map(Content::text)
            .as_deref(),
        Some(settings.system_prompt.as_str())
    );
    assert_eq!(config.temperature, Some(0.7));
    assert_eq!(config.max_output_tokens, Some(4096));
    assert_eq!(config.tools.len(), 1);
    assert_eq!(config.tools[0].name, "echo");
    assert_eq!(
        config.tools[0].parameters["required"],
        json!(["text"]),
        "declared with the normalised schema"
    );
    assert_eq!(
        config.tools[0].parameters["additionalProperties"],
        json!(false)
    );
}

#[tokio::test]
async fn no_instruction_means_no_system_instruction_and_no_transfer_tool_without_sub_agents() {
    let model = ScriptedLlm::new([say(["ok"])]);
    let f = fixture("solo").await;
    let runner = f.runner(Agent::new("solo", model.clone()));
    run_all(&runner, "hi", false).await;
    let config = &model.seen()[0].request.config;
    assert!(config.system_instruction.is_none());
    assert!(config.tools.is_empty());
    assert_eq!(config.temperature, None);
}

#[tokio::test]
async fn runner_passes_the_session_key_in_every_model_call() {
    let model = ScriptedLlm::new([
        call("c1", "echo", json!({"text": "a"})),
        call("c2", "echo", json!({"text": "b"})),
        say(["done"]),
    ]);
    let tool_seen = Arc::new(Mutex::new(Vec::new()));
    let f = fixture("lango-agent").await;
    let runner =
        f.runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(tool_seen.clone())));
    // The caller's context has no key: the runner sets the turn's session on every call.
    let (_, error) = run_all(&runner, "go", true).await;
    assert!(error.is_none(), "{error:?}");
    let seen = model.seen();
    assert_eq!(seen.len(), 3);
    for call in &seen {
        assert_eq!(call.session_key.as_deref(), Some(KEY));
        assert_eq!(call.agent_name, "lango-agent");
        assert!(call.stream);
    }
    let tool_seen = tool_seen.lock().unwrap();
    assert_eq!(tool_seen.len(), 2);
    assert!(tool_seen
        .iter()
        .all(|c| c.session_key.as_deref() == Some(KEY) && c.agent_name == "lango-agent"));
    assert_eq!(
        tool_seen
            .iter()
            .map(|c| c.call_id.as_str())
            .collect::<Vec<_>>(),
        ["c1", "c2"]
    );
}

// ---------------------------------------------------------------------------------------------
// One turn

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
    let flaky = tool("flaky", json!({}), |_, _| {
        Box::pin(async { Err("permission denied".to_owned()) })
    });
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()).with_tool(flaky));
    let (events, error) = run_all(&runner, "try", false).await;
    assert!(error.is_none(), "{error:?}");
    let fr = events[1].content.as_ref().unwrap().parts[0]
        .function_response
        .clone()
        .unwrap();
    assert_eq!(
        Value::Object(fr.response),
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
    let fr = events[1].content.as_ref().unwrap().parts[0]
        .function_response
        .clone()
        .unwrap();
    assert_eq!(
        Value::Object(fr.response),
        json!({"error": "tool \"nonexistent\" not found"})
    );
}

// Acceptance 18 through the runner: the timeout is reported to the model and the run continues.
#[tokio::test]
async fn acceptance_18_tool_timeout_in_a_run() {
    let model = ScriptedLlm::new([call("c1", "slow", json!({})), say(["moving on"])]);
    let slow = tool("slow", json!({}), |_, _| {
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
    let fr = events[1].content.as_ref().unwrap().parts[0]
        .function_response
        .clone()
        .unwrap();
    assert_eq!(
        Value::Object(fr.response),
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
    let hang = tool("hang", json!({}), move |_, _| {
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

// ---------------------------------------------------------------------------------------------
// Sub-agents

fn tree(
    root_model: Arc<ScriptedLlm>,
    planner: Arc<ScriptedLlm>,
    researcher: Arc<ScriptedLlm>,
) -> Agent {
    Agent::new("orchestrator", root_model)
        .with_instruction("Route the request.")
        .with_sub_agent(Agent::new("planner", planner).with_instruction("Plan."))
        .with_sub_agent(Agent::new("researcher", researcher))
}

#[tokio::test]
async fn transfer_switches_to_the_sub_agent() {
    let root = ScriptedLlm::new([transfer("planner")]);
    let planner = ScriptedLlm::new([say(["Here is the plan."])]);
    let researcher = ScriptedLlm::new([]);
    let f = fixture("orchestrator").await;
    let runner = f.runner(tree(root.clone(), planner.clone(), researcher.clone()));
    let (events, error) = run_all(&runner, "plan my week", false).await;
    assert!(error.is_none(), "{error:?}");

    // The root was offered the transfer tool listing its sub-agents.
    let root_tools = &root.seen()[0].request.config.tools;
    let spec = root_tools
        .iter()
        .find(|t| t.name == TRANSFER_TO_AGENT)
        .expect("transfer tool declared");
    assert!(spec.description.contains("planner, researcher"));
    assert_eq!(spec.parameters["required"], json!(["agent_name"]));

    // The transfer was answered and marked, then the planner ran with its own instruction.
    assert_eq!(
        events[1].actions.transfer_to_agent.as_deref(),
        Some("planner")
    );
    let seen = planner.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].agent_name, "planner");
    assert_eq!(seen[0].session_key.as_deref(), Some(KEY));
    assert_eq!(
        seen[0]
            .request
            .config
            .system_instruction
            .as_ref()
            .unwrap()
            .text(),
        "Plan."
    );
    assert_eq!(last_user_text(&seen[0].request), "plan my week");
    assert_eq!(events.last().unwrap().author, "planner");
    assert_eq!(researcher.calls(), 0);

    let rows = f.rows().await;
    assert_no_dangling_calls(&rows);
    assert_eq!(rows.last().unwrap().author, "planner");
}

#[tokio::test]
async fn transfer_to_a_missing_agent_fails_with_failed_to_find_agent() {
    let root = ScriptedLlm::new([transfer("browser_agent")]);
    let f = fixture("orchestrator").await;
    let runner = f.runner(tree(root, ScriptedLlm::new([]), ScriptedLlm::new([])));
    let (_, error) = run_all(&runner, "browse", false).await;
    let error = error.expect("the turn fails");
    assert!(matches!(&error, AgentError::AgentNotFound(name) if name == "browser_agent"));
    assert_eq!(error.to_string(), "failed to find agent: browser_agent");
}

// ---------------------------------------------------------------------------------------------
// run_and_collect: text collection (spec 003, acceptance 19)

async fn collect(steps: Vec<Step>, stream: bool) -> (String, Result<(), AgentError>) {
    let model = ScriptedLlm::new(steps);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model).with_tool(echo_tool(Arc::default())));
    run_and_collect(&runner, ctx(), KEY, "hi", stream).await
}

// spec 003, Requirement: Agent text collection avoids duplication — Scenario: Streaming mode collects from partial events only
#[tokio::test]
async fn streaming_mode_collects_from_partial_events_only() {
    let (text, result) = collect(vec![say(["Hello ", "world"])], true).await;
    assert!(result.is_ok());
    assert_eq!(text, "Hello world");
}

// spec 003, Requirement: Agent text collection avoids duplication — Scenario: Non-streaming mode collects from final event
#[tokio::test]
async fn non_streaming_mode_collects_from_final_event() {
    let (text, result) = collect(vec![say(["Complete ", "response"])], false).await;
    assert!(result.is_ok());
    assert_eq!(text, "Complete response");
}

#[tokio::test]
async fn acceptance_19_text_collection() {
    assert_eq!(
        collect(vec![say(["Hello ", "world"])], true).await.0,
        "Hello world"
    );
    assert_eq!(
        collect(vec![say(["A", "B", "C", "D"])], true).await.0,
        "ABCD"
    );
    let final_only = Step {
        final_only: true,
        ..say(["Complete response"])
    };
    assert_eq!(collect(vec![final_only], true).await.0, "Complete response");
}

#[tokio::test]
async fn thought_text_is_never_collected() {
    let step = Step {
        thought: Some("hmm, secret reasoning".into()),
        ..say(["Answer"])
    };
    assert_eq!(collect(vec![step.clone()], true).await.0, "Answer");
    assert_eq!(collect(vec![step], false).await.0, "Answer");
}

// [FIX] saw_partial resets after each non-partial model response: a later non-streamed
// step's text is kept.
#[tokio::test]
async fn later_non_streamed_step_is_not_lost() {
    let steps = vec![
        say(["Checking. "]).with_calls(call("c1", "echo", json!({"text": "x"}))),
        Step {
            final_only: true,
            ..say(["Done."])
        },
    ];
    let (text, result) = collect(steps, true).await;
    assert!(result.is_ok());
    assert_eq!(text, "Checking. Done.");
}

#[tokio::test]
async fn multi_step_text_is_collected_once_in_both_modes() {
    let steps = || {
        vec![
            say(["Step one. "]).with_calls(call("c1", "echo", json!({"text": "x"}))),
            say(["Step ", "two."]),
        ]
    };
    assert_eq!(collect(steps(), true).await.0, "Step one. Step two.");
    assert_eq!(collect(steps(), false).await.0, "Step one. Step two.");
}

// ---------------------------------------------------------------------------------------------
// run_and_collect: hallucinated sub-agent retry (spec 003, acceptance 20–22)

#[test]
fn acceptance_20_agent_name_extraction() {
    assert_eq!(
        extract_missing_agent("agent error: failed to find agent: browser_agent").as_deref(),
        Some("browser_agent")
    );
    assert_eq!(
        extract_missing_agent("outer: failed to find agent: exec").as_deref(),
        Some("exec")
    );
    assert_eq!(
        extract_missing_agent("failed to find agent: a_b then more").as_deref(),
        Some("a_b")
    );
    assert_eq!(extract_missing_agent("connection refused"), None);
    assert_eq!(extract_missing_agent("failed to find agent: "), None);
    assert_eq!(extract_missing_agent("failed to find agent:  spaced"), None);
    assert_eq!(
        extract_missing_agent("failed to find agent: \nx failed to find agent: second").as_deref(),
        Some("second")
    );
}

#[test]
fn correction_message_is_exact_and_escapes_the_name() {
    assert_eq!(
        correction_message("browser_agent", &["planner", "researcher"]),
        CORRECTION_21
    );
    assert_eq!(
        correction_message(r#"we"ird\name"#, &["a"]),
        r#"[System: Agent "we\"ird\\name" does not exist. Valid agents: a. Please retry using one of the valid agent names listed above.]"#
    );
}

struct Retry {
    f: Fixture,
    root: Arc<ScriptedLlm>,
    planner: Arc<ScriptedLlm>,
    runner: Runner,
}

async fn retry_fixture(root_steps: Vec<Step>, planner_steps: Vec<Step>) -> Retry {
    let f = fixture("orchestrator").await;
    let root = ScriptedLlm::new(root_steps);
    let planner = ScriptedLlm::new(planner_steps);
    let runner = f.runner(tree(root.clone(), planner.clone(), ScriptedLlm::new([])));
    Retry {
        f,
        root,
        planner,
        runner,
    }
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Hallucinated agent name triggers retry
#[tokio::test]
async fn hallucinated_agent_name_triggers_retry() {
    let r = retry_fixture(
        vec![transfer("browser_agent"), transfer("planner")],
        vec![say(["planned"])],
    )
    .await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "open the browser", false).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(text, "planned");
    let seen = r.root.seen();
    assert_eq!(seen.len(), 2, "exactly one retry");
    assert_eq!(last_user_text(&seen[1].request), CORRECTION_21);
    assert_eq!(r.planner.calls(), 1);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Retry succeeds
#[tokio::test]
async fn retry_succeeds() {
    let r = retry_fixture(vec![transfer("browser_agent"), say(["done"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert!(result.is_ok());
    assert_eq!(text, "done");
}

// Acceptance 21: the retry's input is exactly the correction, stored as a user row; the
// failed run's transfer call is closed before it.
#[tokio::test]
async fn acceptance_21_correction_is_a_persisted_user_turn() {
    let r = retry_fixture(vec![transfer("browser_agent"), say(["done"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    assert!(result.is_ok());
    assert_eq!(text, "done");
    let rows = r.f.rows().await;
    let summary: Vec<(&str, &str)> = rows
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(summary[0], ("user", "browse"));
    assert_eq!(summary[1].0, "assistant");
    assert_eq!(
        summary[2],
        (
            "tool",
            r#"{"error":"tool call was interrupted and did not complete"}"#
        )
    );
    assert_eq!(summary[3], ("user", CORRECTION_21));
    assert_eq!(summary[4], ("assistant", "done"));
    assert_eq!(rows.len(), 5);
    assert_no_dangling_calls(&rows);
    // The retry's model call saw the closed call and the correction, in that order.
    let contents = &r.root.seen()[1].request.contents;
    assert!(contents.iter().any(|c| c.parts.iter().any(|p| p
        .function_response
        .as_ref()
        .is_some_and(|fr| fr.id == "call_transfer"))));
    assert_eq!(contents.last().unwrap().text(), CORRECTION_21);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Retry also fails
#[tokio::test]
async fn retry_also_fails() {
    let r = retry_fixture(
        vec![transfer("browser_agent"), transfer("web_agent")],
        vec![],
    )
    .await;
    let (_, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    let error = result.expect_err("the retry failed");
    assert_eq!(
        error.to_string(),
        "failed to find agent: web_agent",
        "the retry's error is returned"
    );
    assert_eq!(r.root.calls(), 2, "no second retry");
}

// Acceptance 22: run 1 partial "a", run 2 partial "abc" then failure → run 2's error, "abc",
// 2 runs, dangling calls closed.
#[tokio::test]
async fn acceptance_22_retry_fails_keeps_the_longer_text() {
    let run1 = say(["a"]).with_calls(transfer("browser_agent"));
    let run2 = Step {
        chunks: vec!["ab".into(), "c".into()],
        error: Some("stream broke".into()),
        ..Step::default()
    };
    let r = retry_fixture(vec![run1, run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert_eq!(result.expect_err("fails").to_string(), "stream broke");
    assert_eq!(text, "abc");
    assert_eq!(r.root.calls(), 2);
    let rows = r.f.rows().await;
    assert_eq!(
        rows.iter().filter(|m| m.role == "user").count(),
        2,
        "2 runs: the message and the correction"
    );
    assert_no_dangling_calls(&rows);

    // The longer text wins whichever run produced it.
    let run1 = say(["a long first answer"]).with_calls(transfer("browser_agent"));
    let run2 = Step {
        chunks: vec!["x".into()],
        error: Some("stream broke".into()),
        ..Step::default()
    };
    let r = retry_fixture(vec![run1, run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert!(result.is_err());
    assert_eq!(text, "a long first answer");
}

#[tokio::test]
async fn retry_failing_with_dangling_calls_closes_them() {
    let run2 = say(["trying"]).with_calls(transfer("ghost"));
    let r = retry_fixture(vec![transfer("browser_agent"), run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    assert!(result.is_err());
    assert_eq!(text, "trying");
    let rows = r.f.rows().await;
    assert_eq!(rows.iter().filter(|m| m.role == "tool").count(), 2);
    assert_no_dangling_calls(&rows);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Non-hallucination error is not retried
#[tokio::test]
async fn non_hallucination_error_is_not_retried() {
    let r = retry_fixture(vec![fail("connection refused"), say(["never"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "hi", false).await;
    assert_eq!(result.expect_err("fails").to_string(), "connection refused");
    assert_eq!(text, "");
    assert_eq!(r.root.calls(), 1);
    assert_eq!(
        r.f.rows().await.iter().filter(|m| m.role == "user").count(),
        1
    );
}

#[tokio::test]
async fn max_turns_error_is_not_retried() {
    let model =
        ScriptedLlm::forever(say(["again "]).with_calls(call("c", "echo", json!({"text": "x"}))));
    let f = fixture("lango-agent").await;
    let runner = f
        .runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(Arc::default())))
        .with_max_turns(2);
    let (text, result) = run_and_collect(&runner, ctx(), KEY, "loop", false).await;
    assert!(matches!(result, Err(AgentError::MaxTurns(2))));
    assert_eq!(text, "again again ");
    assert_eq!(model.calls(), 2);
    assert_no_dangling_calls(&f.rows().await);
}

// A failed run that left a call without response (cancelled mid-tool) is cleaned up (§2.6).
#[tokio::test]
async fn failed_run_closes_its_dangling_calls() {
    let hang = tool("hang", json!({}), |_, _| Box::pin(std::future::pending()));
    let model = ScriptedLlm::new([say(["working "]).with_calls(call("c-open", "hang", json!({})))]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()).with_tool(hang));
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let (text, result) = run_and_collect(&runner, ctx, KEY, "go", true).await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    assert_eq!(text, "working ");
    assert_eq!(model.calls(), 1);
    let rows = f.rows().await;
    let closing = rows.last().unwrap();
    assert_eq!(closing.role, "tool");
    assert_eq!(closing.author, "lango-agent");
    assert_eq!(closing.tool_calls[0].id, "c-open");
    assert_eq!(
        closing.content,
        r#"{"error":"tool call was interrupted and did not complete"}"#
    );
    assert_no_dangling_calls(&rows);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: No sub-agents means no retry
#[tokio::test]
async fn no_sub_agents_means_no_retry() {
    let model = ScriptedLlm::new([transfer("browser_agent"), say(["never"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()));
    let (_, result) = run_and_collect(&runner, ctx(), KEY, "browse", false).await;
    assert_eq!(
        result.expect_err("fails").to_string(),
        "failed to find agent: browser_agent"
    );
    assert_eq!(model.calls(), 1);
    let rows = f.rows().await;
    assert_eq!(rows.iter().filter(|m| m.role == "user").count(), 1);
    assert_no_dangling_calls(&rows);
}
