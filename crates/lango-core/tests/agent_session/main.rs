//! Session service, events view, truncation and cleanup tests (REFERENCE §2, specs 000/001/003/004,
//! acceptance 23–43) against real SQLite files in temporary folders.

mod acceptance_events;
mod acceptance_history;
mod acceptance_service;
mod events;
mod legacy;
mod orphans;
mod service;
mod state;
mod truncation;
mod wire;

use std::sync::Arc;

use lango_core::agent::session::{SessionAdapter, SessionServiceAdapter};
use lango_core::agent::{Content, Event, EventActions, Part, Session, SessionService};
use lango_core::store::{NewMessage, Store, StoredMessage, ToolCall};
use lango_core::tokens::FixedCostCounter;
use serde_json::{Map, Value};
use tempfile::TempDir;

/// A fresh store with the default (tiktoken) counter.
pub async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

/// A store whose counter charges `cost` per message ("cost N").
pub async fn temp_store_with_cost(cost: usize) -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_with(
        &dir.path().join("lango.db"),
        &dir.path().join("backups"),
        Arc::new(FixedCostCounter { cost }),
    )
    .await
    .expect("open store");
    (dir, store)
}

/// A JSON object literal as a map.
pub fn obj(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// A non-partial event with this author and content.
pub fn event(author: &str, role: &str, parts: Vec<Part>) -> Event {
    Event {
        id: "evt".into(),
        author: author.into(),
        timestamp: 0,
        content: Some(Content::new(role, parts)),
        ..Event::default()
    }
}

/// An event carrying only a state delta.
pub fn delta_event(delta: Value) -> Event {
    Event {
        id: "delta".into(),
        author: "lango-agent".into(),
        actions: EventActions {
            state_delta: obj(delta),
            transfer_to_agent: None,
        },
        ..Event::default()
    }
}

/// A row to append directly to the store.
pub fn row(role: &str, author: &str, content: &str, tool_calls: Vec<ToolCall>) -> NewMessage {
    NewMessage {
        role: role.into(),
        author: author.into(),
        content: content.into(),
        tool_calls,
        ..NewMessage::default()
    }
}

/// `n` plain rows `m0`, `m1`, … alternating user / assistant, starting with the user.
pub fn alternating(n: usize) -> Vec<NewMessage> {
    (0..n)
        .map(|i| {
            row(
                if i % 2 == 0 { "user" } else { "assistant" },
                "",
                &format!("m{i}"),
                vec![],
            )
        })
        .collect()
}

/// A stored call (`input`).
pub fn call(id: &str, name: &str, input: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        input: input.into(),
        ..ToolCall::default()
    }
}

/// A stored response (`output`).
pub fn response(id: &str, name: &str, output: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        output: output.into(),
        ..ToolCall::default()
    }
}

/// Creates `key` and appends `rows` in order.
pub async fn seed(store: &Store, key: &str, rows: Vec<NewMessage>) -> Vec<StoredMessage> {
    store
        .get_or_create_session(key)
        .await
        .expect("create session");
    let mut out = Vec::new();
    for r in rows {
        out.push(store.append_message(key, r).await.expect("append"));
    }
    out
}

/// The concrete adapter behind a `dyn Session`.
pub fn adapter(session: &dyn Session) -> &SessionAdapter {
    session
        .as_any()
        .downcast_ref::<SessionAdapter>()
        .expect("a SessionAdapter")
}

/// A service with root agent `root` and `budget` (0 = default).
pub fn service(store: &Store, root: &str, budget: i64) -> SessionServiceAdapter {
    SessionServiceAdapter::new(store.clone(), root).with_token_budget(budget)
}

/// Every event of session `key` as a service with root agent `root` and `budget` loads them.
pub async fn loaded_events(store: &Store, root: &str, budget: i64, key: &str) -> Vec<Event> {
    service(store, root, budget)
        .get(key)
        .await
        .unwrap()
        .events()
        .all()
}

/// The content role of each event.
pub fn event_roles(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| e.content.as_ref().expect("content").role.clone())
        .collect()
}

pub fn event_authors(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.author.clone()).collect()
}

/// The text parts of an event, in order.
pub fn texts(event: &Event) -> Vec<String> {
    event
        .content
        .as_ref()
        .expect("content")
        .parts
        .iter()
        .filter_map(|p| p.text.clone())
        .collect()
}

/// The parts of an event.
pub fn parts(event: &Event) -> &[Part] {
    &event.content.as_ref().expect("content").parts
}

/// The first text of each event (or "" for events without text).
pub fn first_texts(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| texts(e).into_iter().next().unwrap_or_default())
        .collect()
}
