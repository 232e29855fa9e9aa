//! One live connection to an MCP server over the official SDK (`rmcp`): start (a child
//! process over stdio, or Streamable HTTP), `initialize`, `tools/list` with pagination,
//! `tools/call` with progress and cancellation, and the server's notifications.
//!
//! Owns the SDK. Everything above it sees plain JSON and our own types, so SDK changes stay
//! here. It must not restart servers or decide policy (`server` and `hub` do).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientConfig, ClientRequest, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use super::env;
use super::error::{stderr_suffix, McpError};
use super::oversized::{megabytes, OversizedAnswers, MAX_MESSAGE_BYTES};
use super::stderr_log::StderrLog;
use super::stdio::StdioTransport;
use crate::agent::{ProgressSink, ToolHints, ToolProgress};
use crate::config::McpTransport;
use crate::secrets::SecretStore;

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub hints: ToolHints,
}

/// What the server tells us between requests.
#[derive(Clone, Default)]
struct Shared {
    /// Progress token (as JSON text) → where that call's progress goes.
    progress: Arc<Mutex<HashMap<String, ProgressSink>>>,
    /// Bumped on `notifications/tools/list_changed`.
    tools_changed: Option<watch::Sender<u64>>,
    /// Calls whose answer was over the size limit (either transport).
    oversized: OversizedAnswers,
}

#[derive(Clone)]
struct Handler {
    shared: Shared,
}

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let key = serde_json::to_string(&params.progress_token).unwrap_or_default();
        let sink = match self.shared.progress.lock() {
            Ok(map) => map.get(&key).cloned(),
            Err(poisoned) => poisoned.into_inner().get(&key).cloned(),
        };
        if let Some(sink) = sink {
            sink.report(ToolProgress {
                progress: params.progress,
                total: params.total,
                message: params.message,
            });
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(tx) = &self.shared.tools_changed {
            tx.send_modify(|n| *n += 1);
        }
    }

    fn get_info(&self) -> ClientConfig {
        client_info()
    }
}

/// `initialize`'s client info: Lango and its version, the SDK's protocol version.
fn client_info() -> ClientConfig {
    let mut value = serde_json::to_value(ClientConfig::default()).unwrap_or_else(|_| json!({}));
    value["clientInfo"] = json!({"name": "lango", "version": env!("CARGO_PKG_VERSION")});
    serde_json::from_value(value).unwrap_or_default()
}

/// A started server.
pub struct Connection {
    server: String,
    peer: Peer<RoleClient>,
    shared: Shared,
    stop: Option<rmcp::service::RunningServiceCancellationToken>,
    /// True once the connection ended (the process exited, the stream closed).
    closed: watch::Receiver<bool>,
    stderr: StderrLog,
    /// The child's id; `None` only for a remote server (a child's is read as it starts).
    pid: Option<u32>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("pid", &self.pid)
            .finish()
    }
}

/// How to start one server.
pub struct StartOptions<'a> {
    pub server: &'a str,
    pub transport: &'a McpTransport,
    pub secrets: Option<&'a SecretStore>,
    /// How long `initialize` may take.
    pub start_timeout: Duration,
    pub stderr: StderrLog,
    pub tools_changed: watch::Sender<u64>,
}

