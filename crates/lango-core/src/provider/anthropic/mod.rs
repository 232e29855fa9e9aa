//! The Anthropic Messages API client (`POST {base}/v1/messages`, streamed), also used for
//! llama.cpp `llama-server`'s Anthropic-compatible endpoint.
//!
//! Owns the request shape ([`request`]), the stream events ([`decode`]) and the model list.
//! It must not touch the shared transport, SSE framing, error classification or tool-call
//! assembly (`http`, `sse`, `error`, `assembler`), nor anything outside `provider`.

pub mod decode;
pub mod request;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::http;
use super::{
    BoxFuture, EventStream, GenerateParams, ModelInfo, Provider, ProviderConfig, ProviderError,
    StreamEvent,
};

pub use decode::AnthropicDecoder;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";

#[derive(Debug, Clone)]
pub struct Anthropic {
    config: ProviderConfig,
    client: reqwest::Client,
}

impl Anthropic {
    /// An empty `base_url` means the public API.
    pub fn new(mut config: ProviderConfig) -> Result<Self, ProviderError> {
        if config.base_url.trim().is_empty() {
            config.base_url = DEFAULT_BASE_URL.to_string();
        }
        config.base_url = config.base_url.trim().trim_end_matches('/').to_string();
        config.check_base_url()?;
        let client = http::client(&config.http)?;
        Ok(Self { config, client })
    }

    /// A request with the auth and version headers (the key is never logged).
    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let mut builder = self
            .client
            .request(method, url)
            .header("anthropic-version", API_VERSION);
        if let Some(key) = self.config.api_key.as_ref().filter(|k| !k.is_empty()) {
            builder = builder.header("x-api-key", key.expose());
        }
        builder
    }
}

impl Provider for Anthropic {
    fn id(&self) -> &str {
        &self.config.id
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        let max_tokens = params.max_tokens;
        let model = self.config.model(&params.model).to_string();
        if model.is_empty() {
            return super::stream_of(vec![StreamEvent::Error(ProviderError::Config {
                message: format!("no model is set for provider \"{}\"", self.config.id),
            })]);
        }
        let body = request::build_body(&params, &model);
        let url = self.config.url("v1/messages");
        tracing::debug!(provider = %self.config.id, %model, %url, messages = params.messages.len(), "Anthropic request");
        let this = self.clone();
        http::stream(
            move || this.request(reqwest::Method::POST, &url).json(&body),
            &self.config.http,
            AnthropicDecoder::new(),
            max_tokens,
            cancel,
            |e| e,
        )
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let url = self.config.url("v1/models?limit=1000");
            let v = http::fetch_json(
                || self.request(reqwest::Method::GET, &url),
                &self.config.http,
            )
            .await?;
            let data = v.get("data").and_then(Value::as_array).ok_or_else(|| {
                ProviderError::Interrupted {
                    message: "the model list has no \"data\" array".into(),
                }
            })?;
            Ok(data
                .iter()
                .filter_map(|m| {
                    let id = m.get("id")?.as_str()?.to_string();
                    let display_name = m
                        .get("display_name")
                        .and_then(Value::as_str)
                        .unwrap_or(&id)
                        .to_string();
                    Some(ModelInfo { id, display_name })
                })
                .collect())
        })
    }
}
