//! SIGTERM and SIGHUP mid-reply: the reply so far is kept, marked interrupted, and `lango chat`
//! exits with the shell's code for the signal (128 + its number).
#![cfg(unix)]

mod support;

use std::time::Duration;

use lango_core::store::MessageStatus;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use support::{rows, write_settings};
use tokio::io::AsyncReadExt;

/// Reads the child's stdout until `text` appeared.
async fn wait_for_output(stdout: &mut tokio::process::ChildStdout, text: &str) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 64];
    while !String::from_utf8_lossy(&seen).contains(text) {
        let n = tokio::time::timeout(Duration::from_secs(20), stdout.read(&mut buf))
            .await
            .expect("output in time")
            .unwrap();
        assert!(
            n > 0,
            "lango ended early: {:?}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
}

fn send(signal: &str, pid: u32) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Starts `lango chat` on a slowly streamed reply, sends `signal` once the first words are
/// out, and checks the exit code and the stored partial reply. `piped_conversation`: the
/// chat reads messages from a pipe left open (an interactive chat), instead of one message.
async fn signal_mid_reply(signal: &str, code: i32, piped_conversation: bool) {
    let fake = FakeProvider::start(Script::new([Turn::slow_text(
        ["one ", "two ", "three ", "four ", "five ", "six"],
        300,
    )]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let args: &[&str] = if piped_conversation {
        &["chat", "--session", "s"]
    } else {
        &["chat", "--session", "s", "count"]
    };
    let mut command = support::lango_command(home.path(), args);
    if piped_conversation {
        command.stdin(std::process::Stdio::piped());
    }
    let mut child = command.spawn().unwrap();
    // Kept open until the end: the chat must not go back to waiting for the next message.
    let mut input = child.stdin.take();
    if let Some(pipe) = input.as_mut() {
        use tokio::io::AsyncWriteExt;
        pipe.write_all(b"count\n").await.unwrap();
    }
    let mut stdout = child.stdout.take().unwrap();
    wait_for_output(&mut stdout, "two ").await;
    send(signal, child.id().unwrap());
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{signal}: lango did not exit"))
        .unwrap();
    drop(input);
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err).await;
    }
    assert_eq!(status.code(), Some(code), "{signal}: {err}");
    assert!(
        err.contains(&format!(
            "stopped by SIG{signal}; the reply so far is kept, marked interrupted"
        )),
        "{err}"
    );
    let rows = rows(home.path(), "s").await;
    assert_eq!(rows.len(), 2, "{signal}: {rows:?}");
    assert_eq!(rows[1].status, MessageStatus::Interrupted, "{signal}");
    assert!(
        rows[1].content.starts_with("one two"),
        "{:?}",
        rows[1].content
    );
    assert!(rows[1].content.len() < "one two three four five six".len());
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_reply_keeps_the_partial_reply_interrupted_and_exits_143() {
    signal_mid_reply("TERM", 143, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_mid_reply_keeps_the_partial_reply_interrupted_and_exits_129() {
    signal_mid_reply("HUP", 129, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_in_a_piped_conversation_ends_it_instead_of_waiting_for_more_input() {
    signal_mid_reply("TERM", 143, true).await;
}

#[test]
fn sigterm_at_the_interactive_prompt_exits_143_and_gives_the_terminal_back_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"providers": {"p": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1"}},
            "agent": {"provider": "p"}}"#,
    )
    .unwrap();
    let run = format!(
        "'{}' --data-dir '{}' chat --session s; echo EXITED $?; sleep 60",
        env!("CARGO_BIN_EXE_lango"),
        home.path().display()
    );
    let Some(tmux) = support::Tmux::start("prompt", &run, &[("LANGO_P_API_KEY", "k")]) else {
        return;
    };
    tmux.wait_for("you ›");
    send("TERM", tmux.child_pid().parse().unwrap());
    tmux.wait_for("EXITED 143");
    // The line editor's raw mode is undone: the shell gets its echo and line editing back.
    let stty = tmux.stty();
    let flags: Vec<&str> = stty.split_whitespace().collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo"),
        "{stty}"
    );
}