impl Connection {
    pub async fn start(options: StartOptions<'_>) -> Result<Self, McpError> {
        let shared = Shared {
            progress: Arc::default(),
            tools_changed: Some(options.tools_changed.clone()),
            oversized: OversizedAnswers::default(),
        };
        let handler = Handler {
            shared: shared.clone(),
        };
        let stderr = options.stderr.clone();
        let seconds = options.start_timeout.as_secs().max(1);
        let timeout_error = |stderr: &StderrLog| McpError::StartTimeout {
            seconds,
            stderr: stderr_suffix(&stderr.tail()),
        };
        let (service, pid) = match options.transport {
            McpTransport::Stdio {
                command,
                args,
                env: configured,
                cwd,
            } => {
                let cwd = cwd.as_deref().map(std::path::Path::new);
                let program = env::resolve_command(command, cwd)?;
                let child_env = env::child_env(configured, options.secrets)?;
                let mut cmd = tokio::process::Command::new(&program);
                cmd.args(args).env_clear().envs(child_env);
                if let Some(dir) = cwd {
                    cmd.current_dir(dir);
                }
                let (process, child_stderr) =
                    StdioTransport::spawn(super::process::wrap(cmd), shared.oversized.clone())
                        .map_err(|e| McpError::Spawn {
                            command: command.clone(),
                            reason: e.to_string(),
                        })?;
                let pid = process.id();
                if let Some(err) = child_stderr {
                    tokio::spawn(super::stderr_log::drain(err, stderr.clone()));
                }
                let running = tokio::time::timeout(options.start_timeout, handler.serve(process))
                    .await
                    .map_err(|_| timeout_error(&stderr))?
                    .map_err(|e| McpError::Initialize {
                        reason: e.to_string(),
                        stderr: stderr_suffix(&stderr.tail()),
                    })?;
                (running, pid)
            }
            McpTransport::Http { url, headers } => {
                let transport = super::http::transport(
                    url,
                    headers,
                    options.secrets,
                    shared.oversized.clone(),
                )?;
                let running = tokio::time::timeout(options.start_timeout, handler.serve(transport))
                    .await
                    .map_err(|_| timeout_error(&stderr))?
                    .map_err(|e| McpError::Initialize {
                        reason: super::http::start_failure(url, &e),
                        stderr: String::new(),
                    })?;
                (running, None)
            }
        };
        Ok(Self::watch(options.server, service, shared, stderr, pid))
    }

