//! What a turn asks of whoever watches it while tools run: approval before a tool acts, and
//! a place for a tool's progress to go. The desktop app answers with an approval card, the
//! CLI with a y/n prompt or its `--approve` flag; tests script it.
//!
//! Owns the approval request/decision types and the [`TurnHooks`] seam. It must not decide
//! which tools need approval (a tool says so through [`Tool::origin`](super::Tool::origin))
//! nor persist "always allow" (the hooks' owner does: it knows where settings live).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::provider::BoxFuture;

/// What a tool says about itself beyond name and schema (MCP tool annotations). Hints only:
/// a server may lie, so they are shown to the user, never trusted to skip approval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolHints {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// Where a tool comes from: the server and the tool's own name there. Built-in tools have
/// none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOrigin {
    pub server: String,
    pub tool: String,
    pub hints: ToolHints,
    /// The user must allow each call (not in the server's `autoApprove`).
    pub needs_approval: bool,
}

/// One call waiting for the user's word.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub session_key: String,
    pub call_id: String,
    /// The name the model used (`server__tool`).
    pub name: String,
    pub server: String,
    pub tool: String,
    pub description: String,
    pub hints: ToolHints,
    pub args: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalDecision {
    /// Run this call.
    Once,
    /// Run this call and every later call of this tool (the owner stores it in `autoApprove`).
    Always,
    /// Do not run it: the model is told the user denied the call, and the turn goes on.
    Deny,
}

/// Progress a running tool reported (MCP `notifications/progress`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// Who watches a turn. Cancelling the turn while `approve` waits drops the future: the call
/// counts as denied and the turn ends.
pub trait TurnHooks: Send + Sync + std::fmt::Debug {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision>;
    fn progress(&self, call_id: &str, progress: ToolProgress) {
        let _ = (call_id, progress);
    }
}

/// Answers every request the same way (`lango chat --approve all|none`, tests).
#[derive(Debug, Clone, Copy)]
pub struct FixedApproval(pub ApprovalDecision);

impl TurnHooks for FixedApproval {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let decision = self.0;
        Box::pin(async move { decision })
    }
}

/// Where a running tool's progress goes (the turn's hooks, for one call id).
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(ToolProgress) + Send + Sync>);

impl ProgressSink {
    pub fn new(f: impl Fn(ToolProgress) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub fn report(&self, progress: ToolProgress) {
        (self.0)(progress);
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}
