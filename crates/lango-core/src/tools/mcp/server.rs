//! One configured server, supervised: started in the background, its tools listed (again on
//! `notifications/tools/list_changed`), restarted with backoff when it exits, and given up
//! on — with the reason as its status — when it keeps failing or cannot start at all.
//!
//! Owns a server's life and state. It must not name tools for models (`hub` does) nor
//! decide approval (`tool` reads this server's settings for that).

use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::watch;

use super::connection::{Connection, RemoteTool, StartOptions};
use super::error::McpError;
use super::stderr_log::StderrLog;
use crate::agent::ProgressSink;
use crate::config::McpServerSettings;
use crate::secrets::SecretStore;

/// Restarts in a row before a crashing server is left failed (until the user restarts it).
const MAX_RESTARTS: u32 = 5;
/// A server that stayed up this long starts its restart count afresh.
const STABLE_AFTER: Duration = Duration::from_secs(60);

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Disabled,
    Starting,
    Ready,
    /// Why it is not running (and will not be retried without a restart, or is about to be).
    Failed(String),
}

/// Start-up settings every server shares.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// How long `initialize` may take.
    pub start_timeout: Duration,
    /// First wait before a restart; doubles each time, at most 30 s.
    pub restart_backoff: Duration,
    /// For `keychain:` references in `env` / `headers`.
    pub secrets: Option<SecretStore>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            start_timeout: Duration::from_secs(30),
            restart_backoff: Duration::from_secs(1),
            secrets: None,
        }
    }
}

#[derive(Debug)]
pub struct McpServer {
    name: String,
    settings: RwLock<McpServerSettings>,
    state: watch::Sender<ServerState>,
    connection: RwLock<Option<Arc<Connection>>>,
    tools: RwLock<Vec<RemoteTool>>,
    stderr: StderrLog,
    supervisor: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    options: ServerOptions,
}

impl McpServer {
    /// A server, started at once unless disabled.
    pub fn start(name: &str, settings: McpServerSettings, options: ServerOptions) -> Arc<Self> {
        let initial = if settings.disabled {
            ServerState::Disabled
        } else {
            ServerState::Starting
        };
        let server = Arc::new(Self {
            name: name.to_owned(),
            settings: RwLock::new(settings),
            state: watch::channel(initial).0,
            connection: RwLock::new(None),
            tools: RwLock::new(Vec::new()),
            stderr: StderrLog::default(),
            supervisor: std::sync::Mutex::new(None),
            options,
        });
        server.restart();
        server
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn settings(&self) -> McpServerSettings {
        self.settings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// New policy keys (`autoApprove`, `disabledTools`, `timeout`) without a restart.
    pub fn update_policy(&self, settings: &McpServerSettings) {
        let mut current = self
            .settings
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        current.auto_approve = settings.auto_approve.clone();
        current.disabled_tools = settings.disabled_tools.clone();
        current.timeout = settings.timeout;
    }

    pub fn state(&self) -> ServerState {
        self.state.borrow().clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<ServerState> {
        self.state.subscribe()
    }

    pub fn tools(&self) -> Vec<RemoteTool> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.tail()
    }

    /// The running process's id (stdio servers).
    pub fn pid(&self) -> Option<u32> {
        self.connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(|c| c.pid())
    }

    /// Stops whatever runs and starts again (or stays stopped when disabled).
    pub fn restart(self: &Arc<Self>) {
        self.stop();
        if self
            .settings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .disabled
        {
            self.state.send_replace(ServerState::Disabled);
            return;
        }
        self.state.send_replace(ServerState::Starting);
        let me = Arc::clone(self);
        let task = tokio::spawn(async move { me.supervise().await });
        if let Ok(mut slot) = self.supervisor.lock() {
            *slot = Some(task);
        }
    }

    /// Stops the supervisor and the process.
    pub fn stop(&self) {
        if let Ok(mut slot) = self.supervisor.lock() {
            if let Some(task) = slot.take() {
                task.abort();
            }
        }
        if let Some(conn) = self
            .connection
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            drop(conn);
        }
    }

    /// Calls `tool` on the running server.
    pub async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, McpError> {
        let conn = self
            .connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(conn) = conn.filter(|c| !c.is_closed()) else {
            return Err(match self.state() {
                ServerState::Failed(why) => McpError::ServerGone {
                    server: self.name.clone(),
                    stderr: format!(" ({why})"),
                },
                _ => McpError::NotRunning(self.name.clone()),
            });
        };
        conn.call(tool, args, progress).await
    }

    async fn supervise(self: Arc<Self>) {
        let mut failures: u32 = 0;
        loop {
            self.state.send_replace(ServerState::Starting);
            let started = Instant::now();
            let e = self.run_once().await;
            // Retrying cannot help these: the user must change something first.
            let permanent = matches!(
                e,
                McpError::CommandNotFound { .. }
                    | McpError::MissingSecret { .. }
                    | McpError::Secret { .. }
                    | McpError::Spawn { .. }
            );
            tracing::warn!(server = %self.name, error = %e, "MCP server failed");
            self.state.send_replace(ServerState::Failed(e.to_string()));
            if permanent {
                return;
            }
            self.connection
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            self.tools
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
            if started.elapsed() >= STABLE_AFTER {
                failures = 0;
            }
            failures += 1;
            if failures > MAX_RESTARTS {
                let why = match self.state() {
                    ServerState::Failed(why) => why,
                    _ => "the server exited".to_owned(),
                };
                self.state.send_replace(ServerState::Failed(format!(
                    "{why} — gave up after {MAX_RESTARTS} restarts; restart it in Settings → Tools"
                )));
                return;
            }
            let wait = self
                .options
                .restart_backoff
                .saturating_mul(1 << (failures - 1).min(5))
                .min(Duration::from_secs(30));
            tokio::time::sleep(wait).await;
        }
    }

    /// Starts the server and serves until it ends; why it ended.
    async fn run_once(&self) -> McpError {
        match self.serve().await {
            Ok(never) => match never {},
            Err(e) => e,
        }
    }

    async fn serve(&self) -> Result<std::convert::Infallible, McpError> {
        let settings = self.settings();
        let (changed_tx, mut changed) = watch::channel(0u64);
        let conn = Connection::start(StartOptions {
            server: &self.name,
            transport: &settings.transport,
            secrets: self.options.secrets.as_ref(),
            start_timeout: self.options.start_timeout,
            stderr: self.stderr.clone(),
            tools_changed: changed_tx,
        })
        .await?;
        let conn = Arc::new(conn);
        let tools = conn.list_tools().await?;
        tracing::info!(server = %self.name, tools = tools.len(), "MCP server ready");
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools;
        *self
            .connection
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&conn));
        self.state.send_replace(ServerState::Ready);
        let mut closed = conn.closed();
        loop {
            if *closed.borrow() {
                break;
            }
            tokio::select! {
                gone = closed.changed() => if gone.is_err() { break },
                changed = changed.changed() => {
                    if changed.is_err() { break; }
                    match conn.list_tools().await {
                        Ok(tools) => *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools,
                        Err(e) => tracing::warn!(server = %self.name, error = %e, "listing tools again failed"),
                    }
                }
            }
        }
        let tail = self.stderr.tail();
        Err(McpError::ServerGone {
            server: self.name.clone(),
            stderr: super::error::stderr_suffix(&tail),
        })
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.stop();
    }
}
