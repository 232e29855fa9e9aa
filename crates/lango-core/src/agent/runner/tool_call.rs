//! One tool call of a turn: the user's approval when the tool needs it, the call with its
//! timeout and progress, and its result as the prompt carries it (capped in tokens) together
//! with what the user's tool card shows (status, duration, token cost, images).
//!
//! Owns the order approval → run → cap for one call. It must not persist anything (the
//! runner writes one function-response event for all calls of a step).

use std::time::Instant;

use serde_json::{Map, Value};

use super::or_cancel;
use crate::agent::context::RequestContext;
use crate::agent::error::AgentError;
use crate::agent::hooks::{ApprovalDecision, ApprovalRequest, ProgressSink, ToolOrigin};
use crate::agent::tools::{error_object, result_object, OutputCap, ToolAdapter, ToolFailure};
use crate::agent::traits::ToolContext;
use crate::store::{ToolCallMeta, ToolCallStatus};

/// What the model is told when the user says no.
pub const DENIED_MESSAGE: &str =
    "The user denied this tool call. Do not retry it; continue without it or ask the user.";

/// One call to play.
pub(super) struct ToolCallStep<'a> {
    pub ctx: &'a RequestContext,
    pub session_key: &'a str,
    pub agent_name: &'a str,
    pub cap: Option<&'a OutputCap>,
}

impl ToolCallStep<'_> {
    /// The function-response object and the card's metadata. `Err` only for a cancelled turn
    /// (Stop while the approval card or the tool was waiting).
    pub async fn play(
        &self,
        tool: &ToolAdapter,
        id: &str,
        args: Map<String, Value>,
    ) -> Result<(Map<String, Value>, ToolCallMeta), AgentError> {
        let origin = tool.tool().origin();
        let mut meta = ToolCallMeta {
            server: origin.as_ref().map(|o| o.server.clone()),
            tool: origin.as_ref().map(|o| o.tool.clone()),
            ..ToolCallMeta::default()
        };
        if let Some(origin) = origin.as_ref().filter(|o| o.needs_approval) {
            if let Err(reason) = self.approval(tool, origin, id, &args).await? {
                meta.status = ToolCallStatus::Denied;
                return Ok((self.capped(error_object(reason), &mut meta), meta));
            }
        }
        let tool_ctx = ToolContext {
            agent_name: self.agent_name.to_owned(),
            session_key: Some(self.session_key.to_owned()),
            call_id: id.to_owned(),
            progress: self.ctx.hooks.clone().map(|hooks| {
                let id = id.to_owned();
                ProgressSink::new(move |p| hooks.progress(&id, p))
            }),
        };
        let started = Instant::now();
        let outcome = or_cancel(&self.ctx.cancel, tool.run(tool_ctx, args)).await?;
        meta.duration_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        let response = match outcome {
            Ok(output) => {
                meta.images = output.images;
                if output.is_error {
                    meta.status = ToolCallStatus::Error;
                    error_object(match output.value {
                        Value::String(s) => s,
                        other => other.to_string(),
                    })
                } else {
                    result_object(output.value)
                }
            }
            Err(failure) => {
                meta.status = match failure {
                    ToolFailure::Failed(_) => ToolCallStatus::Error,
                    ToolFailure::TimedOut(_) => ToolCallStatus::TimedOut,
                    ToolFailure::Cancelled(_) => ToolCallStatus::Cancelled,
                };
                error_object(failure.message())
            }
        };
        Ok((self.capped(response, &mut meta), meta))
    }

    /// `Ok(Ok(()))` to run, `Ok(Err(reason))` when the user (or nobody) said no.
    async fn approval(
        &self,
        tool: &ToolAdapter,
        origin: &ToolOrigin,
        id: &str,
        args: &Map<String, Value>,
    ) -> Result<Result<(), String>, AgentError> {
        let Some(hooks) = self.ctx.hooks.clone() else {
            return Ok(Err(format!(
                "Not run: tool \"{}\" needs the user's approval and nobody could be asked.",
                tool.name()
            )));
        };
        let request = ApprovalRequest {
            session_key: self.session_key.to_owned(),
            call_id: id.to_owned(),
            name: tool.name().to_owned(),
            server: origin.server.clone(),
            tool: origin.tool.clone(),
            description: tool.spec().description.clone(),
            hints: origin.hints.clone(),
            args: args.clone(),
        };
        match or_cancel(&self.ctx.cancel, hooks.approve(request)).await? {
            ApprovalDecision::Once | ApprovalDecision::Always => Ok(Ok(())),
            ApprovalDecision::Deny => Ok(Err(DENIED_MESSAGE.to_owned())),
        }
    }

    fn capped(&self, response: Map<String, Value>, meta: &mut ToolCallMeta) -> Map<String, Value> {
        let Some(cap) = self.cap else {
            return response;
        };
        let capped = cap.apply(response);
        meta.prompt_tokens = Some(capped.prompt_tokens as u64);
        if capped.omitted_tokens > 0 {
            meta.omitted_tokens = Some(capped.omitted_tokens as u64);
            meta.full_output = capped.full_output;
        }
        capped.response
    }
}
