//! What the CLI tests in terminal.rs, signals.rs and read_only.rs share: settings pointing at
//! the fake provider, running the real binary, reading its output and the database.
#![allow(dead_code)] // each test binary uses a different part

use std::path::Path;
use std::process::{Output, Stdio};

use lango_core::store::{Store, StoredMessage};
use lango_testkit::fake::FakeProvider;
use serde_json::json;

pub const KEY: &str = "sk-test-key-1234";

/// settings.json with provider `p`, an OpenAI-compatible endpoint at the fake.
pub fn write_settings(home: &Path, fake: &FakeProvider) {
    let settings = json!({
        "providers": {"p": {
            "type": "openai-compatible",
            "baseUrl": format!("{}/v1", fake.server().base_url()),
            "defaultModel": "fake-model"
        }},
        "agent": {"provider": "p", "systemPrompt": "You are a test assistant."}
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

/// `lango --data-dir home ARGS`, with `stdin` piped in (or none).
pub fn lango_command(home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"));
    command
        .arg("--data-dir")
        .arg(home)
        .args(args)
        .env("LANGO_P_API_KEY", KEY)
        .env_remove("LANGO_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

pub async fn lango(home: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut command = lango_command(home, args);
    if stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().expect("run lango");
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).await.unwrap();
        drop(pipe);
    }
    child.wait_with_output().await.expect("lango runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub async fn rows(home: &Path, key: &str) -> Vec<StoredMessage> {
    let store = Store::open(&home.join("lango.db")).await.unwrap();
    let rows = store.list_messages(key).await.unwrap();
    store.close().await;
    rows
}
