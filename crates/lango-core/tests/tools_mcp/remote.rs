//! Remote servers (Streamable HTTP) that fail: answers too large, refusals, proxies, dropped
//! connections, nobody at the address, a sign-in, a restart — each call hears what happened,
//! at once and in plain words, and the server is usable after.

use std::time::Duration;

use lango_core::config::{McpServerSettings, McpTransport};
use lango_core::tools::mcp::ServerState;
use serde_json::json;

use super::faults::error_of_a_17_mb_answer;
use super::support::*;

/// A server over HTTP whose answer is over the limit, as an SSE event (`json`: false) or a
/// JSON body: the call fails at once saying so, and the next call works.
async fn an_answer_too_large_over_http_fails_its_call(json_body: bool) {
    let flags: &[&str] = if json_body {
        &["--http", "--json"]
    } else {
        &["--http"]
    };
    let server = http_server("fault-server.mjs", flags).await;
    let hub = hub(vec![("remote", remote(&server.url))]).await;
    assert_eq!(
        state(&hub, "remote"),
        ServerState::Ready,
        "{:?}",
        hub.describe()
    );
    let started = std::time::Instant::now();
    // Before, the SDK ended the answer's stream (or refused the body) without telling the
    // call, which waited for the runner's timeout and was then reported as "timed out".
    let err = error_of_a_17_mb_answer(&hub, "remote").await;
    assert!(
        err.contains("the answer from \"remote\" was too large to read: more than the 16.0 MB Lango accepts from a tool"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    echo_still_works(&hub, "remote").await;
    hub.shutdown();
}

#[tokio::test]
async fn an_answer_too_large_over_http_as_an_sse_event_fails_its_call_at_once() {
    an_answer_too_large_over_http_fails_its_call(false).await;
}

#[tokio::test]
async fn an_answer_too_large_over_http_as_a_json_body_fails_its_call_at_once() {
    an_answer_too_large_over_http_fails_its_call(true).await;
}

#[tokio::test]
async fn a_remote_server_refusing_a_request_too_large_for_it_fails_the_call_at_once_with_its_words()
{
    // server-everything takes request bodies up to 4 MB and answers a larger one with HTTP 413
    // and a JSON-RPC error without an id. Before, the SDK could not match that answer to the
    // call, which waited for its timeout.
    let server = http_server(
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        &["streamableHttp"],
    )
    .await;
    let hub = hub(vec![("remote", remote(&server.url))]).await;
    let echo = tool(&hub, "remote__echo");
    let call = echo.run_output(ctx(), args(json!({"message": "y".repeat(5_000_000)})));
    let err = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call got no answer: the refusal was dropped")
        .unwrap_err();
    assert!(
        err.contains("the server \"remote\" answered with an error: Payload Too Large"),
        "{err}"
    );
    let out = echo
        .run_output(ctx(), args(json!({"message": "smaller"})))
        .await
        .unwrap();
    assert_eq!(out.value["content"], json!("Echo: smaller"));
    hub.shutdown();
}

#[tokio::test]
async fn a_remote_server_behind_a_failing_proxy_fails_the_call_with_the_http_status_not_as_stopped()
{
    let server = http_server("fault-server.mjs", &["--http"]).await;
    let hub = hub(vec![("remote", remote(&server.url))]).await;
    let err = tool(&hub, "remote__bad_gateway")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        err, "the server \"remote\" answered with an error: HTTP 502 Bad Gateway",
        "before, it read \"the server stopped while the tool was running\""
    );
    assert_eq!(state(&hub, "remote"), ServerState::Ready);
    hub.shutdown();
}

#[tokio::test]
async fn a_remote_call_whose_connection_drops_says_the_connection_was_lost_not_that_the_server_stopped(
) {
    let server = http_server("fault-server.mjs", &["--http"]).await;
    let hub = hub(vec![("remote", remote(&server.url))]).await;
    let err = tool(&hub, "remote__cut_stream")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "the connection to the server \"remote\" was lost while the tool was running (it may have run the tool all the same)"
    );
    echo_still_works(&hub, "remote").await;
    hub.shutdown();
}

