//! What real servers offer and answer: listing, calls, results of every content kind,
//! progress, a second SDK (Python), Streamable HTTP, name collisions, list changes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lango_core::agent::tools::ToolAdapter;
use lango_core::agent::{ProgressSink, Toolset};
use lango_core::config::{McpServerSettings, McpTransport};
use lango_core::tools::mcp::ServerState;
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn the_everything_server_lists_its_tools_with_annotations_and_answers_calls() {
    let hub = hub(vec![("everything", everything())]).await;
    assert_eq!(state(&hub, "everything"), ServerState::Ready);
    let info = hub.describe();
    let tools = &info[0].tools;
    for expected in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "trigger-long-running-operation",
        "get-env",
    ] {
        assert!(
            tools.iter().any(|t| t.name == expected),
            "{expected} missing: {tools:?}"
        );
    }
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.exposed_name, "everything__echo");
    assert_eq!(echo.annotations.read_only, Some(true));

    let out = tool(&hub, "everything__echo")
        .run_output(ctx(), args(json!({"message": "hello"})))
        .await
        .expect("echo");
    assert_eq!(out.value["content"], json!("Echo: hello"));

    let out = tool(&hub, "everything__get-sum")
        .run_output(ctx(), args(json!({"a": 2, "b": 40})))
        .await
        .expect("sum");
    assert!(
        out.value["content"].as_str().unwrap().contains("42"),
        "{:?}",
        out.value
    );
}

#[tokio::test]
async fn an_image_from_a_tool_reaches_the_card_and_only_a_placeholder_reaches_the_model() {
    let hub = hub(vec![("everything", everything())]).await;
    let out = tool(&hub, "everything__get-tiny-image")
        .run_output(ctx(), args(json!({})))
        .await
        .expect("image");
    assert_eq!(out.images.len(), 1);
    assert_eq!(out.images[0].mime_type, "image/png");
    let text = out.value["content"].as_str().unwrap();
    assert!(text.contains("[image: image/png"), "{text}");
    assert!(
        !text.contains(&out.images[0].data[..20]),
        "base64 leaked into the model's text"
    );
}

#[tokio::test]
async fn annotated_content_keeps_its_text_and_image() {
    let hub = hub(vec![("everything", everything())]).await;
    let out = tool(&hub, "everything__get-annotated-message")
        .run_output(
            ctx(),
            args(json!({"messageType": "error", "includeImage": true})),
        )
        .await
        .expect("annotated");
    let text = out.value["content"].as_str().unwrap();
    assert!(text.starts_with("Error: Operation failed"), "{text}");
    assert_eq!(out.images.len(), 1);
}

#[tokio::test]
async fn a_long_running_call_reports_its_progress() {
    let hub = hub(vec![("everything", everything())]).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = Arc::clone(&seen);
        ProgressSink::new(move |p| seen.lock().unwrap().push((p.progress, p.total)))
    };
    let mut c = ctx();
    c.progress = Some(sink);
    let out = tool(&hub, "everything__trigger-long-running-operation")
        .run_output(c, args(json!({"duration": 1, "steps": 4})))
        .await
        .expect("long op");
    assert!(
        out.value["content"].as_str().unwrap().contains("completed"),
        "{:?}",
        out.value
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            (1.0, Some(4.0)),
            (2.0, Some(4.0)),
            (3.0, Some(4.0)),
            (4.0, Some(4.0))
        ]
    );
}

#[tokio::test]
async fn a_python_server_works_too() {
    let hub = hub(vec![("time", time_server())]).await;
    assert_eq!(
        state(&hub, "time"),
        ServerState::Ready,
        "{:?}",
        hub.describe()
    );
    let out = tool(&hub, "time__get_current_time")
        .run_output(ctx(), args(json!({"timezone": "UTC"})))
        .await
        .expect("time");
    let text = out.value["content"].as_str().unwrap();
    assert!(
        text.contains("\"timezone\": \"UTC\"") || text.contains("UTC"),
        "{text}"
    );
}