    /// Keeps the running service in a task that flags `closed` when it ends.
    fn watch(
        server: &str,
        service: RunningService<RoleClient, Handler>,
        shared: Shared,
        stderr: StderrLog,
        pid: Option<u32>,
    ) -> Self {
        let peer = service.peer().clone();
        let stop = Some(service.cancellation_token());
        let (closed_tx, closed) = watch::channel(false);
        let name = server.to_owned();
        tokio::spawn(async move {
            let reason = service.waiting().await;
            tracing::info!(server = %name, ?reason, "MCP server connection ended");
            let _ = closed_tx.send(true);
        });
        Self {
            server: server.to_owned(),
            peer,
            shared,
            stop,
            closed,
            stderr,
            pid,
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// A receiver that turns true when the connection ends.
    pub fn closed(&self) -> watch::Receiver<bool> {
        self.closed.clone()
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Every tool, following `nextCursor` pages.
    pub async fn list_tools(&self) -> Result<Vec<RemoteTool>, McpError> {
        let tools = self
            .peer
            .list_all_tools()
            .await
            .map_err(|e| self.service_error(e))?;
        Ok(tools
            .into_iter()
            .map(|t| {
                let v = serde_json::to_value(&t).unwrap_or_default();
                RemoteTool {
                    name: t.name.to_string(),
                    description: t.description.as_deref().unwrap_or_default().to_owned(),
                    input_schema: v
                        .get("inputSchema")
                        .cloned()
                        .unwrap_or_else(|| json!({"type": "object"})),
                    hints: v
                        .get("annotations")
                        .and_then(|a| serde_json::from_value::<Annotations>(a.clone()).ok())
                        .map(Annotations::into_hints)
                        .unwrap_or_default(),
                }
            })
            .collect())
    }

    /// Calls `tool`; the `CallToolResult` as JSON. Dropping the future before the answer
    /// sends `notifications/cancelled` (Stop, a timeout).
    pub async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, McpError> {
        let params: CallToolRequestParams =
            serde_json::from_value(json!({"name": tool, "arguments": args})).map_err(|e| {
                McpError::Protocol {
                    server: self.server.clone(),
                    message: e.to_string(),
                }
            })?;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = self
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.service_error(e))?;
        let token_key = serde_json::to_string(&handle.progress_token).unwrap_or_default();
        let id_key = serde_json::to_string(&handle.id).unwrap_or_default();
        let guard = CallGuard {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
            progress: self.shared.progress.clone(),
            token_key: token_key.clone(),
        };
        if let Some(sink) = progress {
            if let Ok(mut map) = self.shared.progress.lock() {
                map.insert(token_key, sink);
            }
        }
        let answer = handle.rx.await;
        let mut guard = guard;
        guard.id = None;
        match answer {
            Ok(Ok(ServerResult::CallToolResult(result))) => {
                Ok(serde_json::to_value(&result).unwrap_or_default())
            }
            Ok(Ok(other)) => Err(McpError::Protocol {
                server: self.server.clone(),
                message: format!(
                    "unexpected answer to tools/call: {}",
                    serde_json::to_string(&other)
                        .unwrap_or_default()
                        .chars()
                        .take(200)
                        .collect::<String>()
                ),
            }),
            Ok(Err(e)) => match self.shared.oversized.take(&id_key) {
                Some(bytes) => Err(McpError::AnswerTooLarge {
                    server: self.server.clone(),
                    size: bytes.map(megabytes),
                    limit: megabytes(MAX_MESSAGE_BYTES),
                }),
                None => Err(self.service_error(e)),
            },
            Err(_) => Err(self.gone()),
        }
    }

    fn gone(&self) -> McpError {
        if self.pid.is_none() {
            // Over HTTP there is no process to have stopped: the connection ended.
            return McpError::ConnectionLost {
                server: self.server.clone(),
            };
        }
        McpError::ServerGone {
            server: self.server.clone(),
            stderr: stderr_suffix(&self.stderr.tail()),
        }
    }

    fn service_error(&self, e: rmcp::ServiceError) -> McpError {
        match e {
            // Over HTTP, a request that found no one listening was never run.
            rmcp::ServiceError::TransportSend(e)
                if self.pid.is_none() && super::http::reqwest_connect_failure(&e) =>
            {
                McpError::Unreachable {
                    server: self.server.clone(),
                    cause: super::http::innermost(&e),
                }
            }
            rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_) => {
                self.gone()
            }
            rmcp::ServiceError::McpError(data) => McpError::Protocol {
                server: self.server.clone(),
                message: data.message.to_string(),
            },
            other => McpError::Protocol {
                server: self.server.clone(),
                message: other.to_string(),
            },
        }
    }

    /// Ends the connection: the child is asked to exit (stdin closed), then killed with its
    /// process group.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Unregisters a call's progress sink, and sends `notifications/cancelled` when the call is
/// dropped before its answer.
struct CallGuard {
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
    progress: Arc<Mutex<HashMap<String, ProgressSink>>>,
    token_key: String,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if let Ok(mut map) = self.progress.lock() {
            map.remove(&self.token_key);
        }
        if let Some(id) = self.id.take() {
            let peer = self.peer.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let notification: rmcp::model::CancelledNotification = match serde_json::from_value(json!({
                        "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "the user stopped the call"}
                    })) {
                        Ok(n) => n,
                        Err(e) => {
                            tracing::warn!(error = %e, "could not build notifications/cancelled");
                            return;
                        }
                    };
                    if let Err(e) = peer.send_notification(notification.into()).await {
                        tracing::debug!(error = %e, "notifications/cancelled not sent");
                    }
                });
            }
        }
    }
}

/// MCP tool annotations as the spec names them.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Annotations {
    title: Option<String>,
    read_only_hint: Option<bool>,
    destructive_hint: Option<bool>,
    idempotent_hint: Option<bool>,
    open_world_hint: Option<bool>,
}

impl Annotations {
    fn into_hints(self) -> ToolHints {
        ToolHints {
            title: self.title,
            read_only: self.read_only_hint,
            destructive: self.destructive_hint,
            idempotent: self.idempotent_hint,
            open_world: self.open_world_hint,
        }
    }
}
