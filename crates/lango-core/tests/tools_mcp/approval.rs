//! A turn that calls MCP tools: the approval step (allow, deny, always, nobody to ask, Stop
//! while waiting), the result's cap in the prompt, the card's metadata, and the limit on
//! consecutive calls — with a scripted model, real SQLite sessions and real servers.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use lango_core::agent::runner::{Agent, Runner, DENIED_MESSAGE};
use lango_core::agent::session::SessionServiceAdapter;
use lango_core::agent::tools::OutputCap;
use lango_core::agent::{
    roles, AgentError, ApprovalDecision, ApprovalRequest, Content, FixedApproval, Llm, LlmRequest,
    LlmResponse, LlmStream, Part, RequestContext, TurnHooks,
};
use lango_core::provider::BoxFuture;
use lango_core::store::{Store, StoredMessage, ToolCallStatus};
use lango_core::tokens::default_counter;
use lango_core::tools::mcp::McpHub;
use serde_json::{json, Value};

use super::support::*;

const KEY: &str = "desktop:tools";

/// Calls the given tools in order (one per model call), then answers "done", and records
/// what each request carried.
#[derive(Debug)]
struct Script {
    calls: Mutex<VecDeque<(String, Value)>>,
    forever: Option<(String, Value)>,
    seen: Mutex<Vec<LlmRequest>>,
    /// The first reply stops at the output limit (`truncated`).
    cut_first: bool,
}

impl Script {
    fn calls(calls: Vec<(&str, Value)>) -> Arc<Self> {
        Arc::new(Self {
            calls: Mutex::new(calls.into_iter().map(|(n, a)| (n.to_owned(), a)).collect()),
            forever: None,
            seen: Mutex::default(),
            cut_first: false,
        })
    }

    fn cut_at_the_limit(calls: Vec<(&str, Value)>) -> Arc<Self> {
        Arc::new(Self {
            calls: Mutex::new(calls.into_iter().map(|(n, a)| (n.to_owned(), a)).collect()),
            forever: None,
            seen: Mutex::default(),
            cut_first: true,
        })
    }

    fn forever(name: &str, args: Value) -> Arc<Self> {
        Arc::new(Self {
            calls: Mutex::default(),
            forever: Some((name.to_owned(), args)),
            seen: Mutex::default(),
            cut_first: false,
        })
    }
}

impl Llm for Script {
    fn name(&self) -> &str {
        "script"
    }

    fn generate_content(
        &self,
        _ctx: &RequestContext,
        request: LlmRequest,
        _stream: bool,
    ) -> LlmStream {
        let n = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(request);
            seen.len()
        };
        let next = self
            .calls
            .lock()
            .unwrap()
            .pop_front()
            .or_else(|| self.forever.clone());
        let part = match next {
            Some((name, args)) => Part::function_call(
                format!("call_{n}"),
                name,
                args.as_object().cloned().unwrap_or_default(),
            ),
            None => Part::text("done"),
        };
        Box::pin(futures_util::stream::iter([Ok(LlmResponse {
            content: Some(Content::new(roles::MODEL, vec![part])),
            partial: false,
            turn_complete: true,
            truncated: self.cut_first && n == 1,
            ..Default::default()
        })]))
    }
}

/// Records every approval request and answers with a fixed decision, after `delay`.
#[derive(Debug)]
struct Recorder {
    decision: ApprovalDecision,
    delay: Duration,
    asked: Arc<Mutex<Vec<ApprovalRequest>>>,
}

impl TurnHooks for Recorder {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        self.asked.lock().unwrap().push(request);
        let (decision, delay) = (self.decision, self.delay);
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            decision
        })
    }
}

struct Turn {
    _dir: tempfile::TempDir,
    store: Store,
    result: Result<(), AgentError>,
}

async fn play(
    hub: &McpHub,
    model: Arc<Script>,
    hooks: Option<Arc<dyn TurnHooks>>,
    configure: impl FnOnce(Runner) -> Runner,
    cancel_after: Option<Duration>,
) -> Turn {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        default_counter(),
    )
    .await
    .unwrap();
    let sessions = Arc::new(SessionServiceAdapter::new(store.clone(), "lango-agent"));
    let root = Agent::new("lango-agent", model).with_toolset(Arc::new(hub.clone()));
    let runner = configure(Runner::with_store_sessions(root, sessions));
    let mut ctx = RequestContext::for_session(KEY, "lango-agent");
    ctx.hooks = hooks;
    if let Some(after) = cancel_after {
        let token = ctx.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            token.cancel();
        });
    }
    let mut events = runner.run(ctx, KEY, "please use the tool", true);
    let mut result = Ok(());
    while let Some(item) = events.next().await {
        if let Err(e) = item {
            result = Err(e);
        }
    }
    drop(events);
    Turn {
        _dir: dir,
        store,
        result,
    }
}

