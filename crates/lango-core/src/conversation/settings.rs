//! Per-conversation overrides: what a conversation changes of the Settings defaults.
//!
//! Every field is optional; absent = the default from Settings at the time of the turn, so a
//! conversation that overrides nothing follows later changes of the defaults.

use serde::{Deserialize, Serialize};

use crate::config::{normalize_provider_id, Settings};

/// A conversation's own choices (stored as JSON with the conversation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSettings {
    /// A configured provider's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConversationSettingsError {
    #[error("there is no provider \"{provider}\" in Settings (configured: {known})")]
    UnknownProvider { provider: String, known: String },
    #[error("the temperature must be between 0 and 2, got {0}")]
    Temperature(f64),
    #[error("the reply length (max output tokens) must be more than 0")]
    MaxTokens,
    /// A model of another vendor (a `gpt-…` model on a Gemini provider, say).
    #[error("{0}")]
    Model(String),
}

/// What a turn of the conversation uses: its overrides over the Settings defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveSettings {
    pub provider: String,
    /// `""` = the provider's default model.
    pub model: String,
    pub temperature: f64,
    pub max_tokens: u32,
    pub system_prompt: String,
}

impl ConversationSettings {
    /// True when the conversation overrides nothing.
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Blank strings mean "the default" (a cleared input); ids are normalised as Settings
    /// stores them; a system prompt keeps its text as typed.
    pub fn normalized(self) -> Self {
        let text = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        Self {
            provider: text(self.provider).map(|p| normalize_provider_id(&p)),
            model: text(self.model),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            system_prompt: self.system_prompt.filter(|s| !s.trim().is_empty()),
        }
    }

    /// Every value in range, the provider configured, and the model one it can serve.
    pub fn check(&self, settings: &Settings) -> Result<(), ConversationSettingsError> {
        if let Some(provider) = &self.provider {
            if settings.provider(provider).is_none() {
                let known: Vec<&str> = settings.providers.keys().map(String::as_str).collect();
                return Err(ConversationSettingsError::UnknownProvider {
                    provider: provider.clone(),
                    known: if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    },
                });
            }
        }
        if let Some(t) = self.temperature {
            if !(t.is_finite() && (0.0..=2.0).contains(&t)) {
                return Err(ConversationSettingsError::Temperature(t));
            }
        }
        if self.max_tokens == Some(0) {
            return Err(ConversationSettingsError::MaxTokens);
        }
        let effective = self.resolve(settings);
        if let Some(p) = settings.provider(&effective.provider) {
            crate::provider::registry::check_model(p.kind, &effective.model)
                .map_err(|e| ConversationSettingsError::Model(e.to_string()))?;
        }
        Ok(())
    }

    /// The provider this conversation's turns go to, when it is not the default one.
    /// A provider no longer configured falls back to the default (its turns still work).
    pub fn provider_override<'a>(&'a self, settings: &Settings) -> Option<&'a str> {
        let own = self.provider.as_deref()?;
        let default = settings.agent_provider_id().unwrap_or("");
        (own != default && settings.provider(own).is_some()).then_some(own)
    }

    /// What the next turn uses.
    pub fn resolve(&self, settings: &Settings) -> EffectiveSettings {
        let (default_provider, default_model) = settings.effective_agent();
        let (provider, model) = match (self.provider_override(settings), &self.model) {
            (Some(p), Some(m)) => (p, m.as_str()),
            // Another provider without a model of its own: that provider's default.
            (Some(p), None) => (p, settings.default_model_of(p)),
            (None, Some(m)) => (default_provider, m.as_str()),
            (None, None) => (default_provider, default_model),
        };
        EffectiveSettings {
            provider: provider.to_owned(),
            model: model.to_owned(),
            temperature: self.temperature.unwrap_or(settings.agent.temperature),
            max_tokens: self.max_tokens.unwrap_or(settings.agent.max_tokens),
            system_prompt: self
                .system_prompt
                .clone()
                .unwrap_or_else(|| settings.agent.system_prompt.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ProviderSettings, ProviderType};

    fn two_providers() -> Settings {
        let mut s = Settings::default();
        s.providers
            .insert("openai".into(), ProviderSettings::new(ProviderType::OpenAi));
        let mut local = ProviderSettings::new(ProviderType::Ollama);
        local.default_model = Some("llama3.2".into());
        s.providers.insert("local".into(), local);
        s.agent.provider = "openai".into();
        s.agent.model = "gpt-4o-mini".into();
        s
    }

    #[test]
    fn a_conversation_without_overrides_uses_the_settings_defaults() {
        let s = two_providers();
        let e = ConversationSettings::default().resolve(&s);
        assert_eq!(
            (e.provider.as_str(), e.model.as_str()),
            ("openai", "gpt-4o-mini")
        );
        assert_eq!(e.temperature, s.agent.temperature);
        assert_eq!(e.system_prompt, s.agent.system_prompt);
    }

    #[test]
    fn another_provider_without_a_model_uses_that_providers_default_model() {
        let s = two_providers();
        let own = ConversationSettings {
            provider: Some("Local".into()),
            ..Default::default()
        }
        .normalized();
        let e = own.resolve(&s);
        assert_eq!(
            (e.provider.as_str(), e.model.as_str()),
            ("local", "llama3.2")
        );
    }

    #[test]
    fn overrides_replace_only_what_they_set() {
        let s = two_providers();
        let own = ConversationSettings {
            model: Some("gpt-4o".into()),
            temperature: Some(0.0),
            max_tokens: Some(100),
            system_prompt: Some("Answer in French.".into()),
            ..Default::default()
        };
        let e = own.resolve(&s);
        assert_eq!(
            (e.provider.as_str(), e.model.as_str()),
            ("openai", "gpt-4o")
        );
        assert_eq!((e.temperature, e.max_tokens), (0.0, 100));
        assert_eq!(e.system_prompt, "Answer in French.");
    }

    #[test]
    fn cleared_inputs_mean_the_default() {
        let own = ConversationSettings {
            provider: Some("  ".into()),
            model: Some("".into()),
            system_prompt: Some(" \n".into()),
            ..Default::default()
        }
        .normalized();
        assert!(own.is_default());
    }

    #[test]
    fn out_of_range_values_and_unknown_providers_are_refused_in_plain_words() {
        let s = two_providers();
        let bad = |c: ConversationSettings| c.check(&s).unwrap_err().to_string();
        assert!(bad(ConversationSettings {
            temperature: Some(2.5),
            ..Default::default()
        })
        .contains("between 0 and 2"));
        assert!(bad(ConversationSettings {
            max_tokens: Some(0),
            ..Default::default()
        })
        .contains("more than 0"));
        let unknown = bad(ConversationSettings {
            provider: Some("groq".into()),
            ..Default::default()
        });
        assert!(
            unknown.contains("\"groq\"") && unknown.contains("local, openai"),
            "{unknown}"
        );
        assert!(matches!(
            ConversationSettings {
                model: Some("gemini-2.0-flash".into()),
                ..Default::default()
            }
            .check(&s),
            Err(ConversationSettingsError::Model(_))
        ));
    }

    #[test]
    fn a_provider_removed_from_settings_falls_back_to_the_default() {
        let s = two_providers();
        let own = ConversationSettings {
            provider: Some("gone".into()),
            ..Default::default()
        };
        assert_eq!(own.resolve(&s).provider, "openai");
    }
}
