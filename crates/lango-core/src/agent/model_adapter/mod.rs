//! `ModelAdapter`: the runtime's [`Llm`] over any [`Provider`] (REFERENCE §1.2–§1.4,
//! specs 000/001/003 "SystemInstruction Forwarding", "Model adapter streams LLM responses",
//! "convertMessages forwards FunctionCall ID").
//!
//! Owns the request side (`convert`: system instruction, contents → provider messages, tool
//! declarations, options) and the response side (`stream`: partial/final semantics). It must
//! not touch the store, sessions, memory or the wire formats: providers own HTTP, the wire
//! and conversation repair; the runner owns what happens to the responses.

pub mod convert;
mod router;
mod stream;

use std::sync::Arc;

use crate::agent::context::RequestContext;
use crate::agent::traits::{Llm, LlmStream};
use crate::agent::types::LlmRequest;
use crate::provider::{GenerateParams, Provider};

pub use convert::{contents_to_messages, system_message, tool_specs};
pub use router::{BuildModel, ModelRouter};

/// An [`Llm`] that sends each request to one provider with one default model.
#[derive(Debug, Clone)]
pub struct ModelAdapter {
    provider: Arc<dyn Provider>,
    model: String,
}

impl ModelAdapter {
    /// `model` is used when a request names none; it is also the adapter's `name()`.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
        }
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }

    /// The provider request for `request`: the model (empty → the adapter's), ONE system
    /// message first when the instruction has text, the converted contents, the named tools,
    /// and temperature / max tokens only when set.
    pub fn build_params(&self, request: &LlmRequest) -> GenerateParams {
        let config = &request.config;
        let mut messages = Vec::with_capacity(request.contents.len() + 1);
        messages.extend(system_message(config));
        messages.extend(contents_to_messages(&request.contents));
        GenerateParams {
            model: if request.model.is_empty() {
                self.model.clone()
            } else {
                request.model.clone()
            },
            messages,
            tools: tool_specs(config),
            temperature: config.temperature,
            max_tokens: config.max_output_tokens,
        }
    }
}

impl Llm for ModelAdapter {
    fn name(&self) -> &str {
        &self.model
    }

    /// `stream=false`: exactly one final response (or one error). `stream=true`: partial text
    /// and call notifications (`partial=true`), then the final response; an error ends it.
    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream {
        let params = self.build_params(&request);
        let model = params.model.clone();
        tracing::debug!(
            provider = %self.provider.id(), %model, messages = params.messages.len(),
            tools = params.tools.len(), stream, "model call"
        );
        let events = self.provider.generate(params, ctx.cancel.clone());
        stream::responses(
            stream::Source {
                events,
                cancel: ctx.cancel.clone(),
                provider_id: self.provider.id().to_string(),
                model,
            },
            stream,
        )
    }
}