impl Turn {
    async fn rows(&self) -> Vec<StoredMessage> {
        self.store.list_messages(KEY).await.unwrap()
    }

    /// The stored results of the turn's tool calls, in order.
    async fn results(&self) -> Vec<lango_core::store::ToolCall> {
        self.rows()
            .await
            .into_iter()
            .flat_map(|m| m.tool_calls)
            .filter(|c| !c.output.is_empty())
            .collect()
    }
}

fn recorder(decision: ApprovalDecision) -> (Arc<dyn TurnHooks>, Arc<Mutex<Vec<ApprovalRequest>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let hooks = Recorder {
        decision,
        delay: Duration::ZERO,
        asked: Arc::clone(&asked),
    };
    (Arc::new(hooks), asked)
}

#[tokio::test]
async fn a_call_waits_for_approval_and_runs_once_allowed() {
    let hub = hub(vec![("everything", everything())]).await;
    let (hooks, asked) = recorder(ApprovalDecision::Once);
    let turn = play(
        &hub,
        Script::calls(vec![("everything__echo", json!({"message": "hi"}))]),
        Some(hooks),
        |r| r,
        None,
    )
    .await;
    turn.result.as_ref().expect("turn");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    let request = &asked[0];
    assert_eq!(
        (request.server.as_str(), request.tool.as_str()),
        ("everything", "echo")
    );
    assert_eq!(request.name, "everything__echo");
    assert_eq!(request.description, "Echoes back the input string");
    assert_eq!(request.hints.read_only, Some(true));
    assert_eq!(request.args["message"], json!("hi"));
    let results = turn.results().await;
    assert_eq!(results.len(), 1);
    assert!(
        results[0].output.contains("Echo: hi"),
        "{}",
        results[0].output
    );
    let meta = results[0].meta.as_ref().expect("meta");
    assert_eq!(meta.status, ToolCallStatus::Done);
    assert_eq!(meta.server.as_deref(), Some("everything"));
    assert_eq!(meta.tool.as_deref(), Some("echo"));
    assert!(meta.duration_ms.is_some());
}

#[tokio::test]
async fn a_denied_call_never_reaches_the_server_and_the_model_is_told() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    let (hooks, _) = recorder(ApprovalDecision::Deny);
    let model = Script::calls(vec![("fault__sleep", json!({"ms": 10}))]);
    let turn = play(&hub, Arc::clone(&model), Some(hooks), |r| r, None).await;
    turn.result
        .as_ref()
        .expect("the turn goes on after a denial");
    assert!(!std::fs::read_to_string(log.path())
        .unwrap()
        .contains("sleep started"));
    let results = turn.results().await;
    assert!(
        results[0].output.contains(DENIED_MESSAGE),
        "{}",
        results[0].output
    );
    assert_eq!(
        results[0].meta.as_ref().unwrap().status,
        ToolCallStatus::Denied
    );
    // The model's next call carried the denial, and it answered.
    let seen = model.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    let last = serde_json::to_string(&seen[1].contents).unwrap();
    assert!(last.contains("The user denied this tool call"), "{last}");
    assert_eq!(turn.rows().await.last().unwrap().content, "done");
}

#[tokio::test]
async fn an_auto_approved_tool_runs_without_asking() {
    let mut settings = everything();
    settings.auto_approve = vec!["echo".into()];
    let hub = hub(vec![("everything", settings)]).await;
    let (hooks, asked) = recorder(ApprovalDecision::Deny);
    let turn = play(
        &hub,
        Script::calls(vec![
            ("everything__echo", json!({"message": "auto"})),
            ("everything__get-sum", json!({"a": 1, "b": 1})),
        ]),
        Some(hooks),
        |r| r,
        None,
    )
    .await;
    turn.result.as_ref().unwrap();
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "only get-sum needs asking");
    assert_eq!(asked[0].tool, "get-sum");
    let results = turn.results().await;
    assert!(results[0].output.contains("Echo: auto"));
    assert_eq!(
        results[1].meta.as_ref().unwrap().status,
        ToolCallStatus::Denied
    );
}

#[tokio::test]
async fn with_nobody_to_ask_a_call_that_needs_approval_is_denied_with_a_reason() {
    let hub = hub(vec![("everything", everything())]).await;
    let turn = play(
        &hub,
        Script::calls(vec![("everything__echo", json!({"message": "x"}))]),
        None,
        |r| r,
        None,
    )
    .await;
    turn.result.as_ref().unwrap();
    let results = turn.results().await;
    assert!(
        results[0]
            .output
            .contains("needs the user's approval and nobody could be asked"),
        "{}",
        results[0].output
    );
}