#[tokio::test]
async fn a_remote_address_that_is_no_mcp_server_or_unreachable_fails_in_plain_words() {
    // A plain web server (Python's), which answers a POST with HTTP 501.
    let port = free_port();
    let web = tempfile::tempdir().unwrap();
    let mut python = tokio::process::Command::new("python3");
    python
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(web.path());
    let _web_server = listening(python, port, "python's web server").await;
    let failure = |url: String| async move {
        let hub = hub(vec![("web", remote(&url))]).await;
        match state(&hub, "web") {
            ServerState::Failed(why) => why,
            other => panic!("{url}: {other:?}"),
        }
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(
        failure(url.clone()).await,
        format!("the server failed while starting: {url} answered HTTP 501 Not Implemented — is it the address of an MCP server (Streamable HTTP)?")
    );
    // Before: "Send message error Transport [rmcp::transport::worker::WorkerTransport<…>]
    // error: Client error: error sending request for url (…), when send initialize request".
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let why = failure(url.clone()).await;
    assert!(
        why.starts_with(&format!(
            "the server failed while starting: could not connect to {url}: Connection refused"
        )),
        "{why}"
    );
    let why = failure("http://no-such-host.invalid/mcp".into()).await;
    assert!(
        why.starts_with("the server failed while starting: could not connect to http://no-such-host.invalid/mcp: ")
            && !why.contains("rmcp"),
        "{why}"
    );
}

#[tokio::test]
async fn a_remote_server_asking_to_sign_in_says_so_and_a_token_in_its_headers_lets_lango_in() {
    let server = http_server("fault-server.mjs", &["--http", "--require-token", "t0k3n"]).await;
    let without = hub(vec![("remote", remote(&server.url))]).await;
    let why = match state(&without, "remote") {
        ServerState::Failed(why) => why,
        other => panic!("{other:?}"),
    };
    // Before: "the connection to … failed: authorization required: Bearer resource_metadata=…".
    assert_eq!(
        why,
        format!("the server failed while starting: {} answered HTTP 401 Unauthorized: the server asks to sign in. Lango cannot sign in to an MCP server by itself; if the server takes a token, set it in the server's headers (\"Authorization\": \"Bearer keychain:NAME\")", server.url)
    );
    without.shutdown();
    let with_token = McpServerSettings::with_transport(McpTransport::Http {
        url: server.url.clone(),
        headers: [("Authorization".to_owned(), "Bearer t0k3n".to_owned())].into(),
    });
    let hub = hub(vec![("remote", with_token)]).await;
    echo_still_works(&hub, "remote").await;
    hub.shutdown();
}

#[tokio::test]
async fn a_remote_server_that_restarts_is_reached_again_without_a_restart_in_lango() {
    let port = free_port();
    let script =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let everything = || {
        let mut cmd = tokio::process::Command::new("node");
        cmd.arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string());
        cmd
    };
    let first = listening(everything(), port, "server-everything").await;
    let hub = hub(vec![(
        "remote",
        remote(&format!("http://127.0.0.1:{port}/mcp")),
    )])
    .await;
    echo_still_works(&hub, "remote").await;

    drop(first);
    let down = eventually(Duration::from_secs(10), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    })
    .await;
    assert!(down);
    // Nobody at the address: the call was never made, and it says so (it read "the
    // connection was lost while the tool was running (it may have run the tool…)").
    let err = tool(&hub, "remote__echo")
        .run_output(ctx(), args(json!({"message": "while down"})))
        .await
        .unwrap_err();
    assert!(
        err.starts_with("could not reach the server \"remote\" (Connection refused")
            && err.ends_with("); the tool did not run"),
        "{err}"
    );

    // Back, it has forgotten our session and answers 400 "No valid session ID provided".
    // Before, every later call failed so until the user restarted the server in Settings.
    let _second = listening(everything(), port, "server-everything again").await;
    echo_still_works(&hub, "remote").await;
    echo_still_works(&hub, "remote").await;
    hub.shutdown();
}
