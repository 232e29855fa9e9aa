//! The desktop app's service (`lango_core::app::App`) end to end: a real SQLite file, real
//! HTTP to the scriptable fake provider. These are the flows of the desktop issue — first
//! run, chat with streaming, stop, regenerate, edit and resend, errors, settings, export,
//! memory browser and inspector — without a window (the WebDriver tests drive the window).
//! The shared set-up is here; the tests are in `chat`, `data` and `memory`.

mod attachments;
mod chat;
mod conversation;
mod data;
mod memory;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lango_core::app::{App, ChatEvent, ExportFormat, MemoryItemKind, TurnOutcome, TurnStatus};
use lango_core::paths::AppPaths;
use lango_core::store::MessageStatus;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};

const KEY: &str = "sk-app-test-0123456789";

/// Settings with one OpenAI-compatible provider `fake` at `base_url`; its key comes from
/// the environment (LANGO_FAKE_API_KEY), as a user's CI or shell would give it.
fn settings_with_provider(base_url: &str) -> Value {
    json!({
        "providers": {"fake": {"type": "openai-compatible", "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "fake", "systemPrompt": "You are a test assistant."},
        "secrets": {"allowFileStore": true}
    })
}

/// Opens the app in `home`; its exports go to `home/exports` (each test its own folder:
/// the process environment is shared by tests running in parallel).
async fn open_app(home: &Path) -> App {
    std::env::set_var("LANGO_FAKE_API_KEY", KEY);
    let paths = AppPaths {
        export_dir: Some(home.join("exports")),
        ..AppPaths::under(home)
    };
    App::open(paths).await.expect("app opens")
}

async fn app_with(script: Script) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(script).await;
    let base = format!("{}/v1", fake.base_url());
    std::fs::write(
        home.path().join("settings.json"),
        settings_with_provider(&base).to_string(),
    )
    .unwrap();
    let app = open_app(home.path()).await;
    (home, fake, app)
}

type Seen = Arc<Mutex<Vec<ChatEvent>>>;

fn recorder() -> (Seen, impl FnMut(ChatEvent) + Send + 'static) {
    let seen: Seen = Arc::default();
    let sink = Arc::clone(&seen);
    (seen, move |e| sink.lock().unwrap().push(e))
}

fn streamed_text(seen: &Seen) -> String {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Delta { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

async fn send(app: &App, key: &str, text: &str) -> (TurnOutcome, String) {
    let (seen, sink) = recorder();
    let outcome = app.send(key, text, sink).await.expect("turn runs");
    (outcome, streamed_text(&seen))
}

/// An app whose provider answers every call with `note`, with the memory on and `memory`
/// merged into `observationalMemory`.
async fn app_with_memory(note: &str, memory: Value) -> (tempfile::TempDir, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new([Turn::text([note])])).await;
    let mut doc = settings_with_provider(&format!("{}/v1", fake.base_url()));
    let mut om = json!({"enabled": true});
    if let (Some(om), Some(extra)) = (om.as_object_mut(), memory.as_object()) {
        om.extend(extra.clone());
    }
    doc["observationalMemory"] = om;
    std::fs::write(home.path().join("settings.json"), doc.to_string()).unwrap();
    let app = open_app(home.path()).await;
    (home, fake, app)
}

/// Sends `n` messages "Turn <i>: <text>" to `key`, one turn each.
async fn send_turns(app: &App, key: &str, n: usize, text: &str) {
    for i in 0..n {
        send(app, key, &format!("Turn {i}: {text}")).await;
    }
}

/// Waits (at most 20 s) for the memory's first "observation added" event.
async fn first_observation(
    events: &mut tokio::sync::broadcast::Receiver<lango_core::memory::MemoryEvent>,
) -> lango_core::store::Observation {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Ok(lango_core::memory::MemoryEvent::ObservationAdded(o)) = events.recv().await {
                return o;
            }
        }
    })
    .await
    .expect("an observation is added")
}
