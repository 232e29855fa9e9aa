//! The `providers` section: ids, types, aliases, base URLs, the no-keys rule, and the
//! provider/model resolution for the agent and the observer (REFERENCE §4.3, acceptance 62, 72).

use lango_core::config::{self, default_base_url, ProviderType, Settings};
use serde_json::json;

fn valid(value: serde_json::Value) -> Settings {
    match config::validate_value(&value) {
        Ok((settings, _)) => settings,
        Err(problems) => panic!("expected valid settings, got {problems:?}"),
    }
}

fn messages(value: serde_json::Value) -> Vec<String> {
    match config::validate_value(&value) {
        Ok((s, _)) => panic!("expected problems, got valid settings {s:?}"),
        Err(problems) => problems.into_iter().map(|p| p.message).collect(),
    }
}

#[test]
fn api_key_in_a_provider_is_rejected_pointing_to_the_keychain() {
    let m =
        messages(json!({ "providers": { "OpenAI": { "type": "openai", "apiKey": "sk-secret" } } }));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("providers.OpenAI.apiKey is not allowed"),
        "{m:?}"
    );
    assert!(m[0].contains("OS keychain"), "{m:?}");
    assert!(m[0].contains("lango config set-key openai"), "{m:?}");
    assert!(m[0].contains("LANGO_OPENAI_API_KEY"), "{m:?}");
    assert!(
        !m[0].contains("sk-secret"),
        "the key must not be echoed: {m:?}"
    );
}

#[test]
fn api_key_spelling_variants_are_rejected_too() {
    let m = messages(json!({ "providers": { "a": { "type": "openai", "api_key": "x" } } }));
    assert!(m[0].contains("OS keychain"), "{m:?}");
}

#[test]
fn unknown_provider_type_lists_the_valid_types() {
    let m = messages(json!({ "providers": { "x": { "type": "mistral" } } }));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with(r#"providers.x.type "mistral" is not a known provider type"#),
        "{m:?}"
    );
    assert!(
        m[0].contains("openai, openai-compatible, ollama, anthropic, gemini"),
        "{m:?}"
    );
}

#[test]
fn missing_provider_type_is_an_error() {
    let m = messages(json!({ "providers": { "x": { "defaultModel": "m" } } }));
    assert!(m[0].starts_with("providers.x.type is required"), "{m:?}");
}

#[test]
fn type_aliases_are_normalised_and_an_uppercase_id_is_reachable() {
    let s = valid(json!({
        "agent": { "provider": "MyGPT" },
        "providers": {
            " MyGPT ": { "type": "GPT" },
            "b": { "type": "chatgpt" },
            "c": { "type": "Claude" },
            "d": { "type": "llama" },
            "e": { "type": "bard" },
            "f": { "type": "google" },
            "g": { "type": "github" }
        }
    }));
    let kind = |id: &str| s.provider(id).map(|p| p.kind);
    assert_eq!(kind("mygpt"), Some(ProviderType::OpenAi));
    assert_eq!(
        kind("MYGPT"),
        Some(ProviderType::OpenAi),
        "lookup ignores case"
    );
    assert_eq!(kind("b"), Some(ProviderType::OpenAi));
    assert_eq!(kind("c"), Some(ProviderType::Anthropic));
    assert_eq!(kind("d"), Some(ProviderType::Ollama));
    assert_eq!(kind("e"), Some(ProviderType::Gemini));
    assert_eq!(kind("f"), Some(ProviderType::Gemini));
    assert_eq!(kind("g"), Some(ProviderType::OpenAiCompatible));
    assert_eq!(
        s.provider("g").and_then(|p| p.base_url.as_deref()),
        Some(config::GITHUB_MODELS_BASE_URL),
        "the github alias implies GitHub Models' URL"
    );
    assert_eq!(s.agent.provider, "mygpt");
    assert!(s.providers.contains_key("mygpt"));
    // Saved back in canonical form.
    assert_eq!(s.to_value()["providers"]["c"]["type"], "anthropic");
}

#[test]
fn ids_equal_after_normalisation_are_a_conflict() {
    let m = messages(
        json!({ "providers": { "OpenAI": { "type": "openai" }, "openai": { "type": "openai" } } }),
    );
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("same provider id \"openai\""), "{m:?}");
}

#[test]
fn openai_compatible_without_base_url_is_rejected() {
    let m = messages(json!({ "providers": { "local": { "type": "openai-compatible" } } }));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("providers.local.baseUrl is required"),
        "{m:?}"
    );

    let s = valid(
        json!({ "providers": { "local": { "type": "openai-compatible", "baseUrl": "http://127.0.0.1:8000/v1/" } } }),
    );
    assert_eq!(
        s.providers["local"].base_url.as_deref(),
        Some("http://127.0.0.1:8000/v1")
    );
}

