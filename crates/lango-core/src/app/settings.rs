//! The settings screen: read the settings with where each key is stored, validate unsaved
//! edits with the engine's own validator, save (and rebuild the engine), store or remove an
//! API key, and test a provider by listing its models. Keys go to `secrets` only: they are
//! never part of the settings document, a log line or a reply.

use serde_json::Value;

use super::dto::{ModelEntry, ProviderKey, SettingsView, ValidationReport};
use super::{App, AppError};
use crate::config::{self, validate_value, Settings};
use crate::provider::http::HttpSettings;
use crate::provider::registry;
use crate::secrets::{session_status, ApiKey, KeyLocation};

impl App {
    /// The settings document alone: what a new chat takes its defaults from. Unlike
    /// [`App::settings`] it asks no key store anything (no keychain probe, no key reads).
    pub async fn settings_document(&self) -> Value {
        self.inner.running.read().await.settings.to_value()
    }

    pub async fn settings(&self) -> SettingsView {
        // The first time in this process, whether the keychain works is probed (a D-Bus round
        // trip, seconds on a broken desktop): on a blocking thread, not the async runtime's.
        let _ = tokio::task::spawn_blocking(session_status).await;
        let running = self.inner.running.read().await;
        self.settings_view(&running.settings, running.load_error.clone())
    }

    fn settings_view(&self, settings: &Settings, load_error: Option<AppError>) -> SettingsView {
        let secrets = self.secret_store(settings);
        let keys = settings
            .providers
            .keys()
            .map(|id| {
                let location = secrets.location(id).unwrap_or(KeyLocation::Missing);
                ProviderKey {
                    provider: id.clone(),
                    description: location.to_string(),
                    location,
                }
            })
            .collect();
        SettingsView {
            settings: settings.to_value(),
            keys,
            keychain: self.keychain_info(settings),
            load_error,
        }
    }

    /// What saving `document` would report: every problem tied to its field, and warnings.
    pub fn validate_settings(&self, document: &Value) -> ValidationReport {
        match validate_value(document) {
            Ok((_, warnings)) => ValidationReport {
                problems: Vec::new(),
                warnings,
            },
            Err(problems) => ValidationReport {
                problems,
                warnings: Vec::new(),
            },
        }
    }

    /// Validates and saves `document` (atomically, the previous file kept as `.bak`), then
    /// rebuilds the engine so the next turn uses it. Invalid settings are refused whole.
    pub async fn save_settings(&self, document: &Value) -> Result<SettingsView, AppError> {
        let settings = match validate_value(document) {
            Ok((settings, _)) => settings,
            Err(problems) => {
                let list: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
                return Err(AppError::new("invalid_settings", list.join("\n")));
            }
        };
        self.write_settings_file(&settings).await?;
        self.install(settings.clone(), None).await;
        Ok(self.settings_view(&settings, None))
    }

    /// Writes `settings` to settings.json (atomically, the previous file kept as `.bak`) off
    /// the async threads.
    pub(super) async fn write_settings_file(&self, settings: &Settings) -> Result<(), AppError> {
        let paths = self.inner.paths.clone();
        let to_save = settings.clone();
        tokio::task::spawn_blocking(move || config::save(&paths, &to_save))
            .await
            .map_err(|e| AppError::new("internal", e.to_string()))??;
        Ok(())
    }

    /// Stores `key` for `provider` (keychain, else the opt-in file, else a clear error),
    /// then rebuilds the engine so it is used at once.
    pub async fn set_api_key(&self, provider: &str, key: &str) -> Result<KeyLocation, AppError> {
        let key = ApiKey::new(key.trim());
        if key.is_empty() {
            return Err(AppError::new("empty_key", "paste the API key first"));
        }
        let settings = self.inner.running.read().await.settings.clone();
        let secrets = self.secret_store(&settings);
        let id = config::normalize_provider_id(provider);
        let location = tokio::task::spawn_blocking(move || secrets.set(&id, &key))
            .await
            .map_err(|e| AppError::new("internal", e.to_string()))??;
        self.install(settings, None).await;
        Ok(location)
    }

    pub async fn delete_api_key(&self, provider: &str) -> Result<(), AppError> {
        let settings = self.inner.running.read().await.settings.clone();
        let secrets = self.secret_store(&settings);
        let id = config::normalize_provider_id(provider);
        tokio::task::spawn_blocking(move || secrets.delete(&id))
            .await
            .map_err(|e| AppError::new("internal", e.to_string()))??;
        self.install(settings, None).await;
        Ok(())
    }

    /// Lists the models of provider `id`, as configured in `document` (unsaved edits
    /// allowed) with `key` if given, else its stored key: the "Test connection" button.
    pub async fn test_connection(
        &self,
        document: &Value,
        id: &str,
        key: Option<&str>,
    ) -> Result<Vec<ModelEntry>, AppError> {
        let settings = match validate_value(document) {
            Ok((s, _)) => s,
            Err(problems) => {
                let list: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
                return Err(AppError::new("invalid_settings", list.join("\n")));
            }
        };
        let provider_settings = settings.provider(id).cloned().ok_or_else(|| {
            AppError::new(
                "unknown_provider",
                format!("no provider {id:?} in the settings"),
            )
        })?;
        let key = match key.map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => Some(ApiKey::new(k)),
            None => {
                let secrets = self.secret_store(&settings);
                let id = config::normalize_provider_id(id);
                tokio::task::spawn_blocking(move || secrets.get(&id))
                    .await
                    .map_err(|e| AppError::new("internal", e.to_string()))??
                    .map(|(k, _)| k)
            }
        };
        let provider = registry::build(
            id,
            &provider_settings,
            key,
            HttpSettings::from_agent(&settings.agent),
        )?;
        let mut models: Vec<ModelEntry> = provider
            .list_models()
            .await?
            .into_iter()
            .map(|m| ModelEntry {
                id: m.id,
                display_name: m.display_name,
            })
            .collect();
        models.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(models)
    }

    /// The models of the agent's current provider (the composer's model picker).
    pub async fn list_models(&self) -> Result<Vec<ModelEntry>, AppError> {
        let (document, provider) = {
            let running = self.inner.running.read().await;
            let provider = running
                .settings
                .agent_provider_id()
                .map(str::to_owned)
                .ok_or_else(|| AppError::new("no_provider", "no provider is configured yet"))?;
            (running.settings.to_value(), provider)
        };
        self.test_connection(&document, &provider, None).await
    }

    /// Switches the chat model (saved in the settings, used from the next turn).
    pub async fn set_model(&self, model: &str) -> Result<SettingsView, AppError> {
        let mut document = self.inner.running.read().await.settings.to_value();
        if let Some(agent) = document.get_mut("agent").and_then(Value::as_object_mut) {
            agent.insert("model".into(), Value::String(model.trim().to_owned()));
        }
        self.save_settings(&document).await
    }
}
