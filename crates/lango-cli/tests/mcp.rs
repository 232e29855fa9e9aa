//! `lango mcp` and MCP tools in `lango chat`: the real binary against real MCP servers
//! (installed by scripts/install-mcp-test-servers.sh) and the fake provider.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use lango_core::store::Store;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};

fn servers_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js").is_file(),
        "the MCP test servers are not installed: run scripts/install-mcp-test-servers.sh (make test does)"
    );
    dir
}

fn everything() -> Value {
    let script =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    json!({"command": "node", "args": [script, "stdio"]})
}

fn fault_server(log: &Path) -> Value {
    let script = servers_dir().join("fault-server.mjs");
    json!({"command": "node", "args": [script], "env": {"FAULT_LOG": log}})
}

fn write_settings(home: &Path, base_url: Option<&str>, servers: Value) {
    let mut settings = json!({"mcpServers": servers});
    if let Some(url) = base_url {
        settings["providers"] = json!({"p": {"type": "openai-compatible", "baseUrl": url, "defaultModel": "fake-model"}});
        settings["agent"] = json!({"provider": "p"});
    }
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

fn lango(home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"));
    cmd.arg("--data-dir")
        .arg(home)
        .args(args)
        .env("LANGO_P_API_KEY", "sk-test-key-1234")
        .env_remove("LANGO_HOME")
        .stdin(std::process::Stdio::null());
    cmd
}

async fn run(home: &Path, args: &[&str]) -> Output {
    lango(home, args).output().await.expect("run lango")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn echo_call(then: &str) -> Script {
    Script::new([Turn::ToolCall {
        id: "call_1".into(),
        name: "everything__echo".into(),
        arguments_json: r#"{"message":"from the model"}"#.into(),
        then_text: Some(then.into()),
    }])
}

async fn tool_outputs(home: &Path, key: &str) -> Vec<String> {
    let store = Store::open(&home.join("lango.db")).await.unwrap();
    let rows = store.list_messages(key).await.unwrap();
    store.close().await;
    rows.into_iter()
        .flat_map(|r| r.tool_calls)
        .filter(|c| !c.output.is_empty())
        .map(|c| c.output)
        .collect()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}

fn started_pids(log: &Path) -> Vec<u32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("started pid="))
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_shows_each_server_with_its_state_and_tools() {
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        None,
        json!({"everything": everything(), "ghost": {"command": "uvx-not-installed-here"}}),
    );
    let out = run(home.path(), &["mcp", "list"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("everything (stdio) — ready,"), "{stdout}");
    assert!(
        stdout.contains("everything__echo [asks] Echoes back the input string"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "ghost (stdio) — failed: command not found: uvx-not-installed-here. Check the spelling"
        ),
        "{stdout}"
    );

    let out = run(home.path(), &["--json", "mcp", "list"]).await;
    let list: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(list[0]["name"], "everything");
    assert_eq!(list[0]["state"], "ready");
    assert_eq!(list[1]["state"], "failed");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_test_exits_non_zero_with_the_reason_when_a_server_cannot_start() {
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        None,
        json!({"ghost": {"command": "npx-not-installed-here"}, "everything": everything()}),
    );
    let out = run(home.path(), &["mcp", "test", "ghost"]).await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("command not found: npx-not-installed-here"),
        "{}",
        text(&out.stderr)
    );
    let out = run(home.path(), &["mcp", "test", "everything"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(home.path(), &["mcp", "test", "nope"]).await;
    assert!(
        text(&out.stderr)
            .contains("no MCP server is named \"nope\" (configured: everything, ghost)"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_with_approve_all_runs_the_tool_and_the_model_gets_its_result() {
    let fake = FakeProvider::start(echo_call("The tool said hello.")).await;
    let home = tempfile::tempdir().unwrap();
    let url = format!("{}/v1", fake.server().base_url());
    write_settings(home.path(), Some(&url), json!({"everything": everything()}));
    let out = run(
        home.path(),
        &[
            "chat",
            "--session",
            "s",
            "--approve",
            "all",
            "use the echo tool",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "The tool said hello.\n");
    let first_tools = fake.generate_requests()[0].json()["tools"].to_string();
    assert!(first_tools.contains("everything__echo"), "{first_tools}");
    let outputs = tool_outputs(home.path(), "s").await;
    assert!(outputs[0].contains("Echo: from the model"), "{outputs:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_hangs_at_start_holds_a_message_10_s_not_its_30_s_start_timeout() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Hello."])])).await;
    let home = tempfile::tempdir().unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut hung = fault_server(log.path());
    hung["args"]
        .as_array_mut()
        .unwrap()
        .push(json!("--hang-init"));
    let url = format!("{}/v1", fake.server().base_url());
    write_settings(
        home.path(),
        Some(&url),
        json!({"everything": everything(), "hung": hung}),
    );
    let started = std::time::Instant::now();
    let out = run(home.path(), &["chat", "--session", "s", "hello"]).await;
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Hello.\n");
    // Before, every message waited for the hung server's whole start timeout (30 s).
    assert!(took < Duration::from_secs(25), "{took:?}");
    assert!(
        text(&out.stderr).contains("the MCP server \"hung\" is still starting after 10 s; its tools are left out until it is ready"),
        "{}",
        text(&out.stderr)
    );
    // The servers that did start are offered.
    let tools = fake.generate_requests()[0].json()["tools"].to_string();
    assert!(tools.contains("everything__echo"), "{tools}");
    assert!(!tools.contains("hung__"), "{tools}");
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_without_a_terminal_denies_a_call_that_needs_approval_and_names_the_flag() {
    let fake = FakeProvider::start(echo_call("I could not run it.")).await;
    let home = tempfile::tempdir().unwrap();
    let url = format!("{}/v1", fake.server().base_url());
    write_settings(home.path(), Some(&url), json!({"everything": everything()}));
    let out = run(
        home.path(),
        &["chat", "--session", "s", "use the echo tool"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--approve all"),
        "{}",
        text(&out.stderr)
    );
    let outputs = tool_outputs(home.path(), "s").await;
    assert!(
        outputs[0].contains("The user denied this tool call"),
        "{outputs:?}"
    );
    assert!(!outputs[0].contains("Echo:"));
}

#[tokio::test(flavor = "multi_thread")]
async fn no_server_process_outlives_lango_even_when_it_is_killed() {
    // A clean exit: the server goes with it.
    let log = tempfile::NamedTempFile::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        None,
        json!({"fault": fault_server(log.path())}),
    );
    let out = run(home.path(), &["mcp", "test", "fault"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pids = started_pids(log.path());
    assert_eq!(pids.len(), 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !alive(pids[0]),
        "server {} outlived `lango mcp test`",
        pids[0]
    );

    // kill -9 in the middle of a tool call: the kernel takes the server down too.
    let log = tempfile::NamedTempFile::new().unwrap();
    let fake = FakeProvider::start(Script::new([Turn::ToolCall {
        id: "call_1".into(),
        name: "fault__sleep".into(),
        arguments_json: r#"{"ms": 60000}"#.into(),
        then_text: Some("done".into()),
    }]))
    .await;
    let url = format!("{}/v1", fake.server().base_url());
    write_settings(
        home.path(),
        Some(&url),
        json!({"fault": fault_server(log.path())}),
    );
    let mut child = lango(home.path(), &["chat", "--approve", "all", "sleep please"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(log.path())
        .unwrap_or_default()
        .contains("sleep started")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tool never started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let server = started_pids(log.path())[0];
    child.start_kill().unwrap();
    let _ = child.wait().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while alive(server) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(server), "server {server} outlived a killed lango");
}