#[tokio::test]
async fn the_filesystem_server_reads_only_inside_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk").unwrap();
    let fs = node_server(
        "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        &[dir.path().to_str().unwrap()],
    );
    let hub = hub(vec![("files", fs)]).await;
    assert_eq!(
        state(&hub, "files"),
        ServerState::Ready,
        "{:?}",
        hub.describe()
    );
    let read = tool(&hub, "files__read_text_file");
    let out = read
        .run_output(ctx(), args(json!({"path": dir.path().join("notes.txt")})))
        .await
        .expect("read");
    // The file as text only: the server's `structuredContent` says the same again.
    assert_eq!(out.value, json!({"content": "remember the milk"}));
    let out = read
        .run_output(ctx(), args(json!({"path": "/etc/passwd"})))
        .await
        .expect("the call itself works");
    assert!(
        out.is_error,
        "reading outside the folder must be a tool error: {:?}",
        out.value
    );
}

#[tokio::test]
async fn two_servers_with_the_same_tools_get_distinct_names_that_map_back() {
    let hub = hub(vec![("a b", everything()), ("a.b", everything())]).await;
    let names: Vec<String> = hub.tools().iter().map(|t| t.name().to_owned()).collect();
    assert!(names.contains(&"a_b__echo".to_owned()), "{names:?}");
    assert!(names.contains(&"a_b__echo_2".to_owned()), "{names:?}");
    let unique: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "duplicate names: {names:?}");
    for name in ["a_b__echo", "a_b__echo_2"] {
        let origin = tool(&hub, name).origin().expect("origin");
        assert_eq!(origin.tool, "echo");
    }
    let servers: Vec<String> = ["a_b__echo", "a_b__echo_2"]
        .iter()
        .map(|n| tool(&hub, n).origin().unwrap().server)
        .collect();
    assert_eq!(servers, vec!["a b".to_owned(), "a.b".to_owned()]);
}

#[tokio::test]
async fn a_tool_added_at_run_time_appears_after_list_changed() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    assert!(!hub.tools().iter().any(|t| t.name() == "fault__added_1"));
    tool(&hub, "fault__add_tool")
        .run_output(ctx(), args(json!({})))
        .await
        .expect("add");
    assert!(
        eventually(Duration::from_secs(5), || hub
            .tools()
            .iter()
            .any(|t| t.name() == "fault__added_1"))
        .await,
        "the new tool never appeared"
    );
    let out = tool(&hub, "fault__added_1")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap();
    assert_eq!(out.value["content"], json!("added_1 ran"));
}

#[tokio::test]
async fn a_remote_server_over_streamable_http_works() {
    let server = http_server(
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        &["streamableHttp"],
    )
    .await;
    let remote = McpServerSettings::with_transport(McpTransport::Http {
        url: server.url.clone(),
        headers: [("X-Test".to_owned(), "1".to_owned())].into(),
    });
    let hub = hub(vec![("remote", remote)]).await;
    assert_eq!(
        state(&hub, "remote"),
        ServerState::Ready,
        "{:?}",
        hub.describe()
    );
    let out = tool(&hub, "remote__echo")
        .run_output(ctx(), args(json!({"message": "over http"})))
        .await
        .expect("echo");
    assert_eq!(out.value["content"], json!("Echo: over http"));
    hub.shutdown();
}

#[tokio::test]
async fn the_servers_timeout_setting_bounds_each_call() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut settings = fault(&[], log.path());
    settings.timeout = 1;
    let hub = hub(vec![("fault", settings)]).await;
    let sleep = tool(&hub, "fault__sleep");
    assert_eq!(sleep.timeout(), Some(Duration::from_secs(1)));
    let adapter = ToolAdapter::new(Arc::clone(&sleep), sleep.timeout().unwrap());
    let started = std::time::Instant::now();
    let failure = adapter
        .run(ctx(), args(json!({"ms": 20000})))
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        failure.message().contains("timed out after 1s"),
        "{failure:?}"
    );
    // The server is told the call was cancelled, and stops its work.
    assert!(
        eventually(Duration::from_secs(5), || std::fs::read_to_string(
            log.path()
        )
        .unwrap_or_default()
        .contains("sleep cancelled"))
        .await,
        "the server never got notifications/cancelled: {}",
        std::fs::read_to_string(log.path()).unwrap_or_default()
    );
}
