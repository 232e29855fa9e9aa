//! The terminal boundary of `lango`: what it prints (never a control sequence that came from a
//! model, a tool, a provider or stored text), what it reads from a pipe (UTF-8 or a clear
//! error), and how it reads an API key (never echoed).

mod support;

use std::path::Path;

use lango_core::store::{NewMessage, Store};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use support::{lango, rows, stderr, stdout, write_settings};

/// True when `text` holds anything a terminal would act on rather than show.
fn has_control(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_with_clipboard_and_clear_screen_sequences_split_across_deltas_prints_without_them()
{
    let reply = [
        "Safe \x1b]52;c;ZXZp",
        "bA==\x07text \x1b[2",
        "J\x1b]0;pwned\x1b",
        "\\done\r\nnext\u{9b}1m line",
    ];
    let fake = FakeProvider::start(Script::new([Turn::text(reply)])).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let out = lango(home.path(), &["chat", "--session", "s", "hi"], None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Safe text done\nnext line\n");
    // The database keeps exactly what the model sent.
    assert_eq!(rows(home.path(), "s").await[1].content, reply.concat());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_error_body_with_escape_sequences_prints_without_them() {
    let fake = FakeProvider::start(Script::new([Turn::status(
        500,
        "overloaded\x1b[2J\x1b]52;c;ZXZpbA==\x07 try later",
    )]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let out = lango(home.path(), &["chat", "--session", "s", "hi"], None).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("overloaded"), "{err}");
    assert!(!has_control(&err), "{err:?}");
}

/// A conversation whose title and messages hold escape sequences (earlier replies, tool output).
async fn hostile_conversation(home: &Path) {
    let store = Store::open(&home.join("lango.db")).await.unwrap();
    store
        .create_session("s", "title\x1b]0;pwned\x07 here")
        .await
        .unwrap();
    store
        .append_message("s", NewMessage::new("user", "question"))
        .await
        .unwrap();
    store
        .append_message(
            "s",
            NewMessage::new(
                "assistant",
                "answer\x1b[2J\x1b]52;c;ZXZpbA==\x07 \u{9d}0;x\u{9c}end",
            ),
        )
        .await
        .unwrap();
    store.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stored_text_with_escape_sequences_is_listed_shown_and_exported_without_them() {
    let home = tempfile::tempdir().unwrap();
    hostile_conversation(home.path()).await;
    for args in [
        &["sessions", "list"][..],
        &["sessions", "show", "s"],
        &["sessions", "export", "s", "--format", "md"],
    ] {
        let out = lango(home.path(), args, None).await;
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(!has_control(&text), "{args:?}: {text:?}");
        assert!(
            text.contains("title here") || text.contains("answer end"),
            "{args:?}: {text}"
        );
    }
    // JSON keeps every character, escaped: the same value, nothing raw for the terminal.
    for args in [
        &["--json", "sessions", "show", "s"][..],
        &["sessions", "export", "s", "--format", "json"],
    ] {
        let out = lango(home.path(), args, None).await;
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(!has_control(&text), "{args:?}: {text:?}");
        assert!(
            text.contains(r"\u001b[2J") && text.contains(r"\u009d"),
            "{args:?}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_utf8_line_on_stdin_is_reported_and_nothing_after_it_is_sent() {
    let fake = FakeProvider::start(Script::new([Turn::text(["ok"])])).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let input = b"first message\ncaf\xe9 au lait\nthird message\n";
    let out = lango(home.path(), &["chat", "--session", "s"], Some(input)).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 2 of standard input is not valid UTF-8"),
        "{}",
        stderr(&out)
    );
    let sent: Vec<String> = rows(home.path(), "s")
        .await
        .into_iter()
        .filter(|r| r.role == "user")
        .map(|r| r.content)
        .collect();
    assert_eq!(sent, ["first message"]);
}

/// Settings where the key can only go to the file store (the test must not touch a real
/// keychain): no D-Bus session reachable, file store allowed.
fn key_settings(home: &Path) {
    let settings = serde_json::json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1"}},
        "agent": {"provider": "p"},
        "secrets": {"allowFileStore": true}
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

const NO_KEYCHAIN: (&str, &str) = ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");

#[tokio::test(flavor = "multi_thread")]
async fn a_piped_api_key_is_stored_and_never_printed() {
    let home = tempfile::tempdir().unwrap();
    key_settings(home.path());
    let mut command = support::lango_command(home.path(), &["config", "set-key", "p"]);
    command
        .env(NO_KEYCHAIN.0, NO_KEYCHAIN.1)
        .stdin(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(b"sk-piped-secret-42\n").await.unwrap();
    }
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("the p key is stored unencrypted in"),
        "{}",
        stdout(&out)
    );
    let printed = stdout(&out) + &stderr(&out);
    assert!(!printed.contains("sk-piped-secret-42"), "{printed}");
    let stored = std::fs::read_to_string(home.path().join("secrets.json")).unwrap();
    assert!(stored.contains("sk-piped-secret-42"), "{stored}");
}

#[test]
fn an_api_key_typed_at_a_terminal_is_not_shown() {
    let home = tempfile::tempdir().unwrap();
    key_settings(home.path());
    let run = format!(
        "'{}' --data-dir '{}' config set-key p; echo EXITED $?; sleep 60",
        env!("CARGO_BIN_EXE_lango"),
        home.path().display()
    );
    let Some(tmux) = support::Tmux::start("key", &run, &[NO_KEYCHAIN]) else {
        return;
    };
    tmux.wait_for("API key for p");
    tmux.type_line("sk-typed-secret-77");
    tmux.wait_for("EXITED");
    let screen = tmux.screen();
    assert!(screen.contains("EXITED 0"), "{screen}");
    assert!(!screen.contains("sk-typed-secret-77"), "{screen}");
    let stored = std::fs::read_to_string(home.path().join("secrets.json")).unwrap();
    assert!(stored.contains("sk-typed-secret-77"), "{stored}");
}
