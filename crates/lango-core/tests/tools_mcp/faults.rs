//! Servers that crash, hang, print garbage, are missing, or must not see our secrets: none
//! of it may hang, flood or leak into a conversation.

use std::time::Duration;

use lango_core::agent::Toolset;
use lango_core::config::{McpServerSettings, McpTransport};
use lango_core::tools::mcp::{ServerOptions, ServerState};
use serde_json::json;

use super::support::*;

fn log_text(log: &tempfile::NamedTempFile) -> String {
    std::fs::read_to_string(log.path()).unwrap_or_default()
}

fn started_pids(log: &tempfile::NamedTempFile) -> Vec<u32> {
    log_text(log)
        .lines()
        .filter_map(|l| l.strip_prefix("started pid="))
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_gives_a_clear_error_and_is_restarted() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    let err = tool(&hub, "fault__crash")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap_err();
    assert!(
        err.contains("the server \"fault\" stopped while the tool was running"),
        "{err}"
    );
    let server = hub.server("fault").unwrap();
    assert!(
        eventually(Duration::from_secs(10), || started_pids(&log).len() == 2
            && server.state() == ServerState::Ready)
        .await,
        "not restarted: {:?} / {}",
        server.state(),
        log_text(&log)
    );
    let out = tool(&hub, "fault__echo")
        .run_output(ctx(), args(json!({"message": "again"})))
        .await
        .unwrap();
    assert_eq!(out.value["content"], json!("Echo: again"));
}

#[tokio::test]
async fn garbage_on_a_servers_stdout_does_not_break_its_calls() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("noisy", fault(&["--garbage"], log.path()))]).await;
    assert_eq!(
        state(&hub, "noisy"),
        ServerState::Ready,
        "{:?}",
        hub.describe()
    );
    for i in 0..3 {
        let out = tool(&hub, "noisy__echo")
            .run_output(ctx(), args(json!({"message": format!("m{i}")})))
            .await
            .expect("echo through the noise");
        assert_eq!(out.value["content"], json!(format!("Echo: m{i}")));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test]
async fn a_missing_command_fails_with_its_name_and_a_hint_and_is_not_retried() {
    let hub = hub(vec![(
        "ghost",
        McpServerSettings::stdio("npx-not-installed-here", vec![]),
    )])
    .await;
    match state(&hub, "ghost") {
        ServerState::Failed(why) => {
            assert!(
                why.starts_with("command not found: npx-not-installed-here."),
                "{why}"
            );
        }
        other => panic!("expected failed, got {other:?}"),
    }
    assert!(hub.tools().is_empty());
}

#[tokio::test]
async fn a_server_that_never_initializes_fails_after_the_start_timeout() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let options = ServerOptions {
        start_timeout: Duration::from_secs(2),
        ..options()
    };
    let started = std::time::Instant::now();
    let hub = hub_with(vec![("mute", fault(&["--hang-init"], log.path()))], options).await;
    let server = hub.server("mute").unwrap();
    assert!(
        eventually(Duration::from_secs(5), || matches!(
            server.state(),
            ServerState::Failed(_)
        ))
        .await
    );
    assert!(started.elapsed() < Duration::from_secs(6));
    let ServerState::Failed(why) = server.state() else {
        unreachable!()
    };
    assert!(why.contains("did not finish starting within 2 s"), "{why}");
    assert!(
        why.contains("never answering initialize"),
        "stderr should be quoted: {why}"
    );
    hub.shutdown();
    // The hung process was killed, not left behind.
    let pids = started_pids(&log);
    assert!(!pids.is_empty());
    assert!(
        eventually(Duration::from_secs(5), || pids.iter().all(|p| !alive(*p))).await,
        "left running: {pids:?}"
    );
}

#[tokio::test]
async fn a_server_that_keeps_exiting_is_given_up_on_with_its_reason() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let options = ServerOptions {
        restart_backoff: Duration::from_millis(50),
        ..options()
    };
    let hub = hub_with(
        vec![("flaky", fault(&["--exit-at-start"], log.path()))],
        options,
    )
    .await;
    let server = hub.server("flaky").unwrap();
    assert!(
        eventually(
            Duration::from_secs(15),
            || matches!(&server.state(), ServerState::Failed(w) if w.contains("gave up"))
        )
        .await,
        "{:?}",
        server.state()
    );
    let ServerState::Failed(why) = server.state() else {
        unreachable!()
    };
    assert!(why.contains("exiting at start on purpose"), "{why}");
    let starts = started_pids(&log).len();
    assert!((5..=7).contains(&starts), "started {starts} times");
}

#[tokio::test]
async fn a_child_sees_only_a_minimal_environment_and_never_a_provider_key() {
    // SAFETY: this test binary sets no other variable and reads none of these.
    unsafe {
        std::env::set_var("OPENAI_API_KEY", "sk-test-must-not-leak");
        std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-must-not-leak");
    }
    let mut settings = everything();
    if let McpTransport::Stdio { env, .. } = &mut settings.transport {
        env.insert("SERVER_OWN".into(), "yes".into());
    }
    let hub = hub(vec![("everything", settings)]).await;
    let out = tool(&hub, "everything__get-env")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap();
    let text = out.value["content"].as_str().unwrap();
    assert!(!text.contains("must-not-leak"), "{text}");
    assert!(
        !text.contains("OPENAI_API_KEY") && !text.contains("ANTHROPIC_API_KEY"),
        "{text}"
    );
    assert!(text.contains("SERVER_OWN"), "{text}");
    assert!(text.contains("PATH"), "{text}");
}

