//! What each provider would send for a session's events, and the tool-call pairing every wire
//! format requires (OpenAI and Anthropic answer 400 to an orphan; Gemini to a call whose
//! response is missing).

use lango_core::agent::model_adapter::convert::contents_to_messages;
use lango_core::agent::{Content, Event};
use lango_core::provider::{anthropic, gemini, openai, GenerateParams};
use serde_json::Value;

/// The request bodies of the OpenAI-compatible, Anthropic and Gemini clients for `events`.
pub struct Bodies {
    pub openai: Value,
    pub anthropic: Value,
    pub gemini: Value,
}

pub fn bodies(events: &[Event]) -> Bodies {
    let contents: Vec<Content> = events.iter().filter_map(|e| e.content.clone()).collect();
    let params = GenerateParams {
        messages: contents_to_messages(&contents),
        ..GenerateParams::default()
    };
    let prepared = openai::repair::prepare_messages(&params.messages);
    Bodies {
        openai: openai::request::build_body(&params, "m", &prepared),
        anthropic: anthropic::request::build_body(&params, "m"),
        gemini: gemini::request::build_body(&params),
    }
}

fn arr(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Every pairing fault of an OpenAI `messages` array: a tool message not answering a call of
/// the assistant message before its run, or a call left unanswered before a later message.
pub fn openai_orphans(body: &Value) -> Vec<String> {
    let messages = arr(&body["messages"]);
    let mut faults = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut in_run = false;
    for m in &messages {
        let role = s(&m["role"]);
        if role == "tool" {
            let id = s(&m["tool_call_id"]);
            match open.iter().position(|o| *o == id) {
                Some(k) if in_run => {
                    open.remove(k);
                }
                _ => faults.push(format!("tool result {id} answers no call before it")),
            }
            continue;
        }
        if in_run && !open.is_empty() {
            faults.push(format!("calls {open:?} have no result"));
        }
        open = arr(&m["tool_calls"]).iter().map(|c| s(&c["id"])).collect();
        in_run = role == "assistant" && !open.is_empty();
    }
    faults
}

/// Every pairing fault of an Anthropic `messages` array.
pub fn anthropic_orphans(body: &Value) -> Vec<String> {
    let messages = arr(&body["messages"]);
    let mut faults = Vec::new();
    let blocks = |m: &Value, kind: &str, field: &str| -> Vec<String> {
        arr(&m["content"])
            .iter()
            .filter(|b| b["type"] == kind)
            .map(|b| s(&b[field]))
            .collect()
    };
    for (i, m) in messages.iter().enumerate() {
        let results = blocks(m, "tool_result", "tool_use_id");
        let before = i
            .checked_sub(1)
            .map(|p| blocks(&messages[p], "tool_use", "id"))
            .unwrap_or_default();
        for id in &results {
            if !before.contains(id) {
                faults.push(format!("tool_result {id} answers no tool_use before it"));
            }
        }
        let calls = blocks(m, "tool_use", "id");
        let after = messages
            .get(i + 1)
            .map(|n| blocks(n, "tool_result", "tool_use_id"))
            .unwrap_or_default();
        for id in &calls {
            if !after.contains(id) {
                faults.push(format!("tool_use {id} has no tool_result next"));
            }
        }
    }
    if messages.first().is_some_and(|m| m["role"] != "user") {
        faults.push("the first message is not the user's".into());
    }
    faults
}

/// Every pairing fault of Gemini `contents`.
pub fn gemini_orphans(body: &Value) -> Vec<String> {
    let contents = arr(&body["contents"]);
    let mut faults = Vec::new();
    let names = |c: &Value, kind: &str| -> Vec<String> {
        arr(&c["parts"])
            .iter()
            .filter(|p| p.get(kind).is_some())
            .map(|p| s(&p[kind]["name"]))
            .collect()
    };
    for (i, c) in contents.iter().enumerate() {
        let before = i
            .checked_sub(1)
            .map(|p| names(&contents[p], "functionCall"))
            .unwrap_or_default();
        for name in names(c, "functionResponse") {
            if !before.contains(&name) {
                faults.push(format!("functionResponse {name} answers no call before it"));
            }
        }
        let after = contents
            .get(i + 1)
            .map(|n| names(n, "functionResponse"))
            .unwrap_or_default();
        for name in names(c, "functionCall") {
            if i + 1 < contents.len() && !after.contains(&name) {
                faults.push(format!("functionCall {name} has no response next"));
            }
        }
    }
    faults
}

/// Asserts no provider's request pairs a call or a result wrongly.
pub fn assert_no_orphans(events: &[Event]) -> Bodies {
    let b = bodies(events);
    assert_eq!(
        openai_orphans(&b.openai),
        Vec::<String>::new(),
        "OpenAI: {}",
        b.openai
    );
    assert_eq!(
        anthropic_orphans(&b.anthropic),
        Vec::<String>::new(),
        "Anthropic: {}",
        b.anthropic
    );
    assert_eq!(
        gemini_orphans(&b.gemini),
        Vec::<String>::new(),
        "Gemini: {}",
        b.gemini
    );
    b
}
