//! Which model serves what: the chat's models (the engine's provider, and any other
//! configured provider a conversation chose, through `ModelRouter`), the memory's observer
//! model and embedder, the key store they read, and a conversation's turn settings.

use std::sync::Arc;

use super::EngineError;
use crate::agent::model_adapter::{ModelAdapter, ModelRouter};
use crate::agent::session::history_token_budget;
use crate::agent::{Llm, TurnSettings};
use crate::config::{ProviderType, Settings};
use crate::conversation::ConversationSettings;
use crate::paths::AppPaths;
use crate::provider::http::HttpSettings;
use crate::provider::{registry, Provider};
use crate::secrets::SecretStore;
use crate::store::AttachmentRef;

/// The chat's model: `default` for the engine's provider, any other configured provider
/// built on a conversation's first call to it, with the same key rules.
pub(super) fn chat_router(
    paths: &AppPaths,
    settings: &Settings,
    provider_id: &str,
    default: Arc<dyn Llm>,
) -> Arc<dyn Llm> {
    let (paths, settings) = (paths.clone(), settings.clone());
    Arc::new(ModelRouter::new(
        provider_id,
        default,
        Box::new(move |id| {
            let secrets = secret_store(&paths, &settings);
            let provider = registry::from_settings(
                &settings,
                id,
                &secrets,
                HttpSettings::from_agent(&settings.agent),
            )?;
            if let Some(p) = settings.provider(id) {
                registry::check_model(p.kind, settings.default_model_of(id))?;
            }
            Ok(
                Arc::new(ModelAdapter::new(provider, settings.default_model_of(id)))
                    as Arc<dyn Llm>,
            )
        }),
    ))
}

/// A turn of a conversation with its own settings: its provider and model (resolved over
/// the defaults), only the values it overrides, and the history budget of its model.
pub fn turn_settings(settings: &Settings, own: &ConversationSettings) -> TurnSettings {
    let effective = own.resolve(settings);
    let om = &settings.observational_memory;
    let om_budget = om
        .enabled
        .then(|| usize::try_from(om.max_message_token_budget).unwrap_or(usize::MAX));
    // Only a model known not to take images gets them described in words.
    let images = settings.provider(&effective.provider).is_none_or(|p| {
        crate::provider::vision::accepts_images(p.kind, &effective.model) != Some(false)
    });
    TurnSettings {
        images,
        history_budget: Some(history_token_budget(&effective.model, om_budget)),
        provider: effective.provider,
        model: effective.model,
        temperature: own.temperature.map(|t| t as f32),
        max_output_tokens: own.max_tokens,
        system_prompt: own.system_prompt.clone(),
    }
}

/// `Err` with a sentence for the user when `attachments` hold an image and the turn's model
/// is known not to take images: refused before anything is sent.
pub fn check_images(turn: &TurnSettings, attachments: &[AttachmentRef]) -> Result<(), String> {
    if turn.images || !attachments.iter().any(|a| a.kind == "image") {
        return Ok(());
    }
    let model = if turn.model.is_empty() {
        &turn.provider
    } else {
        &turn.model
    };
    Err(format!(
        "{model} does not take images. Pick a model that does (the composer's model picker, or `lango chat --model`) or leave the image out."
    ))
}

/// The model the observer and reflector use: `observationalMemory.provider/model`, else the
/// agent's own (spec 002 "Observer uses configurable LLM").
pub(super) fn observer_llm(
    paths: &AppPaths,
    settings: &Settings,
    agent_provider: &str,
    agent_model: &str,
    agent_llm: Arc<dyn crate::agent::Llm>,
) -> Result<Arc<dyn crate::agent::Llm>, EngineError> {
    let (provider_id, model) = settings.effective_observer();
    if provider_id == agent_provider && model == agent_model {
        return Ok(agent_llm);
    }
    let secrets = secret_store(paths, settings);
    let provider = registry::from_settings(
        settings,
        provider_id,
        &secrets,
        HttpSettings::from_agent(&settings.agent),
    )?;
    Ok(Arc::new(ModelAdapter::new(provider, model.to_owned())))
}

/// What `memory status` says when the memory's own provider cannot be built (no API key,
/// unknown provider, …): the memory's provider is named, then why.
pub(super) fn memory_provider_problem(settings: &Settings, error: &EngineError) -> String {
    let (id, _) = settings.effective_observer();
    let message = error.to_string();
    let no_key = format!("no API key for provider {id:?}");
    match message.strip_prefix(&no_key) {
        Some(rest) => format!("the memory's provider {id:?} has no API key{rest}"),
        None => format!("the memory's provider {id:?} cannot be used: {message}"),
    }
}

/// The embedding client for hybrid knowledge retrieval: the memory's provider
/// (`observationalMemory.provider`, else the agent's) with `observationalMemory.embeddingModel`.
/// None when no embedding model is set, or when that provider has no embeddings API
/// (Anthropic; config validation reports it).
pub(super) fn embedder(
    paths: &AppPaths,
    settings: &Settings,
    agent_provider: &str,
    agent_secrets: &SecretStore,
) -> Result<Option<Arc<dyn Provider>>, EngineError> {
    let model = settings.observational_memory.embedding_model.as_str();
    if model.is_empty() {
        return Ok(None);
    }
    let (provider_id, _) = settings.effective_observer();
    let Some(provider) = settings.provider(provider_id) else {
        return Ok(None);
    };
    if provider.kind == ProviderType::Anthropic {
        tracing::warn!(provider = provider_id, model,
            "observationalMemory.embeddingModel is set but the provider has no embeddings API; retrieval stays full-text only");
        return Ok(None);
    }
    let own_secrets;
    let secrets = if provider_id == agent_provider {
        agent_secrets
    } else {
        own_secrets = secret_store(paths, settings);
        &own_secrets
    };
    let key = match secrets.get(provider_id) {
        Ok(found) => found.map(|(key, _)| key),
        Err(e) => {
            tracing::warn!(provider = provider_id, error = %e, "no key for the embedding provider");
            None
        }
    };
    let mut with_model = provider.clone();
    with_model.default_model = Some(model.to_owned());
    let client = registry::build(
        provider_id,
        &with_model,
        key,
        HttpSettings::from_agent(&settings.agent),
    )?;
    tracing::info!(
        provider = provider_id,
        model,
        "embeddings on: knowledge retrieval is hybrid (BM25 + cosine)"
    );
    Ok(Some(client))
}

/// The key store for this run. A key is read without probing the keychain first (an
/// environment variable is looked at before it); only storing a key probes, once per process.
pub(super) fn secret_store(paths: &AppPaths, settings: &Settings) -> SecretStore {
    SecretStore::probing_when_needed(settings.secrets.allow_file_store, &paths.config_dir)
}
