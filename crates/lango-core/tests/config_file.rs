//! The settings file on disk: atomic save with `.bak`, round trip, malformed files untouched.

use lango_core::config::{self, ConfigError, ProviderSettings, ProviderType, Settings, Theme};
use lango_core::paths::AppPaths;

fn custom_settings() -> Settings {
    let mut s = Settings::default();
    s.agent.provider = "work".into();
    s.agent.model = "claude-sonnet-4".into();
    s.agent.temperature = 0.2;
    s.agent.tool_timeout = 0;
    let mut p = ProviderSettings::new(ProviderType::Anthropic);
    p.base_url = Some("https://proxy.example.com/anthropic".into());
    p.default_model = Some("claude-haiku".into());
    s.providers.insert("work".into(), p);
    s.providers
        .insert("local".into(), ProviderSettings::new(ProviderType::Ollama));
    s.observational_memory.enabled = true;
    s.observational_memory.provider = "local".into();
    s.observational_memory.max_reflections_in_context = 0;
    s.secrets.allow_file_store = true;
    s.appearance.theme = Theme::Dark;
    s
}

#[test]
fn atomic_save_keeps_a_backup_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let paths = AppPaths::under(&dir.path().join("not-yet-created"));
    let file = paths.settings_file();

    config::save(&paths, &Settings::default()).unwrap();
    let first = std::fs::read(&file).unwrap();
    assert!(
        !file.with_file_name("settings.json.bak").exists(),
        "no previous file, no backup"
    );

    let custom = custom_settings();
    config::save(&paths, &custom).unwrap();
    assert_eq!(
        std::fs::read(file.with_file_name("settings.json.bak")).unwrap(),
        first,
        "the previous file is kept as .bak"
    );
    assert!(
        !file.with_file_name("settings.json.tmp").exists(),
        "tmp file renamed away"
    );

    let loaded = config::load(&paths).unwrap();
    assert_eq!(loaded.settings, custom);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);

    // camelCase on disk.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"observationalMemory\""), "{text}");
    assert!(text.contains("\"allowFileStore\": true"), "{text}");
    assert!(text.contains("\"baseUrl\""), "{text}");
}

#[test]
fn settings_serialise_to_camel_case_and_validate_back_to_the_same_value() {
    let custom = custom_settings();
    let (back, _) = config::validate_value(&custom.to_value()).unwrap();
    assert_eq!(back, custom);
}

#[test]
fn save_refuses_settings_that_would_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let mut s = Settings::default();
    s.agent.temperature = 7.0;
    let err = config::save_to(&path, &s).unwrap_err();
    assert!(matches!(err, ConfigError::Invalid { .. }), "{err:?}");
    assert!(!path.exists());

    s.agent.temperature = f64::NAN;
    let err = config::save_to(&path, &s).unwrap_err();
    assert!(err.to_string().contains("agent.temperature"), "{err}");
    assert!(!path.exists());
}

#[test]
fn malformed_file_is_left_untouched_after_a_failed_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    for bytes in [
        &b"{ \"agent\": { \"temperature\": 0.5, } oops"[..],
        &b"{ \"agent\": { \"temperature\": \"hot\" }, \"providers\": { \"x\": { \"apiKey\": \"k\" } } }"[..],
    ] {
        std::fs::write(&path, bytes).unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(config::load_from(&path).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "file bytes changed");
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), modified);
        assert!(!dir.path().join("settings.json.bak").exists());
        assert!(!dir.path().join("settings.json.tmp").exists());
    }
}

#[test]
fn empty_file_loads_defaults_with_a_warning_and_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, "  \n").unwrap();
    let loaded = config::load_from(&path).unwrap();
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(std::fs::read(&path).unwrap(), b"  \n");
}
