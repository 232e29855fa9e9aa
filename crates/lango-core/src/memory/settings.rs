//! The memory limits in effect, resolved from `observationalMemory` in the settings.

use crate::config::ObservationalMemorySettings;

/// REFERENCE §4.1 values, defaults already applied by the config loader. `usize` for counts
/// and token budgets; a context limit of 0 means unlimited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryConfig {
    pub message_token_threshold: usize,
    pub observation_token_threshold: usize,
    pub max_message_token_budget: usize,
    pub max_reflections_in_context: usize,
    pub max_observations_in_context: usize,
    pub memory_token_budget: usize,
    pub reflection_consolidation_threshold: usize,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self::from(&ObservationalMemorySettings::default())
    }
}

impl From<&ObservationalMemorySettings> for MemoryConfig {
    fn from(s: &ObservationalMemorySettings) -> Self {
        let n = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);
        Self {
            message_token_threshold: n(s.message_token_threshold),
            observation_token_threshold: n(s.observation_token_threshold),
            max_message_token_budget: n(s.max_message_token_budget),
            max_reflections_in_context: n(s.max_reflections_in_context),
            max_observations_in_context: n(s.max_observations_in_context),
            memory_token_budget: n(s.memory_token_budget),
            reflection_consolidation_threshold: n(s.reflection_consolidation_threshold),
        }
    }
}
