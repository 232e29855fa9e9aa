//! What the CLI tests share: settings pointing at the fake provider (in any wire format),
//! running the real binary, reading its output and the database.
#![allow(dead_code)] // each test binary uses a different part

pub mod memory_db;
pub mod memory_settings;

use std::path::Path;
use std::process::{Output, Stdio};

use lango_core::store::{Store, StoredMessage};
use lango_testkit::fake::FakeProvider;
use serde_json::{json, Value};

pub const KEY: &str = "sk-test-key-1234";

/// The base prompt of the settings written here.
pub const SYSTEM_PROMPT: &str = "You are a test assistant.";

/// settings.json with provider `p`, an OpenAI-compatible endpoint at the fake.
pub fn write_settings(home: &Path, fake: &FakeProvider) {
    let url = base_url(fake, "openai-compatible");
    write_provider_settings(home, "openai-compatible", &url, json!({}));
}

/// settings.json with provider `p` of `kind` at `base_url`, merged with `extra` (its objects
/// extend the defaults' objects, its other values replace them).
pub fn write_provider_settings(home: &Path, kind: &str, base_url: &str, extra: Value) {
    let mut settings = json!({
        "providers": {"p": {"type": kind, "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "p", "systemPrompt": SYSTEM_PROMPT}
    });
    if let (Some(target), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            if let (Some(Value::Object(t)), Value::Object(e)) = (target.get_mut(k), v) {
                t.extend(e.clone());
            } else {
                target.insert(k.clone(), v.clone());
            }
        }
    }
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

/// What the history (every message but the system ones) of an OpenAI-format request body
/// costs in our tokens, as the token budget counts it.
pub fn history_tokens(body: &Value) -> usize {
    use lango_core::tokens::{MessageParts, TiktokenCounter, TokenCounter};
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            TiktokenCounter.message_cost(&MessageParts {
                content: m["content"].as_str().unwrap_or(""),
                tool_calls: vec![],
            })
        })
        .sum()
}

/// The fake's base URL as a provider of `kind` is configured with it.
pub fn base_url(fake: &FakeProvider, kind: &str) -> String {
    let root = fake.server().base_url();
    match kind {
        "openai-compatible" => format!("{root}/v1"),
        "gemini" => format!("{root}/v1beta"),
        _ => root,
    }
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

/// A real terminal: a private tmux server running one command in a 120×20 pane.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a new pane with `env` set. None, with the
    /// reason printed, where tmux is not installed.
    pub fn start(name: &str, command: &str, env: &[(&str, &str)]) -> Option<Self> {
        if std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_err()
        {
            #[allow(clippy::disallowed_macros)]
            {
                eprintln!("skipped: tmux is not installed, so there is no terminal to test in");
            }
            return None;
        }
        let tmux = Tmux {
            socket: format!("lango-test-{name}-{}", std::process::id()),
        };
        let mut start = tmux.command();
        start.args(["new-session", "-d", "-x", "120", "-y", "20", command]);
        for (k, v) in env {
            start.env(k, v);
        }
        let started = start.output().expect("tmux runs");
        assert!(started.status.success(), "{started:?}");
        Some(tmux)
    }

    fn command(&self) -> std::process::Command {
        let mut c = std::process::Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"])
            .env_remove("TMUX");
        c
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p"])
    }

    /// Waits (up to 20 s) until `text` is on screen.
    pub fn wait_for(&self, text: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !self.screen().contains(text) {
            assert!(
                std::time::Instant::now() < deadline,
                "no {text:?} on screen: {}",
                self.screen()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.run(&["send-keys", "-l", text]);
        self.run(&["send-keys", "Enter"]);
    }

    /// The pid of the pane's first child (the program the pane's shell runs).
    pub fn child_pid(&self) -> String {
        let shell = self.run(&["display", "-p", "#{pane_pid}"]);
        let out = std::process::Command::new("ps")
            .args(["-o", "pid=", "--ppid", shell.trim()])
            .output()
            .expect("ps runs");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .next()
            .expect("the pane runs a program")
            .to_string()
    }

    /// `stty -a` of the pane's terminal.
    pub fn stty(&self) -> String {
        let tty = self.run(&["display", "-p", "#{pane_tty}"]);
        let out = std::process::Command::new("stty")
            .args(["-a", "-F", tty.trim()])
            .output()
            .expect("stty runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}
