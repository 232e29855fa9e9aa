//! Where the test servers are, and a hub over them.

use std::path::PathBuf;
use std::time::Duration;

use lango_core::agent::{Tool, ToolContext, Toolset};
use lango_core::config::{McpServerSettings, McpServers, McpTransport};
use lango_core::tools::mcp::{McpHub, ServerOptions, ServerState};
use serde_json::{Map, Value};

/// The PyPI server's program in the virtualenv (Windows venvs keep programs in `Scripts`).
const TIME_SERVER: &str = if cfg!(windows) {
    ".venv/Scripts/mcp-server-time.exe"
} else {
    ".venv/bin/mcp-server-time"
};

/// `tests/mcp-servers` of the repository.
pub fn servers_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js").is_file()
            && dir.join(TIME_SERVER).is_file(),
        "the MCP test servers are not installed: run scripts/install-mcp-test-servers.sh (make test does)"
    );
    dir
}

pub fn node_server(script: &str, args: &[&str]) -> McpServerSettings {
    let dir = servers_dir();
    let mut all = vec![dir.join(script).display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    McpServerSettings::stdio("node", all)
}

pub fn everything() -> McpServerSettings {
    node_server(
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        &["stdio"],
    )
}

pub fn fault(args: &[&str], log: &std::path::Path) -> McpServerSettings {
    let mut s = node_server("fault-server.mjs", args);
    if let McpTransport::Stdio { env, .. } = &mut s.transport {
        env.insert("FAULT_LOG".into(), log.display().to_string());
    }
    s
}

pub fn time_server() -> McpServerSettings {
    let bin = servers_dir().join(TIME_SERVER);
    McpServerSettings::stdio(
        bin.display().to_string(),
        vec!["--local-timezone".into(), "UTC".into()],
    )
}

pub fn options() -> ServerOptions {
    ServerOptions {
        start_timeout: Duration::from_secs(20),
        restart_backoff: Duration::from_millis(200),
        secrets: None,
    }
}

/// A hub over `servers`, waited for until none is starting.
pub async fn hub(servers: Vec<(&str, McpServerSettings)>) -> McpHub {
    hub_with(servers, options()).await
}

pub async fn hub_with(servers: Vec<(&str, McpServerSettings)>, options: ServerOptions) -> McpHub {
    let hub = McpHub::new(options);
    let configured: McpServers = servers
        .into_iter()
        .map(|(n, s)| (n.to_owned(), s))
        .collect();
    hub.apply(&configured);
    hub.wait_started(Duration::from_secs(30)).await;
    hub
}

pub fn state(hub: &McpHub, server: &str) -> ServerState {
    hub.server(server).expect("server").state()
}

/// The hub's tool with this exposed name.
pub fn tool(hub: &McpHub, name: &str) -> std::sync::Arc<dyn Tool> {
    let tools = hub.tools();
    tools
        .iter()
        .find(|t| t.name() == name)
        .cloned()
        .unwrap_or_else(|| {
            let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
            panic!("no tool {name}; the hub has {names:?}")
        })
}

pub fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

pub fn ctx() -> ToolContext {
    ToolContext {
        agent_name: "lango-agent".into(),
        session_key: Some("test".into()),
        call_id: "call_1".into(),
        progress: None,
    }
}

/// Polls `check` every 50 ms for up to `limit`.
pub async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    check()
}

/// Whether a process with this id still runs (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A port no one listens on yet.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts `cmd` (a server told to listen on `port`), quiet and killed when dropped, and
/// waits until it accepts connections.
pub async fn listening(
    mut cmd: tokio::process::Command,
    port: u16,
    what: &str,
) -> tokio::process::Child {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let up = eventually(Duration::from_secs(15), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;
    assert!(up, "{what} did not start");
    child
}

/// A server run by the test itself on a free local port, speaking Streamable HTTP; killed
/// when dropped.
pub struct HttpServer {
    pub url: String,
    _child: tokio::process::Child,
}

/// Starts `node <script> <args>` (under `tests/mcp-servers`) with `PORT` set.
pub async fn http_server(script: &str, args: &[&str]) -> HttpServer {
    let port = free_port();
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(servers_dir().join(script))
        .args(args)
        .env("PORT", port.to_string());
    HttpServer {
        url: format!("http://127.0.0.1:{port}/mcp"),
        _child: listening(cmd, port, script).await,
    }
}

/// That `server`'s echo tool answers (after a failure that must not have broken it).
pub async fn echo_still_works(hub: &McpHub, server: &str) {
    let out = tool(hub, &format!("{server}__echo"))
        .run_output(ctx(), args(serde_json::json!({"message": "after"})))
        .await
        .unwrap();
    assert_eq!(out.value["content"], serde_json::json!("Echo: after"));
}

/// Settings for the server at `url`, without headers.
pub fn remote(url: &str) -> McpServerSettings {
    McpServerSettings::with_transport(McpTransport::Http {
        url: url.to_owned(),
        headers: Default::default(),
    })
}
