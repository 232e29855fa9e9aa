//! The OpenAI-compatible Chat Completions client: OpenAI itself, Ollama's `/v1`, llama.cpp
//! (`llama-server`, llama-cpp-python), LM Studio, Groq, Mistral, DeepSeek, xAI, Azure-style
//! gateways (REFERENCE §5.2).
//!
//! Owns the request body (`request`), the conversation repairs done just before sending
//! (`repair`, also used by the Ollama client), the stream decoder (`decode`), and the
//! `/models` and `/embeddings` calls. It must not touch the store, sessions or memory, and
//! must not retry or time out on its own: sending, retries and the stream driver are
//! `provider::http`'s; tool-call assembly is `provider::assembler`'s. API keys only ever go
//! into the `Authorization` header, never into logs or errors.

pub mod decode;
mod endpoint;
pub mod repair;
pub mod request;

use bytes::Bytes;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::http;
use super::{
    stream_of, BoxFuture, EventStream, GenerateParams, ModelInfo, Provider, ProviderConfig,
    ProviderError, StreamEvent,
};

pub use decode::ChatCompletionsDecoder;
pub(crate) use endpoint::{encode, BearerEndpoint};

/// A client for one OpenAI-compatible server (`base_url` ends in `/v1` or the server's
/// equivalent). Cheap to clone.
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    ep: BearerEndpoint,
}

impl OpenAiCompatible {
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        Ok(Self {
            ep: BearerEndpoint::new(config)?,
        })
    }
}

impl Provider for OpenAiCompatible {
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
        let url = self.ep.config.url("chat/completions");
        tracing::debug!(
            provider = %self.ep.config.id, %model, %url, messages = messages.len(), tools = params.tools.len(),
            "sending a chat completion request"
        );
        let this = self.clone();
        http::stream(
            move || {
                this.ep
                    .post_json(&url, body.clone())
                    .header(reqwest::header::ACCEPT, "text/event-stream")
            },
            &self.ep.config.http,
            ChatCompletionsDecoder::new(),
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
            let body = json!({"model": self.ep.config.default_model, "input": texts});
            let url = self.ep.config.url("embeddings");
            let body = Bytes::from(body.to_string());
            let v = http::fetch_json(
                || self.ep.post_json(&url, body.clone()),
                &self.ep.config.http,
            )
            .await?;
            let data = v
                .get("data")
                .and_then(Value::as_array)
                .ok_or_else(|| unexpected("embeddings", &v))?;
            let mut rows = Vec::with_capacity(data.len());
            for (position, item) in data.iter().enumerate() {
                let index = item
                    .get("index")
                    .and_then(Value::as_u64)
                    .map_or(position, |i| i as usize);
                let vector = item
                    .get("embedding")
                    .and_then(float_vector)
                    .ok_or_else(|| unexpected("embeddings", item))?;
                rows.push((index, vector));
            }
            rows.sort_by_key(|(index, _)| *index);
            if rows.len() != count {
                let message = format!(
                    "asked for {count} embeddings, the provider returned {}",
                    rows.len()
                );
                return Err(ProviderError::Interrupted { message });
            }
            Ok(rows.into_iter().map(|(_, v)| v).collect())
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let url = self.ep.config.url("models");
            let v = http::fetch_json(
                || self.ep.request(reqwest::Method::GET, &url),
                &self.ep.config.http,
            )
            .await?;
            let data = v
                .get("data")
                .and_then(Value::as_array)
                .ok_or_else(|| unexpected("models", &v))?;
            Ok(data
                .iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str))
                .map(|id| ModelInfo {
                    id: id.to_string(),
                    display_name: id.to_string(),
                })
                .collect())
        })
    }
}

/// Adds `Authorization: Bearer <key>` when a non-empty key is configured.
pub(crate) fn with_key(
    builder: reqwest::RequestBuilder,
    config: &ProviderConfig,
) -> reqwest::RequestBuilder {
    match &config.api_key {
        Some(key) if !key.is_empty() => builder.bearer_auth(key.expose()),
        _ => builder,
    }
}

/// A start error that says the model cannot use tools (Ollama: "<model> does not support
/// tools") becomes `Unsupported`, naming the model and suggesting a tool-capable one.
pub(crate) fn explain_start_error(error: ProviderError, model: &str) -> ProviderError {
    let text = match &error {
        ProviderError::BadRequest { message }
        | ProviderError::Unsupported { message }
        | ProviderError::NotFound { message }
        | ProviderError::Server { message, .. } => message.as_str(),
        _ => return error,
    };
    if !text.to_lowercase().contains("does not support tools") {
        return error;
    }
    let message = format!(
        "the model \"{model}\" does not support tools. Choose a tool-capable model (for example qwen2.5, \
         llama3.1 or mistral-nemo). The provider said: {text}"
    );
    ProviderError::Unsupported { message }
}

pub(crate) fn unexpected(what: &str, v: &Value) -> ProviderError {
    let snippet: String = v.to_string().chars().take(200).collect();
    ProviderError::Interrupted {
        message: format!("unexpected {what} response from the provider: {snippet}"),
    }
}

/// A JSON array of numbers as `f32`s.
pub(crate) fn float_vector(v: &Value) -> Option<Vec<f32>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_f64().map(|f| f as f32))
        .collect()
}
