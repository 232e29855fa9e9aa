//! Defaults: a missing file, zero values and the `show` output (REFERENCE §4.1, acceptance 61).

use lango_core::config::{self, Settings, Theme};
use lango_core::paths::AppPaths;
use serde_json::json;

fn valid(value: serde_json::Value) -> Settings {
    match config::validate_value(&value) {
        Ok((settings, _)) => settings,
        Err(problems) => panic!("expected valid settings, got {problems:?}"),
    }
}

#[test]
fn missing_file_gives_every_default_without_error() {
    let dir = tempfile::tempdir().unwrap();
    let paths = AppPaths::under(dir.path());
    let loaded = config::load(&paths).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(
        !paths.settings_file().exists(),
        "loading must not create the file"
    );

    let om = &loaded.settings.observational_memory;
    // Acceptance 61: false, "", "", 1000, 2000, 8000, 5, 20, 4000, 5
    assert!(!om.enabled);
    assert_eq!(om.provider, "");
    assert_eq!(om.model, "");
    assert_eq!(om.message_token_threshold, 1000);
    assert_eq!(om.observation_token_threshold, 2000);
    assert_eq!(om.max_message_token_budget, 8000);
    assert_eq!(om.max_reflections_in_context, 5);
    assert_eq!(om.max_observations_in_context, 20);
    assert_eq!(om.memory_token_budget, 4000);
    assert_eq!(om.reflection_consolidation_threshold, 5);

    let agent = &loaded.settings.agent;
    assert_eq!(agent.provider, "");
    assert_eq!(agent.model, "");
    assert!(!agent.system_prompt.is_empty());
    assert_eq!(agent.temperature, 0.7);
    assert_eq!(agent.max_tokens, 4096);
    assert_eq!(agent.tool_timeout, 120);
    assert_eq!(agent.request_timeout, 300);
    assert_eq!(agent.max_turns, 50);

    assert!(loaded.settings.providers.is_empty());
    assert!(!loaded.settings.secrets.allow_file_store);
    assert_eq!(loaded.settings.appearance.theme, Theme::System);
    assert_eq!(loaded.settings, Settings::default());
}

#[test]
fn empty_object_gives_the_same_defaults_as_a_missing_file() {
    assert_eq!(valid(json!({})), Settings::default());
}

#[test]
fn zero_thresholds_and_budgets_fall_back_to_defaults() {
    let s = valid(json!({ "observationalMemory": {
        "messageTokenThreshold": 0,
        "observationTokenThreshold": 0,
        "maxMessageTokenBudget": 0,
        "memoryTokenBudget": 0,
        "reflectionConsolidationThreshold": 0
    }}));
    let om = &s.observational_memory;
    assert_eq!(om.message_token_threshold, 1000);
    assert_eq!(om.observation_token_threshold, 2000);
    assert_eq!(om.max_message_token_budget, 8000);
    assert_eq!(om.memory_token_budget, 4000);
    assert_eq!(om.reflection_consolidation_threshold, 5);
}

#[test]
fn zero_in_context_limits_mean_unlimited() {
    let s = valid(json!({ "observationalMemory": {
        "maxReflectionsInContext": 0, "maxObservationsInContext": 0
    }}));
    let om = &s.observational_memory;
    assert_eq!(om.max_reflections_in_context, 0);
    assert_eq!(om.reflections_limit(), None);
    assert_eq!(om.observations_limit(), None);
    assert_eq!(
        Settings::default()
            .observational_memory
            .observations_limit(),
        Some(20)
    );
}

#[test]
fn zero_max_turns_means_fifty_and_zero_tool_timeout_is_kept() {
    let s = valid(json!({ "agent": { "maxTurns": 0, "toolTimeout": 0 } }));
    assert_eq!(s.agent.max_turns, 50);
    assert_eq!(s.agent.tool_timeout, 0);
}

#[test]
fn show_output_has_every_setting_with_defaults_filled_in() {
    let shown: serde_json::Value =
        serde_json::from_str(&Settings::default().to_json_pretty()).unwrap();
    assert_eq!(shown["agent"]["maxTokens"], 4096);
    assert_eq!(shown["agent"]["requestTimeout"], 300);
    assert_eq!(shown["observationalMemory"]["maxMessageTokenBudget"], 8000);
    assert_eq!(
        shown["observationalMemory"]["reflectionConsolidationThreshold"],
        5
    );
    assert_eq!(shown["secrets"]["allowFileStore"], false);
    assert_eq!(shown["appearance"]["theme"], "system");
    assert_eq!(shown["providers"], json!({}));
}

#[test]
fn network_timeouts_default_and_must_be_positive() {
    let s = valid(json!({}));
    assert_eq!((s.agent.connect_timeout, s.agent.idle_timeout), (10, 120));
    let s = valid(json!({ "agent": { "connectTimeout": 3, "idleTimeout": 30 } }));
    assert_eq!((s.agent.connect_timeout, s.agent.idle_timeout), (3, 30));
    let http = lango_core::provider::http::HttpSettings::from_agent(&s.agent);
    assert_eq!(http.idle_timeout, std::time::Duration::from_secs(30));
    let problems =
        lango_core::config::validate_value(&json!({ "agent": { "idleTimeout": 0 } })).unwrap_err();
    assert!(
        problems
            .iter()
            .any(|p| p.message == "agent.idleTimeout must be > 0, got 0"),
        "{problems:?}"
    );
}

// ---- spec 002 "OM Configuration" --------------------------------------------------------

#[test]
fn configuration_structure() {
    // Every field the spec lists is read from the file under its camelCase name.
    let settings = valid(json!({
        "providers": {"obs": {"type": "openai"}},
        "observationalMemory": {
            "enabled": true,
            "provider": "obs",
            "model": "gpt-4o-mini",
            "messageTokenThreshold": 1500,
            "observationTokenThreshold": 2500,
            "maxMessageTokenBudget": 9000
        }
    }));
    let om = &settings.observational_memory;
    assert!(om.enabled);
    assert_eq!(om.provider, "obs");
    assert_eq!(om.model, "gpt-4o-mini");
    assert_eq!(om.message_token_threshold, 1500);
    assert_eq!(om.observation_token_threshold, 2500);
    assert_eq!(om.max_message_token_budget, 9000);
}

#[test]
fn default_disabled() {
    // No OM section at all: memory is off. The "zero impact" half (the request the provider
    // receives is byte for byte what it was) is lango-cli's
    // `with_memory_off_the_request_is_exactly_what_it_was`.
    let settings = valid(json!({"agent": {"temperature": 0.2}}));
    assert!(!settings.observational_memory.enabled);
    assert_eq!(
        settings.observational_memory,
        Settings::default().observational_memory
    );
}

#[test]
fn threshold_defaults() {
    let settings = valid(json!({"observationalMemory": {"enabled": true}}));
    let om = &settings.observational_memory;
    assert!(om.enabled);
    assert_eq!(om.message_token_threshold, 1000);
    assert_eq!(om.observation_token_threshold, 2000);
    assert_eq!(om.max_message_token_budget, 8000);
}
