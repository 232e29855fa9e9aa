//! Tools in the desktop app's service, without a window: an MCP server from npm configured
//! in settings.json, the approval card as a `ToolApproval` event answered through
//! `App::approve_tool_call`, "always allow" saved to the file, Stop while a card waits, and
//! Settings → Tools (`mcp_servers`, `set_tool_policy`).

#[path = "common/servers_ready.rs"]
mod servers_ready;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lango_core::agent::ApprovalDecision;
use lango_core::app::{App, ChatEvent, TurnStatus};
use lango_core::paths::AppPaths;
use lango_core::store::ToolCallStatus;
use lango_core::tools::mcp::ToolPolicy;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use servers_ready::servers_ready;

fn everything() -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.is_file(),
        "run scripts/install-mcp-test-servers.sh (make test does)"
    );
    json!({"command": "node", "args": [script, "stdio"]})
}

fn echo_call(id: &str, then: &str) -> Turn {
    Turn::ToolCall {
        id: id.into(),
        name: "everything__echo".into(),
        arguments_json: r#"{"message":"from the app"}"#.into(),
        then_text: Some(then.into()),
    }
}

async fn app_with(turns: Vec<Turn>) -> (tempfile::TempDir, FakeProvider, App) {
    app_with_servers(turns, json!({"everything": everything()})).await
}

async fn app_with_servers(
    turns: Vec<Turn>,
    servers: Value,
) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new(turns)).await;
    let doc = json!({
        "providers": {"fake": {"type": "openai-compatible", "baseUrl": format!("{}/v1", fake.base_url()), "defaultModel": "fake-model"}},
        "agent": {"provider": "fake"},
        "mcpServers": servers
    });
    std::fs::write(home.path().join("settings.json"), doc.to_string()).unwrap();
    // SAFETY: every test of this binary sets the same value.
    unsafe { std::env::set_var("LANGO_FAKE_API_KEY", "sk-app-tools") };
    let mut paths = AppPaths::under(home.path());
    // Saved results go here, never in the Downloads folder of whoever runs the tests.
    paths.export_dir = Some(home.path().join("exports"));
    let app = App::open(paths).await.expect("app opens");
    servers_ready(&app).await;
    (home, fake, app)
}

type Seen = Arc<Mutex<Vec<ChatEvent>>>;

/// Plays a turn, answering each approval card with `decision` (or stopping, for `None`).
async fn play(
    app: &App,
    key: &str,
    decision: Option<ApprovalDecision>,
) -> (TurnStatus, Vec<ChatEvent>) {
    let seen: Seen = Arc::default();
    let sink = {
        let seen = Arc::clone(&seen);
        let app = app.clone();
        let key = key.to_owned();
        move |e: ChatEvent| {
            if let ChatEvent::ToolApproval { id, .. } = &e {
                let (app, key, id) = (app.clone(), key.clone(), id.clone());
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    match decision {
                        Some(d) => assert!(
                            app.approve_tool_call(&key, &id, d),
                            "nothing waited for {id}"
                        ),
                        None => assert!(app.stop(&key)),
                    }
                });
            }
            seen.lock().unwrap().push(e);
        }
    };
    let outcome = app.send(key, "use the tool", sink).await.expect("turn");
    let events = seen.lock().unwrap().clone();
    (outcome.status, events)
}

fn result_event(events: &[ChatEvent]) -> Option<(ToolCallStatus, Value)> {
    events.iter().find_map(|e| match e {
        ChatEvent::ToolResult { status, result, .. } => Some((*status, result.clone())),
        _ => None,
    })
}

