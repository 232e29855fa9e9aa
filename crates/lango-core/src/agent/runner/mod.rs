//! The agent tree and the runner that plays one user turn (REFERENCE §1, spec 000 "Agent
//! Initialization"), plus [`run_and_collect`] (§1.6).
//!
//! A turn: persist the user's message; then call the active agent's model with the session's
//! events, forward partial responses to the caller (never persisted), persist the final
//! response, run its tool calls through [`ToolAdapter`] and persist ONE function-response
//! event, and loop until the model answers without calls. `transfer_to_agent` switches the
//! active agent. The loop is bounded by `max_turns` model calls and stops on cancellation.
//!
//! Owns the order of a turn's steps. It must not talk to providers or SQL directly: it works
//! against the [`Llm`], [`SessionService`] and [`Tool`] traits, so the memory engine can wrap
//! the model and tests can script it. What a model call carries is built in `request`; closing
//! the calls a failed run left open is `dangling`'s; running one call is `tool_call`'s.

mod agent;
mod collect;
mod dangling;
mod fit;
mod request;
mod tool_call;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub use agent::Agent;
pub use collect::{
    correction_message, extract_missing_agent, run_and_collect, run_and_collect_with,
};
pub use dangling::DanglingCallCloser;
use fit::LearnedBudgets;
pub use tool_call::DENIED_MESSAGE;

use super::context::RequestContext;
use super::error::AgentError;
use super::session::SessionServiceAdapter;
use super::tools::{error_object, OutputCap};
use super::traits::{Session, SessionService};
use super::types::{roles, Content, Event, FunctionCall, ModelRef, Part, UserInput};
use crate::config::AgentSettings;

/// The tool an agent with sub-agents (or a parent) is given to hand the conversation over.
pub const TRANSFER_TO_AGENT: &str = "transfer_to_agent";
/// Model calls per user turn when none is configured (`agent.maxTurns` 0 → 50).
pub const DEFAULT_MAX_TURNS: u32 = 50;
/// What the model is told about a call in a reply the output limit cut.
pub const CUT_CALL_MESSAGE: &str = "Not run: your reply was cut at the output limit, so this call's arguments may be incomplete. Make the call again, with shorter text before it.";
/// `agent.toolTimeout` default.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// The events of one turn as the runner produces them; an `Err` is always the last item.
pub type EventStream<'a> = Pin<Box<dyn Stream<Item = Result<Event, AgentError>> + Send + 'a>>;

/// Plays user turns of an agent tree over a session service.
pub struct Runner {
    root: Agent,
    sessions: Arc<dyn SessionService>,
    max_turns: u32,
    tool_timeout: Duration,
    closer: Option<Arc<dyn DanglingCallCloser>>,
    /// `tools.maxOutputTokens`: what one tool result may cost in the prompt.
    output_cap: Option<OutputCap>,
    /// `tools.maxCallsPerTurn`; 0 = no limit.
    max_tool_calls: u32,
    /// History budgets models' contexts held when smaller than their names suggest (fit.rs).
    learned: LearnedBudgets,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("root", &self.root)
            .field("max_turns", &self.max_turns)
            .field("tool_timeout", &self.tool_timeout)
            .field("closes_dangling_calls", &self.closer.is_some())
            .finish()
    }
}

impl Runner {
    /// A runner with 50 model calls per turn and a 2-minute tool timeout.
    pub fn new(root: Agent, sessions: Arc<dyn SessionService>) -> Self {
        Self {
            root,
            sessions,
            max_turns: DEFAULT_MAX_TURNS,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            closer: None,
            output_cap: None,
            max_tool_calls: 0,
            learned: LearnedBudgets::default(),
        }
    }

    /// Caps every tool result in the prompt (the whole result stays in the card).
    pub fn with_output_cap(mut self, cap: OutputCap) -> Self {
        self.output_cap = Some(cap);
        self
    }

    /// Tool calls one user message may cause; 0 = no limit.
    pub fn with_max_tool_calls(mut self, max: u32) -> Self {
        self.max_tool_calls = max;
        self
    }

    /// A runner over our SQLite sessions, closing dangling calls through the same store.
    pub fn with_store_sessions(root: Agent, sessions: Arc<SessionServiceAdapter>) -> Self {
        Self::new(root, Arc::clone(&sessions) as Arc<dyn SessionService>)
            .with_dangling_call_closer(sessions)
    }

    /// `agent.maxTurns` and `agent.toolTimeout` from the settings.
    pub fn with_settings(self, settings: &AgentSettings) -> Self {
        self.with_max_turns(settings.max_turns)
            .with_tool_timeout(Duration::from_secs(settings.tool_timeout))
    }

    /// Model calls per user turn; 0 → 50.
    pub fn with_max_turns(mut self, max_turns: u32) -> Self {
        self.max_turns = if max_turns == 0 {
            DEFAULT_MAX_TURNS
        } else {
            max_turns
        };
        self
    }

