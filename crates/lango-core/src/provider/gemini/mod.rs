//! The Google Gemini API client (`POST {base}/models/{model}:streamGenerateContent?alt=sse`),
//! with embeddings (`:batchEmbedContents`) and the model list.
//!
//! Owns the request shape ([`request`]), the contents repair ([`sanitize`]) and the stream
//! chunks ([`decode`], with Vertex's streamed arguments in `partial_args`). It must not touch the shared transport, SSE framing, error
//! classification or tool-call assembly (`http`, `sse`, `error`, `assembler`), nor anything
//! outside `provider`.

pub mod decode;
mod partial_args;
pub mod request;
pub mod sanitize;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::http;
use super::{
    BoxFuture, EventStream, GenerateParams, ModelInfo, Provider, ProviderConfig, ProviderError,
    StreamEvent,
};

pub use decode::GeminiDecoder;

pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";
/// Used by [`Provider::embed`] unless the default model is itself an embedding model.
pub const DEFAULT_EMBED_MODEL: &str = "gemini-embedding-001";
/// The API's limit of texts per `batchEmbedContents` call.
const EMBED_BATCH: usize = 100;
/// Pages of the model list we follow at most.
const MAX_MODEL_PAGES: usize = 10;

#[derive(Debug, Clone)]
pub struct Gemini {
    config: ProviderConfig,
    client: reqwest::Client,
}

/// `models/gemini-2.0-flash` and `gemini-2.0-flash` name the same model.
fn bare_model(model: &str) -> &str {
    model.strip_prefix("models/").unwrap_or(model)
}

/// Query-value encoding for page tokens (unreserved characters pass, others become `%XX`).
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl Gemini {
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

    /// A request with the key header (never in the URL, so it cannot end up in a log).
    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let mut builder = self.client.request(method, url);
        if let Some(key) = self.config.api_key.as_ref().filter(|k| !k.is_empty()) {
            builder = builder.header("x-goog-api-key", key.expose());
        }
        builder
    }

    fn embed_model(&self) -> String {
        let default = bare_model(&self.config.default_model);
        if default.contains("embedding") {
            default.to_string()
        } else {
            DEFAULT_EMBED_MODEL.to_string()
        }
    }
}

impl Provider for Gemini {
    fn id(&self) -> &str {
        &self.config.id
    }

    fn generate(&self, params: GenerateParams, cancel: CancellationToken) -> EventStream {
        let max_tokens = params.max_tokens;
        let model = bare_model(self.config.model(&params.model)).to_string();
        if model.is_empty() {
            return super::stream_of(vec![StreamEvent::Error(ProviderError::Config {
                message: format!("no model is set for provider \"{}\"", self.config.id),
            })]);
        }
        let body = request::build_body(&params);
        let url = self
            .config
            .url(&format!("models/{model}:streamGenerateContent?alt=sse"));
        tracing::debug!(provider = %self.config.id, %model, %url, messages = params.messages.len(), "Gemini request");
        let this = self.clone();
        http::stream(
            move || this.request(reqwest::Method::POST, &url).json(&body),
            &self.config.http,
            GeminiDecoder::new(),
            max_tokens,
            cancel,
            |e| e,
        )
    }

    fn embed(&self, texts: Vec<String>) -> BoxFuture<'_, Result<Vec<Vec<f32>>, ProviderError>> {
        Box::pin(async move {
            let model = self.embed_model();
            let url = self
                .config
                .url(&format!("models/{model}:batchEmbedContents"));
            let mut vectors = Vec::with_capacity(texts.len());
            for batch in texts.chunks(EMBED_BATCH) {
                let requests: Vec<Value> = batch
                    .iter()
                    .map(|t| json!({"model": format!("models/{model}"), "content": {"parts": [{"text": t}]}}))
                    .collect();
                let body = json!({"requests": requests});
                let v = http::fetch_json(
                    || self.request(reqwest::Method::POST, &url).json(&body),
                    &self.config.http,
                )
                .await?;
                let embeddings =
                    v.get("embeddings")
                        .and_then(Value::as_array)
                        .ok_or_else(|| ProviderError::Interrupted {
                            message: "the embedding response has no \"embeddings\" array".into(),
                        })?;
                if embeddings.len() != batch.len() {
                    return Err(ProviderError::Interrupted {
                        message: format!(
                            "asked for {} embeddings, got {}",
                            batch.len(),
                            embeddings.len()
                        ),
                    });
                }
                for e in embeddings {
                    let values = e.get("values").and_then(Value::as_array).ok_or_else(|| {
                        ProviderError::Interrupted {
                            message: "an embedding has no \"values\"".into(),
                        }
                    })?;
                    vectors.push(
                        values
                            .iter()
                            .map(|x| x.as_f64().unwrap_or(0.0) as f32)
                            .collect(),
                    );
                }
            }
            Ok(vectors)
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let mut models = Vec::new();
            let mut page_token = String::new();
            for _ in 0..MAX_MODEL_PAGES {
                let mut url = self.config.url("models?pageSize=1000");
                if !page_token.is_empty() {
                    url.push_str("&pageToken=");
                    url.push_str(&percent_encode(&page_token));
                }
                let v = http::fetch_json(
                    || self.request(reqwest::Method::GET, &url),
                    &self.config.http,
                )
                .await?;
                let list = v.get("models").and_then(Value::as_array).ok_or_else(|| {
                    ProviderError::Interrupted {
                        message: "the model list has no \"models\" array".into(),
                    }
                })?;
                models.extend(list.iter().filter_map(|m| {
                    let id = bare_model(m.get("name")?.as_str()?).to_string();
                    let display_name = m
                        .get("displayName")
                        .and_then(Value::as_str)
                        .unwrap_or(&id)
                        .to_string();
                    Some(ModelInfo { id, display_name })
                }));
                page_token = v
                    .get("nextPageToken")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if page_token.is_empty() {
                    break;
                }
            }
            Ok(models)
        })
    }
}
