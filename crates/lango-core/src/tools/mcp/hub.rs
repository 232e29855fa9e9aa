//! Every configured server, as one [`Toolset`] for the agent: started from the settings,
//! updated when they change (new servers start, removed ones stop, changed ones restart,
//! policy changes apply at once), and described for Settings → Tools and `lango mcp list`.
//!
//! Owns the set of servers and the exposed tool names. A hub outlives engine rebuilds: the
//! app keeps one, so saving unrelated settings never restarts a server.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use serde::Serialize;

use super::error::McpError;
use super::names::exposed_name;
use super::server::{McpServer, ServerOptions, ServerState};
use super::tool::McpTool;
use crate::agent::{Tool, ToolHints, Toolset};
use crate::config::{McpServerSettings, McpServers};

/// What the user chose for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolPolicy {
    /// Each call waits for the user's approval.
    Ask,
    /// Runs without asking (`autoApprove`).
    Always,
    /// Never offered to the model (`disabledTools`).
    Disabled,
}

/// A server as Settings → Tools and `lango mcp list` show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInfo {
    pub name: String,
    pub transport: &'static str,
    /// disabled | starting | ready | failed
    pub state: &'static str,
    pub error: Option<String>,
    pub tools: Vec<McpToolInfo>,
    pub stderr_tail: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    pub name: String,
    /// The name the model sees ("" for a disabled tool).
    pub exposed_name: String,
    pub description: String,
    pub policy: ToolPolicy,
    pub annotations: ToolHints,
}

/// Cheap to clone; the servers stop when the last clone is dropped (or on `shutdown`).
#[derive(Debug, Clone, Default)]
pub struct McpHub {
    servers: Arc<Servers>,
    options: ServerOptions,
}

#[derive(Debug, Default)]
struct Servers(RwLock<BTreeMap<String, Arc<McpServer>>>);

impl Drop for Servers {
    fn drop(&mut self) {
        // Each supervisor task holds its server: stopping aborts it, which lets go.
        for server in self
            .0
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            server.stop();
        }
    }
}

impl McpHub {
    pub fn new(options: ServerOptions) -> Self {
        Self {
            servers: Arc::default(),
            options,
        }
    }

    /// Brings the running servers in line with `configured`.
    pub fn apply(&self, configured: &McpServers) {
        let mut servers = self
            .servers
            .0
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        servers.retain(|name, server| {
            let keep = configured.contains_key(name);
            if !keep {
                server.stop();
            }
            keep
        });
        for (name, settings) in configured {
            match servers.get(name) {
                Some(server) if same_process(&server.settings(), settings) => {
                    server.update_policy(settings);
                }
                Some(server) => {
                    server.stop();
                    servers.insert(
                        name.clone(),
                        McpServer::start(name, settings.clone(), self.options.clone()),
                    );
                }
                None => {
                    servers.insert(
                        name.clone(),
                        McpServer::start(name, settings.clone(), self.options.clone()),
                    );
                }
            }
        }
    }

    pub fn server(&self, name: &str) -> Option<Arc<McpServer>> {
        self.servers
            .0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Restarts one server (after a crash it gave up on, or to pick up a new binary).
    pub fn restart(&self, name: &str) -> Result<(), McpError> {
        let server = self
            .server(name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()))?;
        server.restart();
        Ok(())
    }

    /// Waits until no enabled server is still starting, at most `limit`.
    pub async fn wait_started(&self, limit: Duration) {
        let servers = self.all();
        let all = async {
            for server in servers {
                let mut state = server.subscribe();
                let _ = state.wait_for(|s| *s != ServerState::Starting).await;
            }
        };
        let _ = tokio::time::timeout(limit, all).await;
    }

    /// Stops every server (the app quits).
    pub fn shutdown(&self) {
        for server in self
            .servers
            .0
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            server.stop();
        }
    }

    /// The servers in name order (a snapshot: no lock is held while they are used).
    fn all(&self) -> Vec<Arc<McpServer>> {
        self.servers
            .0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// Every server with its state and tools, in name order.
    pub fn describe(&self) -> Vec<McpServerInfo> {
        let servers = self.all();
        let mut taken = HashSet::new();
        servers
            .iter()
            .map(|server| {
                let settings = server.settings();
                let (state, error) = match server.state() {
                    ServerState::Disabled => ("disabled", None),
                    ServerState::Starting => ("starting", None),
                    ServerState::Ready => ("ready", None),
                    ServerState::Failed(why) => ("failed", Some(why)),
                };
                let tools = server
                    .tools()
                    .into_iter()
                    .map(|t| {
                        let policy = policy_of(&settings, &t.name);
                        McpToolInfo {
                            exposed_name: if policy == ToolPolicy::Disabled {
                                String::new()
                            } else {
                                exposed_name(server.name(), &t.name, &mut taken)
                            },
                            name: t.name,
                            description: t.description,
                            policy,
                            annotations: t.hints,
                        }
                    })
                    .collect();
                McpServerInfo {
                    name: server.name().to_owned(),
                    transport: settings.transport.kind(),
                    state,
                    error,
                    tools,
                    stderr_tail: server.stderr_tail(),
                }
            })
            .collect()
    }
}

impl Toolset for McpHub {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let servers = self.all();
        let mut taken = HashSet::new();
        let mut out: Vec<Arc<dyn Tool>> = Vec::new();
        for server in servers {
            if server.state() != ServerState::Ready {
                continue;
            }
            let settings = server.settings();
            for remote in server.tools() {
                if policy_of(&settings, &remote.name) == ToolPolicy::Disabled {
                    continue;
                }
                let name = exposed_name(server.name(), &remote.name, &mut taken);
                out.push(Arc::new(McpTool::new(name, Arc::clone(&server), remote)));
            }
        }
        out
    }
}

/// A tool's policy under a server's settings.
pub fn policy_of(settings: &McpServerSettings, tool: &str) -> ToolPolicy {
    if settings.disabled_tools.iter().any(|t| t == tool) {
        ToolPolicy::Disabled
    } else if settings.auto_approve.iter().any(|t| t == tool) {
        ToolPolicy::Always
    } else {
        ToolPolicy::Ask
    }
}

/// `settings` with `tool` set to `policy` (the lists `autoApprove` / `disabledTools`).
pub fn with_policy(
    mut settings: McpServerSettings,
    tool: &str,
    policy: ToolPolicy,
) -> McpServerSettings {
    settings.auto_approve.retain(|t| t != tool);
    settings.disabled_tools.retain(|t| t != tool);
    match policy {
        ToolPolicy::Ask => {}
        ToolPolicy::Always => settings.auto_approve.push(tool.to_owned()),
        ToolPolicy::Disabled => settings.disabled_tools.push(tool.to_owned()),
    }
    settings
}

/// Whether two settings run the same process (only policy keys differ).
fn same_process(a: &McpServerSettings, b: &McpServerSettings) -> bool {
    a.transport == b.transport && a.disabled == b.disabled
}