fn settings_file(home: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(home.join("settings.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_card_shows_the_call_and_allow_once_runs_it() {
    let (_home, _fake, app) = app_with(vec![echo_call("c1", "Done.")]).await;
    let (status, events) = play(&app, "s", Some(ApprovalDecision::Once)).await;
    assert_eq!(status, TurnStatus::Complete);
    let card = events
        .iter()
        .find_map(|e| match e {
            ChatEvent::ToolApproval {
                server,
                tool,
                description,
                annotations,
                args,
                ..
            } => Some((
                server.clone(),
                tool.clone(),
                description.clone(),
                annotations.read_only,
                args.clone(),
            )),
            _ => None,
        })
        .expect("an approval card");
    assert_eq!(card.0, "everything");
    assert_eq!(card.1, "echo");
    assert_eq!(card.2, "Echoes back the input string");
    assert_eq!(card.3, Some(true));
    assert_eq!(card.4, json!({"message": "from the app"}));
    let call = events.iter().find_map(|e| match e {
        ChatEvent::ToolCall { server, tool, .. } => Some((server.clone(), tool.clone())),
        _ => None,
    });
    assert_eq!(call, Some((Some("everything".into()), Some("echo".into()))));
    let (status, result) = result_event(&events).expect("a result");
    assert_eq!(status, ToolCallStatus::Done);
    assert_eq!(result["content"], json!("Echo: from the app"));
}

#[tokio::test(flavor = "multi_thread")]
async fn always_allow_is_saved_to_the_settings_file_and_the_next_call_does_not_ask() {
    let (home, _fake, app) =
        app_with(vec![echo_call("c1", "First."), echo_call("c2", "Second.")]).await;
    let (_, events) = play(&app, "s", Some(ApprovalDecision::Always)).await;
    assert_eq!(result_event(&events).unwrap().0, ToolCallStatus::Done);
    assert_eq!(
        settings_file(home.path())["mcpServers"]["everything"]["autoApprove"],
        json!(["echo"])
    );
    let (status, events) = play(&app, "s", Some(ApprovalDecision::Deny)).await;
    assert_eq!(status, TurnStatus::Complete);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, ChatEvent::ToolApproval { .. })),
        "asked again"
    );
    assert_eq!(result_event(&events).unwrap().0, ToolCallStatus::Done);
    // Revoked in Settings → Tools: asks again, saved.
    let info = app
        .set_tool_policy("everything", "echo", ToolPolicy::Ask)
        .await
        .unwrap();
    assert_eq!(
        info.tools.iter().find(|t| t.name == "echo").unwrap().policy,
        ToolPolicy::Ask
    );
    assert!(settings_file(home.path())["mcpServers"]["everything"]
        .get("autoApprove")
        .is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn deny_tells_the_model_and_the_turn_goes_on() {
    let (_home, fake, app) = app_with(vec![echo_call("c1", "Understood.")]).await;
    let (status, events) = play(&app, "s", Some(ApprovalDecision::Deny)).await;
    assert_eq!(status, TurnStatus::Complete);
    assert_eq!(result_event(&events).unwrap().0, ToolCallStatus::Denied);
    let sent = fake.generate_requests().last().unwrap().json().to_string();
    assert!(sent.contains("The user denied this tool call"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_while_the_card_waits_ends_the_turn_and_nothing_waits_any_more() {
    let (_home, _fake, app) = app_with(vec![echo_call("c1", "never")]).await;
    let (status, events) = play(&app, "s", None).await;
    assert_eq!(status, TurnStatus::Stopped);
    assert!(result_event(&events).is_none(), "the tool ran");
    assert!(
        !app.approve_tool_call("s", "c1", ApprovalDecision::Once),
        "a card still waits"
    );
    assert!(!app.is_busy("s"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disabled_tool_is_not_offered_to_the_model() {
    let (home, fake, app) = app_with(vec![Turn::text(["ok"])]).await;
    app.set_tool_policy("everything", "get-env", ToolPolicy::Disabled)
        .await
        .unwrap();
    assert_eq!(
        settings_file(home.path())["mcpServers"]["everything"]["disabledTools"],
        json!(["get-env"])
    );
    let _ = play(&app, "s", None).await;
    let tools = fake.generate_requests()[0].json()["tools"].to_string();
    assert!(tools.contains("everything__echo"), "{tools}");
    assert!(!tools.contains("everything__get-env"), "{tools}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_large_result_reaches_the_window_as_its_start_and_show_all_reads_it_whole() {
    // 300 KB of text: past the prompt's cap (stored whole for the card) and past what a
    // page carries whole, so a reload after each turn does not ship it again.
    let fault =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers/fault-server.mjs");
    let call = Turn::ToolCall {
        id: "c_big".into(),
        name: "fault__big".into(),
        arguments_json: r#"{"bytes":300000}"#.into(),
        then_text: Some("Read it.".into()),
    };
    let servers = json!({"fault": {"command": "node", "args": [fault], "autoApprove": ["big"]}});
    let (_home, _fake, app) = app_with_servers(vec![call], servers).await;
    let outcome = app.send("big", "use the tool", |_| {}).await.expect("turn");
    assert_eq!(outcome.status, TurnStatus::Complete, "{:?}", outcome.error);

    let page = app.page_messages("big", None, 50).await.unwrap();
    let row = page
        .iter()
        .find(|m| m.role == "tool")
        .expect("the tool's row");
    let meta = row.tool_calls[0].meta.clone().expect("card details");
    let head = meta.full_output.expect("the result's start");
    let size = meta.full_output_bytes.expect("the whole size") as usize;
    assert!(head.len() <= 16 * 1024, "{} bytes on the page", head.len());
    assert!(size > 300_000, "{size}");

    let shown = app.tool_result("big", row.seq, "c_big").await.unwrap();
    assert_eq!(shown.bytes, size);
    assert!(shown.complete, "300 KB is shown whole");
    assert_eq!(shown.text.len(), size);
    assert!(shown.text.starts_with(&head));
    assert!(shown.text.contains(&"x".repeat(300_000)));
    let err = app.tool_result("big", row.seq, "nope").await.unwrap_err();
    assert_eq!(err.code, "not_found");

    // Saved to a file: the tool's text itself, not its JSON.
    let saved = app.save_tool_result("big", row.seq, "c_big").await.unwrap();
    assert!(
        saved.path.ends_with("Lango - big result.txt"),
        "{}",
        saved.path
    );
    assert_eq!(
        std::fs::read_to_string(&saved.path).unwrap(),
        "x".repeat(300_000)
    );
    assert!(
        app.exported_file(&saved.path).is_ok(),
        "the window may show it in its folder"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_model_sees_counts_the_tool_definitions_sent_with_every_request() {
    let (_home, _fake, bare) = app_with_servers(vec![], json!({})).await;
    let before = bare.inspect("t").await.unwrap();
    let (_home2, _fake2, app) = app_with(vec![]).await;
    let view = app.inspect("t").await.unwrap();
    let everything = app.mcp_servers()[0].tools.len();
    assert!(everything >= 10, "{everything} tools");
    assert_eq!(view.tool_definitions, before.tool_definitions + everything);
    // Names, descriptions and JSON Schemas: far from free.
    assert!(
        view.tool_definition_tokens > before.tool_definition_tokens + 500,
        "{} vs {}",
        view.tool_definition_tokens,
        before.tool_definition_tokens
    );
}