#[tokio::test]
async fn stop_while_the_approval_card_waits_denies_and_ends_the_turn() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    let hooks: Arc<dyn TurnHooks> = Arc::new(Recorder {
        decision: ApprovalDecision::Once,
        delay: Duration::from_secs(60),
        asked: Arc::default(),
    });
    let started = std::time::Instant::now();
    let turn = play(
        &hub,
        Script::calls(vec![("fault__sleep", json!({"ms": 10}))]),
        Some(hooks),
        |r| r,
        Some(Duration::from_millis(300)),
    )
    .await;
    assert!(
        matches!(turn.result, Err(AgentError::Cancelled)),
        "{:?}",
        turn.result
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!std::fs::read_to_string(log.path())
        .unwrap()
        .contains("sleep started"));
}

#[tokio::test]
async fn a_megabyte_result_is_capped_in_the_prompt_and_kept_whole_for_the_card() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut settings = fault(&[], log.path());
    settings.auto_approve = vec!["big".into()];
    let hub = hub(vec![("fault", settings)]).await;
    let model = Script::calls(vec![("fault__big", json!({"bytes": 1_000_000}))]);
    let turn = play(
        &hub,
        Arc::clone(&model),
        Some(Arc::new(FixedApproval(ApprovalDecision::Deny))),
        |r| r.with_output_cap(OutputCap::new(default_counter(), 8_000)),
        None,
    )
    .await;
    turn.result.as_ref().unwrap();
    let result = &turn.results().await[0];
    let meta = result.meta.as_ref().unwrap();
    assert!(meta.omitted_tokens.unwrap() > 50_000, "{meta:?}");
    assert!(meta.prompt_tokens.unwrap() <= 8_000);
    // Stored whole for the card: its start and size in the row, the whole beside it.
    assert!(meta.full_output_bytes.unwrap() >= 1_000_000, "{meta:?}");
    let row = turn
        .rows()
        .await
        .into_iter()
        .find(|m| m.tool_calls.iter().any(|c| !c.output.is_empty()))
        .unwrap();
    let whole = turn.store.tool_calls_at(KEY, row.seq).await.unwrap();
    let whole = whole[0]
        .meta
        .as_ref()
        .unwrap()
        .full_output
        .as_ref()
        .unwrap();
    assert!(whole.len() >= 1_000_000);
    assert!(
        result.output.len() < 100_000,
        "the prompt's copy is {} bytes",
        result.output.len()
    );
    assert!(result.output.contains("tokens omitted"));
    // What the model got next is the capped copy.
    let seen = model.seen.lock().unwrap();
    let sent = serde_json::to_string(&seen[1].contents).unwrap();
    assert!(sent.len() < 100_000, "{}", sent.len());
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_is_stopped_at_the_limit_with_every_call_answered() {
    let mut settings = everything();
    settings.auto_approve = vec!["echo".into()];
    let hub = hub(vec![("everything", settings)]).await;
    let model = Script::forever("everything__echo", json!({"message": "again"}));
    let turn = play(&hub, model, None, |r| r.with_max_tool_calls(3), None).await;
    match &turn.result {
        Err(e @ AgentError::ToolCallLimit(3)) => {
            assert!(e.to_string().contains("tools.maxCallsPerTurn"), "{e}");
        }
        other => panic!("expected the tool call limit, got {other:?}"),
    }
    let rows = turn.rows().await;
    let calls = rows
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| !c.input.is_empty())
        .count();
    let answers = rows
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| !c.output.is_empty())
        .count();
    assert_eq!(calls, 4);
    assert_eq!(answers, calls, "a call was left without its result");
}

#[tokio::test]
async fn a_call_in_a_reply_cut_at_the_output_limit_is_never_run() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut settings = fault(&[], log.path());
    settings.auto_approve = vec!["sleep".into()];
    let hub = hub(vec![("fault", settings)]).await;
    let model = Script::cut_at_the_limit(vec![("fault__sleep", json!({"ms": 10}))]);
    let turn = play(&hub, Arc::clone(&model), None, |r| r, None).await;
    turn.result.as_ref().expect("the turn goes on");
    assert!(!std::fs::read_to_string(log.path())
        .unwrap()
        .contains("sleep started"));
    let results = turn.results().await;
    assert!(
        results[0].output.contains("cut at the output limit"),
        "{}",
        results[0].output
    );
    assert_eq!(turn.rows().await.last().unwrap().content, "done");
}
