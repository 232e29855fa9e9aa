//! The native Ollama client (`POST {base}/api/chat`, NDJSON stream; `base_url` like
//! `http://localhost:11434`, without `/v1`).
//!
//! Owns the native request body (`request`), the NDJSON line decoder (`decode`), and the
//! `/api/tags` and `/api/embed` calls. It reuses the OpenAI-compatible client's conversation
//! repairs and start-error wording. It must not touch the store, sessions or memory, nor
//! retry or time out on its own (`provider::http` does), nor assemble tool calls
//! (`provider::assembler` does). API keys (Ollama cloud) only go into the `Authorization`
//! header, never into logs or errors.

pub mod decode;
pub mod request;

use bytes::Bytes;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::http;
use super::openai::{
    encode, explain_start_error, float_vector, repair, unexpected, BearerEndpoint,
};
use super::{
    stream_of, BoxFuture, EventStream, GenerateParams, ModelInfo, Provider, ProviderConfig,
    ProviderError, StreamEvent,
};

pub use decode::OllamaDecoder;

pub const DEFAULT_BASE_URL: &str = "http://localhost:11434";

/// A client for one Ollama server. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Ollama {
    ep: BearerEndpoint,
}

impl Ollama {
    /// An empty `base_url` means the local default, `http://localhost:11434`.
    pub fn new(mut config: ProviderConfig) -> Result<Self, ProviderError> {
        if config.base_url.is_empty() {
            config.base_url = DEFAULT_BASE_URL.to_string();
        }
        Ok(Self {
            ep: BearerEndpoint::new(config)?,
        })
    }
}

impl Provider for Ollama {
    fn id(&self) -> &str {
        &self.ep.config.id
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        let max_tokens = params.max_tokens;
        let model = self.ep.config.model(&params.model).to_string();
        let messages = repair::prepare_messages(&params.messages);
        let body = request::build_body(&params, &model, &messages);
        let body = match encode(&body) {
            Ok(b) => b,
            Err(e) => return stream_of(vec![StreamEvent::Error(e)]),
        };
        let url = self.ep.config.url("api/chat");
        tracing::debug!(
            provider = %self.ep.config.id, %model, %url, messages = messages.len(), tools = params.tools.len(),
            "sending an Ollama chat request"
        );
        let this = self.clone();
        http::stream(
            move || this.ep.post_json(&url, body.clone()),
            &self.ep.config.http,
            OllamaDecoder::new(),
            max_tokens,
            cancel,
            move |e| explain_start_error(e, &model),
        )
    }

    fn embed(&self, texts: Vec<String>) -> BoxFuture<'_, Result<Vec<Vec<f32>>, ProviderError>> {
        Box::pin(async move {
            if texts.is_empty() {
                return Ok(Vec::new());
            }
            let count = texts.len();
            let body = Bytes::from(
                json!({"model": self.ep.config.default_model, "input": texts}).to_string(),
            );
            let url = self.ep.config.url("api/embed");
            let v = http::fetch_json(
                || self.ep.post_json(&url, body.clone()),
                &self.ep.config.http,
            )
            .await?;
            let rows = v
                .get("embeddings")
                .and_then(Value::as_array)
                .ok_or_else(|| unexpected("embed", &v))?;
            let vectors = rows
                .iter()
                .map(float_vector)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| unexpected("embed", &v))?;
            if vectors.len() != count {
                let message = format!(
                    "asked for {count} embeddings, the provider returned {}",
                    vectors.len()
                );
                return Err(ProviderError::Interrupted { message });
            }
            Ok(vectors)
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let url = self.ep.config.url("api/tags");
            let v = http::fetch_json(
                || self.ep.request(reqwest::Method::GET, &url),
                &self.ep.config.http,
            )
            .await?;
            let models = v
                .get("models")
                .and_then(Value::as_array)
                .ok_or_else(|| unexpected("tags", &v))?;
            Ok(models
                .iter()
                .filter_map(|m| {
                    m.get("name")
                        .or_else(|| m.get("model"))
                        .and_then(Value::as_str)
                })
                .map(|name| ModelInfo {
                    id: name.to_string(),
                    display_name: name.to_string(),
                })
                .collect())
        })
    }
}
