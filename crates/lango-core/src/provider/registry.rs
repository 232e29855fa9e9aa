//! Building a ready provider from the settings and the key store.
//!
//! Owns the mapping from a provider's `type` to its wire client and the model/provider
//! sanity check (REFERENCE §5.1). It must not read files itself: callers pass the loaded
//! settings and a `SecretStore`.

use std::sync::Arc;

use super::anthropic::Anthropic;
use super::config::ProviderConfig;
use super::error::ProviderError;
use super::gemini::Gemini;
use super::http::HttpSettings;
use super::ollama::Ollama;
use super::openai::OpenAiCompatible;
use super::types::Provider;
use crate::config::{ProviderSettings, ProviderType, Settings};
use crate::secrets::{env_var_name, ApiKey, SecretStore};

/// Builds the client for one configured provider with an explicit key.
pub fn build(
    id: &str,
    provider: &ProviderSettings,
    key: Option<ApiKey>,
    http: HttpSettings,
) -> Result<Arc<dyn Provider>, ProviderError> {
    let base = provider
        .effective_base_url()
        .ok_or_else(|| ProviderError::Config {
            message: format!("provider {id:?} has no baseUrl"),
        })?;
    let mut config = ProviderConfig::new(id, base)
        .with_default_model(provider.default_model.clone().unwrap_or_default())
        .with_http(http);
    if let Some(key) = key {
        config = config.with_key(key);
    }
    Ok(match provider.kind {
        ProviderType::OpenAi | ProviderType::OpenAiCompatible => {
            Arc::new(OpenAiCompatible::new(config)?)
        }
        ProviderType::Ollama => {
            // The settings' default base URL is Ollama's OpenAI-compatible /v1; the native
            // API lives at the server root.
            config.base_url = config.base_url.trim_end_matches("/v1").to_string();
            Arc::new(Ollama::new(config)?)
        }
        ProviderType::Anthropic => Arc::new(Anthropic::new(config)?),
        ProviderType::Gemini => Arc::new(Gemini::new(config)?),
    })
}

/// Builds provider `id` from the settings, its key from `secrets`. A provider that needs a
/// key and has none is a clear configuration error naming both ways to give one.
pub fn from_settings(
    settings: &Settings,
    id: &str,
    secrets: &SecretStore,
    http: HttpSettings,
) -> Result<Arc<dyn Provider>, ProviderError> {
    let provider = settings.provider(id).ok_or_else(|| ProviderError::Config {
        message: format!("no provider {id:?} in the settings"),
    })?;
    let key = secrets
        .get(id)
        .map_err(|e| ProviderError::KeyUnavailable {
            provider: id.to_owned(),
            message: e.to_string(),
        })?
        .map(|(key, _)| key);
    if key.is_none()
        && matches!(
            provider.kind,
            ProviderType::OpenAi | ProviderType::Anthropic | ProviderType::Gemini
        )
    {
        return Err(ProviderError::MissingKey {
            provider: id.to_owned(),
            env_var: env_var_name(id),
        });
    }
    build(id, provider, key, http)
}

/// Rejects a model that obviously belongs to another vendor (REFERENCE §5.1): a lowercased
/// prefix check. Empty models and local/compatible servers accept anything.
pub fn check_model(kind: ProviderType, model: &str) -> Result<(), ProviderError> {
    let m = model.trim().to_lowercase();
    let foreign: &[&str] = match kind {
        ProviderType::OpenAi => &["claude-", "gemini-", "models/gemini-"],
        ProviderType::Anthropic => &[
            "gpt-",
            "o1-",
            "o3-",
            "o4-",
            "chatgpt-",
            "gemini-",
            "models/gemini-",
        ],
        ProviderType::Gemini => &["gpt-", "o1-", "o3-", "o4-", "chatgpt-", "claude-"],
        ProviderType::OpenAiCompatible | ProviderType::Ollama => &[],
    };
    match foreign.iter().find(|p| m.starts_with(*p)) {
        Some(_) => Err(ProviderError::Config {
            message: format!(
                "model {model:?} does not belong to a {} provider; pick one of its own models",
                kind.as_str()
            ),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // REFERENCE acceptance 72 (validation part)
    #[test]
    fn a_model_of_another_vendor_is_rejected() {
        assert!(check_model(ProviderType::Gemini, "gpt-5.3-codex").is_err());
        assert!(check_model(ProviderType::OpenAi, "models/gemini-2.0-flash").is_err());
        assert!(check_model(ProviderType::OpenAi, "CLAUDE-3").is_err());
        assert!(check_model(ProviderType::Ollama, "claude-3").is_ok());
        assert!(check_model(ProviderType::Anthropic, "").is_ok());
        assert!(check_model(ProviderType::Anthropic, "claude-sonnet-4-5").is_ok());
    }
}
