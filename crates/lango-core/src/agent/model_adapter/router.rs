//! `ModelRouter`: the [`Llm`] that sends each call to the provider its conversation chose
//! (`RequestContext::turn`), so one engine serves conversations on different providers.
//!
//! The engine's own provider is built at start-up; any other configured provider is built on
//! its first call and kept (its HTTP client and connections are reused). A provider that
//! cannot be built (no key, say) fails that call with the reason, never the engine.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::agent::context::RequestContext;
use crate::agent::error::AgentError;
use crate::agent::traits::{Llm, LlmStream};
use crate::agent::types::LlmRequest;
use crate::provider::ProviderError;

/// Builds the model of one configured provider, by id.
pub type BuildModel = dyn Fn(&str) -> Result<Arc<dyn Llm>, ProviderError> + Send + Sync;

pub struct ModelRouter {
    default_provider: String,
    default: Arc<dyn Llm>,
    build: Box<BuildModel>,
    built: Mutex<HashMap<String, Arc<dyn Llm>>>,
}

impl std::fmt::Debug for ModelRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRouter")
            .field("default_provider", &self.default_provider)
            .field("default", &self.default.name())
            .finish_non_exhaustive()
    }
}

impl ModelRouter {
    pub fn new(
        default_provider: impl Into<String>,
        default: Arc<dyn Llm>,
        build: Box<BuildModel>,
    ) -> Self {
        Self {
            default_provider: default_provider.into(),
            default,
            build,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// The model for `provider` (`""` or the default id = the default one).
    fn model_of(&self, provider: &str) -> Result<Arc<dyn Llm>, ProviderError> {
        if provider.is_empty() || provider == self.default_provider {
            return Ok(Arc::clone(&self.default));
        }
        let mut built = match self.built.lock() {
            Ok(b) => b,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(model) = built.get(provider) {
            return Ok(Arc::clone(model));
        }
        let model = (self.build)(provider)?;
        built.insert(provider.to_owned(), Arc::clone(&model));
        Ok(model)
    }
}

impl Llm for ModelRouter {
    fn name(&self) -> &str {
        self.default.name()
    }

    fn generate_content(
        &self,
        ctx: &RequestContext,
        request: LlmRequest,
        stream: bool,
    ) -> LlmStream {
        let provider = ctx.turn.as_ref().map_or("", |t| t.provider.as_str());
        match self.model_of(provider) {
            Ok(model) => model.generate_content(ctx, request, stream),
            Err(e) => {
                tracing::warn!(provider, error = %e, "the conversation's provider cannot be used");
                Box::pin(futures_util::stream::once(async move {
                    Err(AgentError::Provider(e))
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::context::TurnSettings;
    use crate::agent::types::LlmResponse;
    use futures_util::StreamExt;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A model that answers with its own name.
    #[derive(Debug)]
    struct Named(String);

    impl Llm for Named {
        fn name(&self) -> &str {
            &self.0
        }
        fn generate_content(&self, _: &RequestContext, _: LlmRequest, _: bool) -> LlmStream {
            let text = self.0.clone();
            Box::pin(futures_util::stream::once(async move {
                Ok(LlmResponse::complete_text(text))
            }))
        }
    }

    fn on(provider: &str) -> RequestContext {
        RequestContext {
            turn: Some(Arc::new(TurnSettings {
                provider: provider.into(),
                ..TurnSettings::default()
            })),
            ..RequestContext::default()
        }
    }

    async fn answer(router: &ModelRouter, ctx: &RequestContext) -> Result<String, String> {
        let mut stream = router.generate_content(ctx, LlmRequest::default(), false);
        match stream.next().await {
            Some(Ok(r)) => Ok(r.content.map(|c| c.text()).unwrap_or_default()),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("no answer".into()),
        }
    }

    #[tokio::test]
    async fn each_call_goes_to_the_provider_its_conversation_chose_built_once() {
        let builds = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&builds);
        let router = ModelRouter::new(
            "openai",
            Arc::new(Named("default".into())),
            Box::new(move |id| {
                counted.fetch_add(1, Ordering::SeqCst);
                Ok(Arc::new(Named(format!("built {id}"))) as Arc<dyn Llm>)
            }),
        );
        assert_eq!(
            answer(&router, &RequestContext::default()).await.as_deref(),
            Ok("default")
        );
        assert_eq!(
            answer(&router, &on("openai")).await.as_deref(),
            Ok("default")
        );
        assert_eq!(
            answer(&router, &on("local")).await.as_deref(),
            Ok("built local")
        );
        assert_eq!(
            answer(&router, &on("local")).await.as_deref(),
            Ok("built local")
        );
        assert_eq!(builds.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_provider_that_cannot_be_built_fails_that_call_with_its_reason() {
        let router = ModelRouter::new(
            "openai",
            Arc::new(Named("default".into())),
            Box::new(|id| {
                Err(ProviderError::MissingKey {
                    provider: id.into(),
                    env_var: "LANGO_ANTHROPIC_API_KEY".into(),
                })
            }),
        );
        let err = answer(&router, &on("anthropic")).await.unwrap_err();
        assert!(err.contains("anthropic"), "{err}");
        assert_eq!(
            answer(&router, &RequestContext::default()).await.as_deref(),
            Ok("default")
        );
    }
}