    /// Per tool call; zero = no limit.
    pub fn with_tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = timeout;
        self
    }

    /// What closes dangling tool calls after a failed run (REFERENCE §2.6).
    pub fn with_dangling_call_closer(mut self, closer: Arc<dyn DanglingCallCloser>) -> Self {
        self.closer = Some(closer);
        self
    }

    pub fn root(&self) -> &Agent {
        &self.root
    }

    pub fn sessions(&self) -> &Arc<dyn SessionService> {
        &self.sessions
    }

    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    pub fn tool_timeout(&self) -> Duration {
        self.tool_timeout
    }

    /// Closes dangling calls of a session, if a closer is configured; failures are logged.
    pub async fn close_dangling_calls(&self, session_key: &str) {
        if let Some(closer) = &self.closer {
            if let Err(e) = closer
                .close_dangling_calls(session_key, &self.root.name)
                .await
            {
                tracing::warn!(session = %session_key, error = %e, "closing dangling tool calls failed");
            }
        }
    }

    /// Plays ONE user turn. Yields partial events (not persisted) and every persisted event of
    /// the turn; the last event of a successful turn has `turn_complete`. A failure is the
    /// last item. Dropping the stream stops the turn (a running tool is aborted).
    pub fn run(
        &self,
        ctx: RequestContext,
        session_key: impl Into<String>,
        input: impl Into<UserInput>,
        stream: bool,
    ) -> EventStream<'_> {
        let (key, input) = (session_key.into(), input.into());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let driver = async move {
            if let Err(e) = self.play_turn(&ctx, &key, &input, stream, &tx).await {
                let _ = tx.send(Err(e));
            }
        };
        let events = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
        let driver = futures_util::stream::once(driver)
            .filter_map(|()| futures_util::future::ready(None::<Result<Event, AgentError>>));
        Box::pin(futures_util::stream::select(events, driver))
    }

    async fn play_turn(
        &self,
        ctx: &RequestContext,
        key: &str,
        input: &UserInput,
        stream: bool,
        tx: &UnboundedSender<Result<Event, AgentError>>,
    ) -> Result<(), AgentError> {
        let text = input.text.as_str();
        let cancel = &ctx.cancel;
        check(cancel)?;
        // Lets the model start reading its context (memory) while the session loads.
        self.root.model.prefetch(
            &RequestContext {
                session_key: Some(key.to_owned()),
                agent_name: self.root.name.clone(),
                cancel: cancel.clone(),
                hooks: ctx.hooks.clone(),
                turn: ctx.turn.clone(),
            },
            text,
        );
        let budget = ctx.turn.as_ref().and_then(|t| t.history_budget);
        let session = or_cancel(cancel, self.sessions.get_with_budget(key, budget)).await??;
        // The message: its text (if any), then each attached file as a reference.
        let mut parts = Vec::with_capacity(1 + input.attachments.len());
        if !text.is_empty() || input.attachments.is_empty() {
            parts.push(Part::text(text));
        }
        parts.extend(input.attachments.iter().cloned().map(Part::attachment));
        self.append(
            session.as_ref(),
            Event::new(roles::USER, Some(Content::new(roles::USER, parts))),
        )
        .await?;

        let mut active = &self.root;
        let mut tool_calls_made: u32 = 0;
        for _ in 0..self.max_turns {
            check(cancel)?;
            let call_ctx = RequestContext {
                session_key: Some(key.to_owned()),
                agent_name: active.name.clone(),
                cancel: cancel.clone(),
                hooks: ctx.hooks.clone(),
                turn: ctx.turn.clone(),
            };
            let tools = self.adapters(active);
            let (mut responses, first) = self
                .start_call(active, session.as_ref(), &tools, ctx, &call_ctx, stream)
                .await?;
            let mut first = Some(first);
            let mut calls: Vec<FunctionCall> = Vec::new();
            // The output limit cut this step: its last call's arguments may be incomplete.
            let mut cut_at_limit = false;
            // Text the user has already seen of this step: kept if the step fails midway.
            let mut streamed = String::new();
            loop {
                let item = match first.take() {
                    Some(item) => item,
                    None => or_cancel(cancel, responses.next()).await,
                };
                let next = match item {
                    Ok(Some(Ok(response))) => response,
                    Ok(None) => break,
                    Ok(Some(Err(e))) | Err(e) => {
                        drop(responses);
                        // Could the partial reply not be stored (a full disk), that is what
                        // the user must hear: saying it was kept would be untrue.
                        return Err(self
                            .keep_interrupted(session.as_ref(), &active.name, ctx, &streamed, &e)
                            .await
                            .err()
                            .unwrap_or(e));
                    }
                };
                let response = next;
                let mut event = Event::new(active.name.clone(), response.content);
                event.usage = response.usage;
                event.truncated = response.truncated;
                event.model = reply_model(ctx);
                if response.partial {
                    if let Some(content) = &event.content {
                        streamed.push_str(&content.text());
                    }
                    event.partial = true;
                    let _ = tx.send(Ok(event));
                    // The driver and the consumer share one task: yield so this delta reaches
                    // the screen now instead of in a burst with the ones already buffered.
                    tokio::task::yield_now().await;
                    continue;
                }
                streamed.clear();
                let step_calls = function_calls(event.content.as_ref());
                cut_at_limit |= event.truncated;
                event.turn_complete = step_calls.is_empty();
                if event.content.as_ref().is_some_and(|c| !c.parts.is_empty()) {
                    self.append(session.as_ref(), event.clone()).await?;
                }
                let _ = tx.send(Ok(event));
                calls.extend(step_calls);
            }
            drop(responses);
            if calls.is_empty() {
                return Ok(());
            }
            // Let the consumer show the calls (the CLI's "[calling …]") before an approval
            // question or the tools' own output.
            tokio::task::yield_now().await;

            let transfer = if cut_at_limit {
                None
            } else {
                self.transfer_target(&calls)?
            };
            let over_limit = self.max_tool_calls > 0
                && tool_calls_made.saturating_add(calls.len() as u32) > self.max_tool_calls;
            tool_calls_made = tool_calls_made.saturating_add(calls.len() as u32);
            let step = tool_call::ToolCallStep {
                ctx,
                session_key: key,
                agent_name: &active.name,
                cap: self.output_cap.as_ref(),
            };
            let mut parts = Vec::with_capacity(calls.len());
            for call in calls {
                let id = if call.id.is_empty() {
                    format!("call_{}", call.name)
                } else {
                    call.id
                };
                let mut meta = None;
                let response = if over_limit {
                    error_object(format!(
                        "Not run: this message already caused {} tool calls (the limit, tools.maxCallsPerTurn).",
                        self.max_tool_calls
                    ))
                } else if cut_at_limit {
                    // Arguments cut mid-way would run as `{}` or half an object: never act on them.
                    error_object(CUT_CALL_MESSAGE)
                } else if call.name == TRANSFER_TO_AGENT {
                    let target = call
                        .args
                        .get("agent_name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    json!({"transferred_to": target})
                        .as_object()
                        .cloned()
                        .unwrap_or_default()
                } else if let Some(tool) = tools.iter().find(|t| t.name() == call.name) {
                    let (response, call_meta) = step.play(tool, &id, call.args).await?;
                    meta = Some(call_meta);
                    response
                } else {
                    error_object(format!("tool \"{}\" not found", call.name))
                };
                let mut part = Part::function_response(id, call.name, response);
                if let Some(fr) = part.function_response.as_mut() {
                    fr.meta = meta;
                }
                parts.push(part);
            }
            let mut event = Event::new(
                active.name.clone(),
                Some(Content::new(roles::FUNCTION, parts)),
            );
            event.actions.transfer_to_agent = transfer.map(|a| a.name.clone());
            self.append(session.as_ref(), event.clone()).await?;
            let _ = tx.send(Ok(event));
            if over_limit {
                return Err(AgentError::ToolCallLimit(self.max_tool_calls));
            }
            if let Some(target) = transfer {
                active = target;
            }
        }
        Err(AgentError::MaxTurns(self.max_turns))
    }

    /// Persists the text of a reply that failed or was stopped midway, marked interrupted
    /// (the user saw it; it must not vanish). Nothing to keep → nothing written. `Err` when
    /// it could not be stored.
    async fn keep_interrupted(
        &self,
        session: &dyn Session,
        author: &str,
        ctx: &RequestContext,
        text: &str,
        error: &AgentError,
    ) -> Result<(), AgentError> {
        if text.is_empty() {
            return Ok(());
        }
        let mut event = Event::new(author, Some(Content::model_text(text)));
        event.error = Some(error.to_string());
        event.model = reply_model(ctx);
        self.append(session, event).await.inspect_err(|e| {
            tracing::warn!(error = %e, "could not keep the interrupted reply");
        })
    }

    /// Persists a non-partial event through the session service (state deltas included).
    async fn append(&self, session: &dyn Session, event: Event) -> Result<(), AgentError> {
        self.sessions.append_event(session, event).await
    }
}

/// Who writes this turn's replies, as stored with them.
fn reply_model(ctx: &RequestContext) -> Option<ModelRef> {
    ctx.turn.as_ref().map(|t| ModelRef {
        provider: t.provider.clone(),
        model: t.model.clone(),
    })
}

/// The function calls of a final response, in order.
fn function_calls(content: Option<&Content>) -> Vec<FunctionCall> {
    content
        .map(|c| {
            c.parts
                .iter()
                .filter_map(|p| p.function_call.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn check(cancel: &CancellationToken) -> Result<(), AgentError> {
    if cancel.is_cancelled() {
        Err(AgentError::Cancelled)
    } else {
        Ok(())
    }
}

/// Runs `fut` unless `cancel` fires first (then `fut` is dropped).
async fn or_cancel<T>(
    cancel: &CancellationToken,
    fut: impl Future<Output = T>,
) -> Result<T, AgentError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(AgentError::Cancelled),
        value = fut => Ok(value),
    }
}