#[tokio::test]
async fn stopping_a_call_tells_the_server_it_was_cancelled() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    let sleep = tool(&hub, "fault__sleep");
    let call = sleep.run_output(ctx(), args(json!({"ms": 30000})));
    // Stop after the server started working: the call future is dropped.
    let _ = tokio::time::timeout(Duration::from_millis(700), call).await;
    assert!(log_text(&log).contains("sleep started"));
    assert!(
        eventually(Duration::from_secs(5), || log_text(&log)
            .contains("sleep cancelled"))
        .await,
        "{}",
        log_text(&log)
    );
    let out = tool(&hub, "fault__echo")
        .run_output(ctx(), args(json!({"message": "still here"})))
        .await
        .unwrap();
    assert_eq!(out.value["content"], json!("Echo: still here"));
}

#[tokio::test]
async fn no_server_process_outlives_the_hub() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    let pid = hub.server("fault").unwrap().pid().expect("pid");
    assert!(alive(pid));
    drop(hub);
    assert!(
        eventually(Duration::from_secs(5), || !alive(pid)).await,
        "server {pid} outlived the hub"
    );
}

#[tokio::test]
async fn a_keychain_reference_in_env_reaches_the_server_but_not_the_settings() {
    use lango_core::secrets::{ApiKey, KeychainStatus, SecretStore};
    let dir = tempfile::tempdir().unwrap();
    // No OS keychain in this test: the opt-in file store stands in for it.
    let secrets = SecretStore::new(
        KeychainStatus::Unavailable {
            reason: "test".into(),
        },
        true,
        dir.path(),
    );
    secrets
        .set("server-token", &ApiKey::new("tok-123-secret"))
        .unwrap();
    let mut settings = everything();
    if let McpTransport::Stdio { env, .. } = &mut settings.transport {
        env.insert("SERVER_TOKEN".into(), "keychain:server-token".into());
    }
    let written = serde_json::to_string(&settings).unwrap();
    assert!(!written.contains("tok-123-secret"));
    let options = ServerOptions {
        secrets: Some(secrets),
        ..options()
    };
    let hub = hub_with(vec![("everything", settings)], options).await;
    let out = tool(&hub, "everything__get-env")
        .run_output(ctx(), args(json!({})))
        .await
        .unwrap();
    let text = out.value["content"].as_str().unwrap();
    assert!(text.contains("tok-123-secret"), "{text}");
}

/// What a call of `server`'s big tool for 17 MB (over the 16 MB one message may take) fails
/// with, within a minute.
async fn error_of_a_17_mb_answer(hub: &lango_core::tools::mcp::McpHub, server: &str) -> String {
    let big = tool(hub, &format!("{server}__big"));
    let call = big.run_output(ctx(), args(json!({"bytes": 17_000_000})));
    tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("the call got no answer: the too-large answer was dropped")
        .unwrap_err()
}

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
async fn a_server_whose_stderr_is_not_text_keeps_answering_and_its_log_stays_readable() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&["--stderr-not-utf8"], log.path()))]).await;
    let shout = tool(&hub, "fault__shout");
    // 1 MB to stderr after bytes that are not UTF-8. Before, those bytes ended the reading
    // and closed the pipe: the log went silent, and a server writing on met a broken pipe.
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        shout.run_output(ctx(), args(json!({"bytes": 1_000_000}))),
    )
    .await
    .expect("the server got stuck writing to its stderr")
    .unwrap();
    assert_eq!(out.value["content"], json!("wrote 1000000 bytes to stderr"));
    let server = hub.server("fault").unwrap();
    // The stderr reader runs beside the calls: wait for it to reach the end.
    let shouted = |n: usize| {
        let tail = server.stderr_tail();
        tail.iter().filter(|l| *l == "shouted").count() == n
            && tail.last().is_some_and(|l| l == "shouted")
    };
    assert!(
        eventually(Duration::from_secs(10), || shouted(1)).await,
        "{:?}",
        server.stderr_tail().last()
    );
    // One line of 20 MB without a break is kept as its first 500 characters.
    shout
        .run_output(ctx(), args(json!({"bytes": 20_000_000, "oneLine": true})))
        .await
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || shouted(2)).await,
        "{:?}",
        server.stderr_tail().last()
    );
    let tail = server.stderr_tail();
    let long = &tail[tail.len() - 2];
    assert_eq!(long.chars().count(), 501, "{}", long.len());
    assert!(long.ends_with('…'));
}

#[tokio::test]
async fn bytes_that_are_not_text_in_a_servers_stderr_are_shown_replaced_not_dropped() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&["--stderr-not-utf8"], log.path()))]).await;
    let server = hub.server("fault").unwrap();
    let seen = eventually(Duration::from_secs(10), || {
        server
            .stderr_tail()
            .iter()
            .any(|l| l == "fault\u{fffd}\u{fffd}")
    })
    .await;
    assert!(seen, "{:?}", server.stderr_tail());
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

#[tokio::test]
async fn an_answer_too_large_to_read_fails_its_call_with_the_size_and_the_server_stays_usable() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let hub = hub(vec![("fault", fault(&[], log.path()))]).await;
    // 17 MB of text: over the 16 MB one message may take. Before, the SDK dropped the line
    // and the call waited for the runner's timeout, then claimed the tool "timed out".
    let err = error_of_a_17_mb_answer(&hub, "fault").await;
    let big = tool(&hub, "fault__big");
    assert!(
        err.contains(
            "the answer from \"fault\" was too large to read: 16.2 MB, more than the 16.0 MB"
        ),
        "{err}"
    );
    let server = hub.server("fault").unwrap();
    assert_eq!(server.state(), ServerState::Ready);
    echo_still_works(&hub, "fault").await;
    let whole = big
        .run_output(ctx(), args(json!({"bytes": 2_000_000})))
        .await
        .expect("an answer under the limit is read whole");
    assert_eq!(
        whole.value["content"].as_str().map(str::len),
        Some(2_000_000)
    );
}
