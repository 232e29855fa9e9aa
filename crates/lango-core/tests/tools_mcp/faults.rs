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
pub async fn error_of_a_17_mb_answer(hub: &lango_core::tools::mcp::McpHub, server: &str) -> String {
    let big = tool(hub, &format!("{server}__big"));
    let call = big.run_output(ctx(), args(json!({"bytes": 17_000_000})));
    tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("the call got no answer: the too-large answer was dropped")
        .unwrap_err()
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
