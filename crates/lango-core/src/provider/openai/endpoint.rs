//! An HTTP endpoint that takes JSON and a Bearer key: what the OpenAI-compatible and the
//! Ollama clients share (client, key header, base-URL check, request encoding).

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use super::with_key;
use crate::provider::{http, ProviderConfig, ProviderError};

#[derive(Debug, Clone)]
pub(crate) struct BearerEndpoint {
    pub config: Arc<ProviderConfig>,
    client: reqwest::Client,
}

impl BearerEndpoint {
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        config.check_base_url()?;
        let client = http::client(&config.http)?;
        Ok(Self {
            config: Arc::new(config),
            client,
        })
    }

    pub fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        with_key(self.client.request(method, url), &self.config)
    }

    pub fn post_json(&self, url: &str, body: Bytes) -> reqwest::RequestBuilder {
        self.request(reqwest::Method::POST, url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
    }
}

/// A request body as bytes, encoded once and reused by every retry.
pub(crate) fn encode(body: &Value) -> Result<Bytes, ProviderError> {
    serde_json::to_vec(body)
        .map(Bytes::from)
        .map_err(|e| ProviderError::Config {
            message: format!("cannot encode the request: {e}"),
        })
}
