//! The `agent` section: which provider/model the chat uses and its request limits.
//!
//! Owns the agent fields, their defaults and their range rules (REFERENCE §4.2). It must not
//! check that `agent.provider` exists (`settings` does, it sees every section).

use serde_json::Value;

use super::fields::{describe, to_u32, Fields, Report};
use super::providers::normalize_provider_id;

const KNOWN: &[&str] = &[
    "provider",
    "model",
    "systemPrompt",
    "temperature",
    "maxTokens",
    "toolTimeout",
    "requestTimeout",
    "maxTurns",
    "connectTimeout",
    "idleTimeout",
    "maxReplyBytes",
    "subAgents",
];

pub const DEFAULT_SYSTEM_PROMPT: &str =
    "You are Lango, a helpful assistant. Answer clearly and concisely, and say so when you are not sure.";
pub const DEFAULT_TEMPERATURE: f64 = 0.7;
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
pub const DEFAULT_TOOL_TIMEOUT_SECS: u64 = 120;
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 300;
pub const DEFAULT_MAX_TURNS: u32 = 50;
pub const DEFAULT_CONNECT_TIMEOUT_SECS: u64 = 10;
/// Long enough for a local model to process a big prompt before its first token.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 120;
/// `agent.maxReplyBytes`: far beyond any real reply, small enough that a runaway stream
/// cannot exhaust memory.
pub const DEFAULT_MAX_REPLY_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSettings {
    /// Normalised provider id; `""` = the only configured provider, if there is exactly one.
    pub provider: String,
    /// `""` = the provider's `defaultModel` (or the vendor default).
    pub model: String,
    pub system_prompt: String,
    /// 0..=2.
    pub temperature: f64,
    /// > 0.
    pub max_tokens: u32,
    /// Seconds a tool call may run; 0 = no limit.
    pub tool_timeout: u64,
    /// Seconds a model request may take; 0 = no limit.
    pub request_timeout: u64,
    /// Model calls per user message; a 0 in the file means the default.
    pub max_turns: u32,
    /// Seconds to establish a connection to a provider (> 0).
    pub connect_timeout: u64,
    /// Seconds to wait for a response to start, and between two reads of a stream (> 0).
    pub idle_timeout: u64,
    /// The most one reply may grow to, in bytes (> 0): a longer one is stopped and kept as
    /// cut off.
    pub max_reply_bytes: u64,
    /// Specialists the agent may hand a conversation to (`transfer_to_agent`). They use the
    /// agent's provider, model and tools with their own instruction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sub_agents: Vec<SubAgentSettings>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubAgentSettings {
    pub name: String,
    pub instruction: String,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            provider: String::new(),
            model: String::new(),
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_owned(),
            temperature: DEFAULT_TEMPERATURE,
            max_tokens: DEFAULT_MAX_TOKENS,
            tool_timeout: DEFAULT_TOOL_TIMEOUT_SECS,
            request_timeout: DEFAULT_REQUEST_TIMEOUT_SECS,
            max_turns: DEFAULT_MAX_TURNS,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT_SECS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT_SECS,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            sub_agents: Vec::new(),
        }
    }
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> AgentSettings {
    let mut agent = AgentSettings::default();
    let Some(f) = Fields::open(value, "agent", KNOWN, report) else {
        return agent;
    };
    if let Some(p) = f.string("provider", report) {
        agent.provider = normalize_provider_id(&p);
    }
    if let Some(m) = f.string("model", report) {
        agent.model = m.trim().to_owned();
    }
    if let Some(s) = f.string("systemPrompt", report) {
        agent.system_prompt = s;
    }
    if let Some(t) = f.number("temperature", report) {
        if (0.0..=2.0).contains(&t) {
            agent.temperature = t;
        } else {
            let path = f.path("temperature");
            let got = f.raw("temperature").map(describe).unwrap_or_default();
            report.problem(&path, format!("{path} must be between 0 and 2, got {got}"));
        }
    }
    if let Some(n) = positive(&f, "maxTokens", report) {
        agent.max_tokens = n;
    }
    if let Some(s) = non_negative(&f, "toolTimeout", report) {
        agent.tool_timeout = u64::from(s);
    }
    if let Some(s) = non_negative(&f, "requestTimeout", report) {
        agent.request_timeout = u64::from(s);
    }
    if let Some(n) = non_negative(&f, "maxTurns", report) {
        agent.max_turns = if n == 0 { DEFAULT_MAX_TURNS } else { n };
    }
    if let Some(s) = positive(&f, "connectTimeout", report) {
        agent.connect_timeout = u64::from(s);
    }
    if let Some(s) = positive(&f, "idleTimeout", report) {
        agent.idle_timeout = u64::from(s);
    }
    if let Some(n) = positive(&f, "maxReplyBytes", report) {
        agent.max_reply_bytes = u64::from(n);
    }
    if let Some(raw) = f.raw("subAgents") {
        agent.sub_agents = sub_agents(&f.path("subAgents"), raw, report);
    }
    agent
}

fn positive(f: &Fields<'_>, key: &str, report: &mut Report) -> Option<u32> {
    let value = f.integer(key, report)?;
    let path = f.path(key);
    if value <= 0 {
        report.problem(&path, format!("{path} must be > 0, got {value}"));
        return None;
    }
    to_u32(&path, value, report)
}

fn non_negative(f: &Fields<'_>, key: &str, report: &mut Report) -> Option<u32> {
    let value = f.integer(key, report)?;
    let path = f.path(key);
    if value < 0 {
        report.problem(&path, format!("{path} must be >= 0, got {value}"));
        return None;
    }
    to_u32(&path, value, report)
}

/// `subAgents`: an array of `{name, instruction}`; names non-empty, without spaces, unique.
fn sub_agents(path: &str, raw: &Value, report: &mut Report) -> Vec<SubAgentSettings> {
    let Some(items) = raw.as_array() else {
        report.problem(
            path,
            format!("{path} must be an array, got {}", describe(raw)),
        );
        return Vec::new();
    };
    let mut out: Vec<SubAgentSettings> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let Some(obj) = item.as_object() else {
            report.problem(
                &at,
                format!(
                    "{at} must be an object with name and instruction, got {}",
                    describe(item)
                ),
            );
            continue;
        };
        for key in obj
            .keys()
            .filter(|k| !matches!(k.as_str(), "name" | "instruction"))
        {
            report.problem(
                format!("{at}.{key}"),
                format!("{at}.{key} is not a known setting"),
            );
        }
        let name = obj
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        if name.is_empty() || name.contains(char::is_whitespace) {
            report.problem(
                format!("{at}.name"),
                format!("{at}.name must be a non-empty name without spaces"),
            );
            continue;
        }
        if out.iter().any(|a| a.name == name) {
            report.problem(
                format!("{at}.name"),
                format!("{at}.name {name:?} is used twice"),
            );
            continue;
        }
        let instruction = obj
            .get("instruction")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        out.push(SubAgentSettings { name, instruction });
    }
    out
}
