//! What the runner tests share: a scripted `Llm` (one partial response per text chunk when
//! streaming, then the complete final response), test tools, and a fixture over a real SQLite
//! store. Re-exports the imports the test modules use.

pub use std::collections::VecDeque;
pub use std::sync::atomic::{AtomicBool, Ordering};
pub use std::sync::{Arc, Mutex};
pub use std::time::{Duration, Instant};

pub use futures_util::StreamExt;
pub use lango_core::agent::runner::{
    correction_message, extract_missing_agent, run_and_collect, Agent, Runner, TRANSFER_TO_AGENT,
};
pub use lango_core::agent::session::SessionServiceAdapter;
pub use lango_core::agent::tools::{params, ParamDef};
pub use lango_core::agent::{
    roles, AgentError, Content, Event, Llm, LlmRequest, LlmResponse, LlmStream, Part,
    RequestContext, Tool, ToolContext,
};
pub use lango_core::config::AgentSettings;
pub use lango_core::store::{MessageStatus, Store, StoredMessage};
pub use lango_core::tokens::FixedCostCounter;
pub use serde_json::{json, Map, Value};
pub use tempfile::TempDir;

pub const KEY: &str = "desktop:chat-1";
pub const CORRECTION_21: &str = "[System: Agent \"browser_agent\" does not exist. Valid agents: planner, researcher. Please retry using one of the valid agent names listed above.]";

// ---------------------------------------------------------------------------------------------
// Scripted model

/// One scripted model call.
#[derive(Debug, Clone, Default)]
pub struct Step {
    pub chunks: Vec<String>,
    pub calls: Vec<(String, String, Value)>,
    pub thought: Option<String>,
    /// Fails after the partial chunks, with no final response.
    pub error: Option<String>,
    /// Yields only the final response, even when streaming.
    pub final_only: bool,
    pub delay: Option<Duration>,
}

pub fn say<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Step {
    Step {
        chunks: chunks.into_iter().map(Into::into).collect(),
        ..Step::default()
    }
}

pub fn call(id: &str, name: &str, args: Value) -> Step {
    Step {
        calls: vec![(id.into(), name.into(), args)],
        ..Step::default()
    }
}

pub fn transfer(agent: &str) -> Step {
    call(
        "call_transfer",
        TRANSFER_TO_AGENT,
        json!({"agent_name": agent}),
    )
}

pub fn fail(message: &str) -> Step {
    Step {
        error: Some(message.into()),
        ..Step::default()
    }
}

impl Step {
    pub fn with_calls(mut self, calls: Step) -> Self {
        self.calls.extend(calls.calls);
        self
    }
}

/// What the model saw on one call.
#[derive(Debug, Clone)]
pub struct Seen {
    pub session_key: Option<String>,
    pub agent_name: String,
    pub request: LlmRequest,
    pub stream: bool,
}

#[derive(Debug)]
pub struct ScriptedLlm {
    pub name: String,
    pub steps: Mutex<VecDeque<Step>>,
    pub seen: Mutex<Vec<Seen>>,
    /// Repeats the last step forever instead of running out.
    pub repeat_last: bool,
}

impl ScriptedLlm {
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Arc<Self> {
        Self::named("scripted-model", steps)
    }

    pub fn named(name: &str, steps: impl IntoIterator<Item = Step>) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            steps: Mutex::new(steps.into_iter().collect()),
            seen: Mutex::default(),
            repeat_last: false,
        })
    }

    pub fn forever(step: Step) -> Arc<Self> {
        Arc::new(Self {
            name: "loop".into(),
            steps: Mutex::new([step].into()),
            seen: Mutex::default(),
            repeat_last: true,
        })
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn calls(&self) -> usize {
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

#[path = "../common/fn_tool.rs"]
mod fn_tool;
pub use fn_tool::FnTool;

/// `echo`: returns its args under "echo", and records the contexts it saw.
pub fn echo_tool(seen: Arc<Mutex<Vec<ToolContext>>>) -> Arc<dyn Tool> {
    FnTool::arc(
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

pub struct Fixture {
    pub _dir: TempDir,
    pub store: Store,
    pub sessions: Arc<SessionServiceAdapter>,
}

pub async fn fixture(root_name: &str) -> Fixture {
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
    pub fn runner(&self, root: Agent) -> Runner {
        Runner::with_store_sessions(root, Arc::clone(&self.sessions))
    }

    pub async fn rows(&self) -> Vec<StoredMessage> {
        self.store.list_messages(KEY).await.expect("list messages")
    }
}

pub fn ctx() -> RequestContext {
    RequestContext::default()
}

pub async fn run_all(
    runner: &Runner,
    text: &str,
    stream: bool,
) -> (Vec<Event>, Option<AgentError>) {
    run_all_with(runner, ctx(), text, stream).await
}

pub async fn run_all_with(
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

/// What the tool answered, as the event carrying its response holds it (its first part).
pub fn tool_response(event: &Event) -> Value {
    let part = &event.content.as_ref().expect("content").parts[0];
    let response = part.function_response.clone().expect("a function response");
    Value::Object(response.response)
}

pub fn last_user_text(request: &LlmRequest) -> String {
    request
        .contents
        .iter()
        .rev()
        .find(|c| c.role == roles::USER)
        .map(Content::text)
        .unwrap_or_default()
}

/// Every call on an assistant row is answered by a later tool row.
pub fn assert_no_dangling_calls(rows: &[StoredMessage]) {
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

pub fn tree(
    root_model: Arc<ScriptedLlm>,
    planner: Arc<ScriptedLlm>,
    researcher: Arc<ScriptedLlm>,
) -> Agent {
    Agent::new("orchestrator", root_model)
        .with_instruction("Route the request.")
        .with_sub_agent(Agent::new("planner", planner).with_instruction("Plan."))
        .with_sub_agent(Agent::new("researcher", researcher))
}
