//! Building a provider from the settings and the key store. In its own test binary because it
//! sets environment variables (API key overrides) for the whole process.

use futures_util::StreamExt;
use lango_core::config::validate_value;
use lango_core::provider::http::HttpSettings;
use lango_core::provider::registry::from_settings;
use lango_core::provider::{GenerateParams, Message, ProviderError, StreamEvent};
use lango_core::secrets::{KeychainStatus, SecretStore};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn no_keychain(dir: &std::path::Path) -> SecretStore {
    SecretStore::new(
        KeychainStatus::Unavailable {
            reason: "test".into(),
        },
        false,
        dir,
    )
}

#[tokio::test]
async fn a_provider_without_a_key_is_a_missing_key_error_naming_both_ways_to_add_one() {
    let dir = tempfile::tempdir().unwrap();
    let (settings, _) =
        validate_value(&json!({"providers": {"Claude-Work": {"type": "anthropic"}}})).unwrap();
    let err = from_settings(
        &settings,
        "claude-work",
        &no_keychain(dir.path()),
        HttpSettings::default(),
    )
    .unwrap_err();
    let ProviderError::MissingKey { provider, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(provider, "claude-work");
    assert!(err.is_config());
    let message = err.to_string();
    assert!(
        message.contains("lango config set-key claude-work"),
        "{message}"
    );
    assert!(message.contains("LANGO_CLAUDE_WORK_API_KEY"), "{message}");
}

#[tokio::test]
async fn an_unknown_provider_id_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let (settings, _) = validate_value(&json!({})).unwrap();
    let err = from_settings(
        &settings,
        "nope",
        &no_keychain(dir.path()),
        HttpSettings::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ProviderError::Config { .. }), "{err:?}");
}

#[tokio::test]
async fn the_env_key_reaches_the_server_and_the_configured_model_is_used() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Hi", " there"])])).await;
    let dir = tempfile::tempdir().unwrap();
    let base = format!("{}/v1", fake.server().base_url());
    let (settings, _) = validate_value(&json!({
        "providers": {"lab": {"type": "openai-compatible", "baseUrl": base, "defaultModel": "lab-model"}}
    }))
    .unwrap();
    std::env::set_var("LANGO_LAB_API_KEY", "sk-from-env-123");
    let provider = from_settings(
        &settings,
        "lab",
        &no_keychain(dir.path()),
        HttpSettings::default(),
    )
    .unwrap();
    let params = GenerateParams {
        messages: vec![Message::user("hello")],
        ..Default::default()
    };
    let events: Vec<StreamEvent> = provider
        .generate(params, CancellationToken::new())
        .collect()
        .await;
    let text: String = events
        .iter()
        .filter_map(|e| {
            if let StreamEvent::TextDelta(t) = e {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(text, "Hi there");
    let request = &fake.generate_requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-from-env-123")
    );
    assert_eq!(request.json()["model"], "lab-model");
    assert!(
        !format!("{provider:?}").contains("sk-from-env-123"),
        "Debug must not show the key"
    );
}
