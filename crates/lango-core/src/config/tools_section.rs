//! The `tools` section: limits that keep tool use from hurting a conversation.
//!
//! Owns `maxOutputTokens` (what one tool result may cost in the prompt) and `maxCallsPerTurn`
//! (consecutive tool calls before a looping model is stopped). Per-server settings live in
//! `mcpServers` (`mcp`).

use serde_json::Value;

use super::fields::{Fields, Report};

/// Tokens one tool result may take in the prompt; the rest is cut with a visible marker.
pub const DEFAULT_TOOL_OUTPUT_TOKENS: u32 = 8_000;
/// Tool calls one user message may cause before the turn is stopped.
pub const DEFAULT_MAX_TOOL_CALLS_PER_TURN: u32 = 25;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsSettings {
    pub max_output_tokens: u32,
    pub max_calls_per_turn: u32,
}

impl Default for ToolsSettings {
    fn default() -> Self {
        Self {
            max_output_tokens: DEFAULT_TOOL_OUTPUT_TOKENS,
            max_calls_per_turn: DEFAULT_MAX_TOOL_CALLS_PER_TURN,
        }
    }
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> ToolsSettings {
    let mut tools = ToolsSettings::default();
    let Some(f) = Fields::open(
        value,
        "tools",
        &["maxOutputTokens", "maxCallsPerTurn"],
        report,
    ) else {
        return tools;
    };
    for (key, slot) in [
        ("maxOutputTokens", &mut tools.max_output_tokens),
        ("maxCallsPerTurn", &mut tools.max_calls_per_turn),
    ] {
        if let Some(n) = f.integer(key, report) {
            match u32::try_from(n) {
                Ok(n) if n > 0 => *slot = n,
                _ => {
                    let path = f.path(key);
                    report.problem(&path, format!("{path} must be a whole number > 0, got {n}"));
                }
            }
        }
    }
    tools
}
