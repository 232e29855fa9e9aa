//! MCP tool call benchmarks (run: `cargo bench -p lango-core --bench mcp`; needs the test
//! servers: `scripts/install-mcp-test-servers.sh`, which `make bench` runs).
//!
//! Against the real `@modelcontextprotocol/server-everything` over stdio (node). Prints:
//! - server start: from `McpHub::apply` to ready with its tools listed (spawn + initialize +
//!   `tools/list`), median of a few starts;
//! - round trip of the `echo` tool through Lango (`McpTool::run_output`: the SDK, progress
//!   registration, result mapping) next to a bare JSON-RPC round trip over another instance
//!   of the same server's stdin/stdout (one line out, one line in), p50/p99 of interleaved
//!   calls; the difference is Lango's overhead per call (goal ≤ 5 ms at p50).
//!
//! A plain binary (no criterion) so it builds fast and prints both sides in one run.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use lango_core::agent::{ToolContext, Toolset};
use lango_core::config::{McpServerSettings, McpServers};
use lango_core::tools::mcp::{McpHub, ServerOptions, ServerState};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const STARTS: usize = 5;
const CALLS: usize = 400;
const WARMUP: usize = 20;

fn everything() -> (String, PathBuf) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.is_file(),
        "the MCP test servers are not installed: run scripts/install-mcp-test-servers.sh"
    );
    ("node".to_owned(), script)
}

fn settings() -> McpServers {
    let (node, script) = everything();
    [(
        "everything".to_owned(),
        McpServerSettings::stdio(node, vec![script.display().to_string(), "stdio".into()]),
    )]
    .into()
}

async fn started_hub() -> (McpHub, Duration) {
    let hub = McpHub::new(ServerOptions::default());
    let t = Instant::now();
    hub.apply(&settings());
    hub.wait_started(Duration::from_secs(60)).await;
    let took = t.elapsed();
    assert_eq!(
        hub.server("everything").map(|s| s.state()),
        Some(ServerState::Ready),
        "{:?}",
        hub.describe()
    );
    (hub, took)
}

/// A bare JSON-RPC client over a server's stdio: initialize, then one call per line.
struct Bare {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next_id: u64,
}

impl Bare {
    async fn start() -> Self {
        let (node, script) = everything();
        let mut child = tokio::process::Command::new(node)
            .arg(script)
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut bare = Self {
            _child: child,
            stdin,
            lines,
            next_id: 1,
        };
        bare.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}))
            .await;
        bare.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        bare
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.expect("write");
    }

    /// Sends a request and reads lines until its response.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = self.lines.next_line().await.expect("read").expect("eof");
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                return v;
            }
        }
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() {
    // Server start.
    let mut starts = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let (hub, took) = started_hub().await;
        starts.push(took);
        hub.shutdown();
    }
    let start_p50 = percentile(&mut starts, 0.5);
    println!(
        "MCP server start (spawn + initialize + tools/list, server-everything on node): median {:.0} ms over {STARTS} starts (min {:.0}, max {:.0})",
        ms(start_p50),
        ms(starts[0]),
        ms(starts[starts.len() - 1])
    );

    // Round trips, interleaved so drift affects both alike.
    let (hub, _) = started_hub().await;
    let echo = hub
        .tools()
        .into_iter()
        .find(|t| t.name() == "everything__echo")
        .expect("echo tool");
    let mut bare = Bare::start().await;
    let ctx = ToolContext {
        agent_name: "bench".into(),
        session_key: Some("bench".into()),
        call_id: "call".into(),
        progress: None,
    };
    let args = json!({"message": "hello"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let (mut ours, mut raw) = (Vec::with_capacity(CALLS), Vec::with_capacity(CALLS));
    for i in 0..(CALLS + WARMUP) {
        let t = Instant::now();
        let out = echo
            .run_output(ctx.clone(), args.clone())
            .await
            .expect("echo");
        let lango = t.elapsed();
        assert_eq!(out.value["content"], json!("Echo: hello"));
        let t = Instant::now();
        let v = bare
            .request(
                "tools/call",
                json!({"name": "echo", "arguments": {"message": "hello"}}),
            )
            .await;
        let plain = t.elapsed();
        assert!(v["result"]["content"][0]["text"] == "Echo: hello", "{v}");
        if i >= WARMUP {
            ours.push(lango);
            raw.push(plain);
        }
    }
    let (o50, o99) = (percentile(&mut ours, 0.5), percentile(&mut ours, 0.99));
    let (r50, r99) = (percentile(&mut raw, 0.5), percentile(&mut raw, 0.99));
    println!("MCP echo round trip over stdio, {CALLS} calls each, interleaved:");
    println!(
        "  through Lango (McpTool → rmcp):  p50 {:.3} ms  p99 {:.3} ms",
        ms(o50),
        ms(o99)
    );
    println!(
        "  bare JSON-RPC line in/line out:  p50 {:.3} ms  p99 {:.3} ms",
        ms(r50),
        ms(r99)
    );
    println!(
        "  Lango's overhead per call:       p50 {:.3} ms  p99 {:.3} ms  (ratio p50 {:.2}×; goal: overhead ≤ 5 ms at p50)",
        ms(o50.saturating_sub(r50)),
        ms(o99.saturating_sub(r99)),
        o50.as_secs_f64() / r50.as_secs_f64()
    );
    hub.shutdown();
}