#[test]
fn base_url_must_be_an_http_url_with_a_host() {
    for bad in [
        "ftp://example.com",
        "example.com/v1",
        "https://",
        "http:///v1",
    ] {
        let m = messages(json!({ "providers": { "o": { "type": "openai", "baseUrl": bad } } }));
        assert_eq!(m.len(), 1, "{bad}: {m:?}");
        assert!(m[0].starts_with("providers.o.baseUrl"), "{bad}: {m:?}");
        assert!(m[0].contains("http:// or https://"), "{bad}: {m:?}");
    }
}

#[test]
fn default_base_urls_follow_the_reference() {
    assert_eq!(
        default_base_url(ProviderType::OpenAi),
        Some("https://api.openai.com/v1")
    );
    assert_eq!(
        default_base_url(ProviderType::Ollama),
        Some("http://localhost:11434/v1")
    );
    assert_eq!(config::OLLAMA_NATIVE_BASE_URL, "http://localhost:11434");
    assert_eq!(
        default_base_url(ProviderType::Anthropic),
        Some("https://api.anthropic.com")
    );
    assert_eq!(
        default_base_url(ProviderType::Gemini),
        Some("https://generativelanguage.googleapis.com/v1beta")
    );
    assert_eq!(default_base_url(ProviderType::OpenAiCompatible), None);
    let s = valid(
        json!({ "providers": { "c": { "type": "anthropic", "baseUrl": "https://proxy.example/anthropic" } } }),
    );
    assert_eq!(
        s.providers["c"].effective_base_url(),
        Some("https://proxy.example/anthropic")
    );
}

#[test]
fn empty_agent_provider_with_exactly_one_provider_uses_it() {
    let s = valid(
        json!({ "providers": { "Ollama": { "type": "ollama", "defaultModel": "llama3.2" } } }),
    );
    assert_eq!(s.agent_provider_id(), Some("ollama"));
    assert_eq!(s.effective_agent(), ("ollama", "llama3.2"));

    let (two, warnings) = config::validate_value(&json!({
        "providers": { "a": { "type": "ollama" }, "b": { "type": "openai" } }
    }))
    .unwrap();
    assert_eq!(two.agent_provider_id(), None);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("agent.provider is empty")),
        "{warnings:?}"
    );
}

#[test]
fn agent_provider_naming_a_missing_provider_is_an_error() {
    let m = messages(
        json!({ "agent": { "provider": "nope" }, "providers": { "a": { "type": "ollama" } } }),
    );
    assert_eq!(
        m,
        vec![
            r#"agent.provider "nope" is not a configured provider (configured providers: a)"#
                .to_owned()
        ]
    );
}

#[test]
fn effective_observer_falls_back_to_the_agents_provider_and_model() {
    let s = valid(json!({
        "agent": { "provider": "main", "model": "gpt-4o" },
        "providers": { "main": { "type": "openai" }, "cheap": { "type": "gemini", "defaultModel": "gemini-2.0-flash" } },
        "observationalMemory": { "enabled": true }
    }));
    assert_eq!(s.effective_observer(), ("main", "gpt-4o"));

    // Its own provider without a model: that provider's default, never the agent's model.
    let own = valid(json!({
        "agent": { "provider": "main", "model": "gpt-4o" },
        "providers": { "main": { "type": "openai" }, "cheap": { "type": "gemini", "defaultModel": "gemini-2.0-flash" } },
        "observationalMemory": { "enabled": true, "provider": "CHEAP" }
    }));
    assert_eq!(own.effective_observer(), ("cheap", "gemini-2.0-flash"));

    let explicit = valid(json!({
        "agent": { "provider": "main" },
        "providers": { "main": { "type": "openai" } },
        "observationalMemory": { "model": "gpt-4o-mini" }
    }));
    assert_eq!(explicit.effective_observer(), ("main", "gpt-4o-mini"));
}

#[test]
fn enabled_memory_with_an_unknown_provider_is_an_error_and_disabled_only_warns() {
    let m = messages(json!({
        "providers": { "a": { "type": "ollama" } },
        "observationalMemory": { "enabled": true, "provider": "ghost" }
    }));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with(r#"observationalMemory.provider "ghost" is not a configured provider"#),
        "{m:?}"
    );

    let (_, warnings) = config::validate_value(&json!({
        "providers": { "a": { "type": "ollama" } },
        "observationalMemory": { "enabled": false, "provider": "ghost" }
    }))
    .unwrap();
    assert!(warnings.iter().any(|w| w.contains("ghost")), "{warnings:?}");
}
