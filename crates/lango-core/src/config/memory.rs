//! The `observationalMemory` section (REFERENCE §4.1) with its defaults and rules.
//!
//! Owns the OM fields, the "0 → default, negative → error" rule and the budget-vs-threshold
//! warning. It must not resolve the observer provider against `providers` (`settings` does).

use serde_json::Value;

use super::fields::{to_u32, Fields, Report};
use super::providers::normalize_provider_id;

const SECTION: &str = "observationalMemory";

const KNOWN: &[&str] = &[
    "enabled",
    "provider",
    "model",
    "messageTokenThreshold",
    "observationTokenThreshold",
    "maxMessageTokenBudget",
    "maxReflectionsInContext",
    "maxObservationsInContext",
    "memoryTokenBudget",
    "reflectionConsolidationThreshold",
    "embeddingModel",
];

pub const DEFAULT_MESSAGE_TOKEN_THRESHOLD: u32 = 1000;
pub const DEFAULT_OBSERVATION_TOKEN_THRESHOLD: u32 = 2000;
pub const DEFAULT_MAX_MESSAGE_TOKEN_BUDGET: u32 = 8000;
pub const DEFAULT_MAX_REFLECTIONS_IN_CONTEXT: u32 = 5;
pub const DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT: u32 = 20;
pub const DEFAULT_MEMORY_TOKEN_BUDGET: u32 = 4000;
pub const DEFAULT_REFLECTION_CONSOLIDATION_THRESHOLD: u32 = 5;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationalMemorySettings {
    pub enabled: bool,
    /// Normalised provider id; `""` = the agent's (see `Settings::effective_observer`).
    pub provider: String,
    /// `""` = the agent's model (or the observer provider's default).
    pub model: String,
    pub message_token_threshold: u32,
    pub observation_token_threshold: u32,
    pub max_message_token_budget: u32,
    /// 0 = unlimited.
    pub max_reflections_in_context: u32,
    /// 0 = unlimited.
    pub max_observations_in_context: u32,
    pub memory_token_budget: u32,
    pub reflection_consolidation_threshold: u32,
    /// The embedding model of the memory's provider (`provider`, else the agent's) for
    /// hybrid knowledge retrieval; `""` = no embeddings, retrieval is BM25 (full-text) only.
    pub embedding_model: String,
}

impl Default for ObservationalMemorySettings {
    fn default() -> Self {
        Self {
            enabled: false,
            provider: String::new(),
            model: String::new(),
            message_token_threshold: DEFAULT_MESSAGE_TOKEN_THRESHOLD,
            observation_token_threshold: DEFAULT_OBSERVATION_TOKEN_THRESHOLD,
            max_message_token_budget: DEFAULT_MAX_MESSAGE_TOKEN_BUDGET,
            max_reflections_in_context: DEFAULT_MAX_REFLECTIONS_IN_CONTEXT,
            max_observations_in_context: DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT,
            memory_token_budget: DEFAULT_MEMORY_TOKEN_BUDGET,
            reflection_consolidation_threshold: DEFAULT_REFLECTION_CONSOLIDATION_THRESHOLD,
            embedding_model: String::new(),
        }
    }
}

impl ObservationalMemorySettings {
    /// `maxReflectionsInContext` as a limit; `None` = unlimited.
    pub fn reflections_limit(&self) -> Option<usize> {
        limit(self.max_reflections_in_context)
    }

    /// `maxObservationsInContext` as a limit; `None` = unlimited.
    pub fn observations_limit(&self) -> Option<usize> {
        limit(self.max_observations_in_context)
    }
}

fn limit(n: u32) -> Option<usize> {
    (n > 0).then_some(n as usize)
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> ObservationalMemorySettings {
    let mut om = ObservationalMemorySettings::default();
    let Some(f) = Fields::open(value, SECTION, KNOWN, report) else {
        return om;
    };
    if let Some(b) = f.boolean("enabled", report) {
        om.enabled = b;
    }
    if let Some(p) = f.string("provider", report) {
        om.provider = normalize_provider_id(&p);
    }
    if let Some(m) = f.string("model", report) {
        om.model = m.trim().to_owned();
    }
    if let Some(m) = f.string("embeddingModel", report) {
        let m = m.trim();
        let path = f.path("embeddingModel");
        if m.chars().any(|c| c.is_whitespace() || c.is_control()) {
            report.problem(
                &path,
                format!(
                    "{path} must be a model name without spaces (e.g. \"text-embedding-3-small\"), \
                     or \"\" to turn embeddings off; got {m:?}"
                ),
            );
        } else {
            om.embedding_model = m.to_owned();
        }
    }
    // Thresholds and budgets: 0 → default (acceptance 61), negative → error.
    let defaulted = [
        ("messageTokenThreshold", &mut om.message_token_threshold),
        (
            "observationTokenThreshold",
            &mut om.observation_token_threshold,
        ),
        ("maxMessageTokenBudget", &mut om.max_message_token_budget),
        ("memoryTokenBudget", &mut om.memory_token_budget),
        (
            "reflectionConsolidationThreshold",
            &mut om.reflection_consolidation_threshold,
        ),
    ];
    for (key, slot) in defaulted {
        if let Some(n) = read_count(&f, key, "> 0", report) {
            if n > 0 {
                *slot = n;
            }
        }
    }
    // Context limits: 0 is meaningful (unlimited), so it is kept.
    let limits = [
        (
            "maxReflectionsInContext",
            &mut om.max_reflections_in_context,
        ),
        (
            "maxObservationsInContext",
            &mut om.max_observations_in_context,
        ),
    ];
    for (key, slot) in limits {
        if let Some(n) = read_count(&f, key, ">= 0 (0 = unlimited)", report) {
            *slot = n;
        }
    }
    if om.max_message_token_budget <= om.message_token_threshold {
        report.warn(format!(
            "{SECTION}.maxMessageTokenBudget ({}) is not greater than {SECTION}.messageTokenThreshold ({}): \
             observation would start only after the history is already truncated",
            om.max_message_token_budget, om.message_token_threshold
        ));
    }
    om
}

/// A non-negative integer; a negative one is reported as "must be {rule}, got -5".
fn read_count(f: &Fields<'_>, key: &str, rule: &str, report: &mut Report) -> Option<u32> {
    let value = f.integer(key, report)?;
    let path = f.path(key);
    if value < 0 {
        report.problem(&path, format!("{path} must be {rule}, got {value}"));
        return None;
    }
    to_u32(&path, value, report)
}
