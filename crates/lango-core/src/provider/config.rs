//! What a wire client needs to be built: where to send, with which key, with which limits.

use super::http::HttpSettings;
use super::ProviderError;
use crate::secrets::ApiKey;

#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// The provider's id in the settings (logs, usage reports).
    pub id: String,
    /// The API root without a trailing slash, e.g. `https://api.openai.com/v1`,
    /// `https://api.anthropic.com`, `https://generativelanguage.googleapis.com/v1beta`,
    /// `http://localhost:11434`.
    pub base_url: String,
    /// None for servers that need no key (Ollama, local llama.cpp).
    pub api_key: Option<ApiKey>,
    /// Used when a request's model is empty.
    pub default_model: String,
    pub http: HttpSettings,
}

impl ProviderConfig {
    pub fn new(id: impl Into<String>, base_url: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key: None,
            default_model: String::new(),
            http: HttpSettings::default(),
        }
    }

    pub fn with_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    pub fn with_default_model(mut self, model: impl Into<String>) -> Self {
        self.default_model = model.into();
        self
    }

    pub fn with_http(mut self, http: HttpSettings) -> Self {
        self.http = http;
        self
    }

    /// A base URL a client can send to: `http(s)://…` (every wire client checks it when
    /// built, so a missing scheme is a config error, not a network error at the first call).
    pub fn check_base_url(&self) -> Result<(), ProviderError> {
        let ok = reqwest::Url::parse(&self.base_url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
        if ok {
            Ok(())
        } else {
            Err(ProviderError::Config {
                message: format!("the base URL \"{}\" is not an http(s) URL", self.base_url),
            })
        }
    }

    /// `url` joined under the base URL.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }

    /// The request's model, else the configured default.
    pub fn model<'a>(&'a self, requested: &'a str) -> &'a str {
        if requested.is_empty() {
            &self.default_model
        } else {
            requested
        }
    }
}
