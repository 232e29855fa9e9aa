//! What the memory tests share: settings whose thresholds are small enough for a few turns to
//! make notes, and the system text a request carried.

use std::path::Path;

use lango_testkit::fake::FakeProvider;
use serde_json::{json, Value};

use super::{base_url, write_provider_settings};

/// settings.json with provider `p` (OpenAI-compatible at `fake`) and the memory on, with
/// thresholds a handful of short turns cross.
pub fn write_memory_settings(home: &Path, fake: &FakeProvider) {
    write_provider_settings(
        home,
        "openai-compatible",
        &base_url(fake, "openai-compatible"),
        json!({"observationalMemory": {
            "enabled": true,
            "messageTokenThreshold": 60,
            "observationTokenThreshold": 40,
            "maxMessageTokenBudget": 300,
            "memoryTokenBudget": 120,
            "reflectionConsolidationThreshold": 2
        }}),
    );
}

/// The system messages of an OpenAI-format request body, joined.
pub fn system_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
