//! Tools in the desktop app: the turn's hooks (an approval card per call that needs one, a
//! progress line for running tools), the user's answer to a card, and Settings → Tools
//! (servers with their state and tools, restart, per-tool policy saved to settings.json).
//!
//! Owns the waiting approvals (session + call id → the answer's channel). The MCP servers
//! themselves are the hub's (`crate::tools::mcp`); it outlives engine rebuilds.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::dto::ChatEvent;
use super::{App, AppError};
use crate::agent::{ApprovalDecision, ApprovalRequest, ToolProgress, TurnHooks};
use crate::provider::BoxFuture;
use crate::tools::mcp::{policy_of, with_policy, McpError, McpServerInfo, ToolPolicy};

/// One turn's hooks: cards and progress go out on the turn's event stream.
#[derive(Debug)]
pub(super) struct AppTurnHooks {
    pub app: App,
    pub events: mpsc::UnboundedSender<ChatEvent>,
}

impl TurnHooks for AppTurnHooks {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let (tx, rx) = oneshot::channel();
        let key = (request.session_key.clone(), request.call_id.clone());
        self.app.approvals().insert(key.clone(), tx);
        let _ = self.events.send(ChatEvent::ToolApproval {
            id: request.call_id.clone(),
            name: request.name.clone(),
            server: request.server.clone(),
            tool: request.tool.clone(),
            description: request.description.clone(),
            annotations: request.hints.clone(),
            args: serde_json::Value::Object(request.args.clone()),
        });
        let app = self.app.clone();
        Box::pin(async move {
            // Removes the waiting card's channel however this ends (answered, Stop).
            let _forget = ForgetApproval {
                app: app.clone(),
                key,
            };
            let decision = rx.await.unwrap_or(ApprovalDecision::Deny);
            if decision == ApprovalDecision::Always {
                if let Err(e) = app
                    .set_tool_policy(&request.server, &request.tool, ToolPolicy::Always)
                    .await
                {
                    tracing::warn!(error = %e, "could not save \"always allow\"");
                }
            }
            decision
        })
    }

    fn progress(&self, call_id: &str, progress: ToolProgress) {
        let _ = self.events.send(ChatEvent::ToolProgress {
            id: call_id.to_owned(),
            progress: progress.progress,
            total: progress.total,
            message: progress.message,
        });
    }
}

struct ForgetApproval {
    app: App,
    key: (String, String),
}

impl Drop for ForgetApproval {
    fn drop(&mut self) {
        self.app.approvals().remove(&self.key);
    }
}

impl App {
    /// The user's answer to an approval card. False when no call waits under that id (it
    /// was answered already, or the turn was stopped).
    pub fn approve_tool_call(
        &self,
        session_key: &str,
        call_id: &str,
        decision: ApprovalDecision,
    ) -> bool {
        let waiting = self
            .approvals()
            .remove(&(session_key.to_owned(), call_id.to_owned()));
        match waiting {
            Some(tx) => tx.send(decision).is_ok(),
            None => false,
        }
    }

    /// Every configured MCP server with its state, tools and stderr tail.
    pub fn mcp_servers(&self) -> Vec<McpServerInfo> {
        self.inner.mcp.describe()
    }

    /// Restarts a server.
    pub fn mcp_restart(&self, name: &str) -> Result<McpServerInfo, AppError> {
        self.inner.mcp.restart(name)?;
        self.mcp_server(name)
    }

    fn mcp_server(&self, name: &str) -> Result<McpServerInfo, AppError> {
        self.mcp_servers()
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()).into())
    }

    /// Sets a tool's policy (ask / always / disabled) and saves it in settings.json, without
    /// restarting anything.
    pub async fn set_tool_policy(
        &self,
        server: &str,
        tool: &str,
        policy: ToolPolicy,
    ) -> Result<McpServerInfo, AppError> {
        let settings = {
            let mut running = self.inner.running.write().await;
            // The app runs on defaults when the file has mistakes: saving now would replace
            // the user's file with them.
            if let Some(problem) = &running.load_error {
                return Err(AppError::new(
                    "invalid_settings",
                    format!(
                        "the settings file has mistakes, so nothing was saved; fix it first ({})",
                        problem.message
                    ),
                ));
            }
            let Some(current) = running.settings.mcp_servers.get(server).cloned() else {
                return Err(McpError::UnknownServer(server.to_owned()).into());
            };
            if policy_of(&current, tool) == policy {
                drop(running);
                return self.mcp_server(server);
            }
            running
                .settings
                .mcp_servers
                .insert(server.to_owned(), with_policy(current, tool, policy));
            running.settings.clone()
        };
        self.write_settings_file(&settings).await?;
        self.inner.mcp.apply(&settings.mcp_servers);
        self.mcp_server(server)
    }

    fn approvals(&self) -> std::sync::MutexGuard<'_, super::Approvals> {
        match self.inner.approvals.lock() {
            Ok(a) => a,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The hooks of one turn, sending cards and progress to `events`.
    pub(super) fn turn_hooks(
        &self,
        events: mpsc::UnboundedSender<ChatEvent>,
    ) -> Arc<dyn TurnHooks> {
        Arc::new(AppTurnHooks {
            app: self.clone(),
            events,
        })
    }
}

impl From<McpError> for AppError {
    fn from(e: McpError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}
