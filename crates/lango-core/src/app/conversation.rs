//! A conversation's own model and settings from the desktop: read them with what they
//! resolve to and what the conversation's replies cost, change them, list a provider's
//! models for the composer's picker. The rules are `conversation`'s; this is orchestration.

use super::dto::{ConversationView, ModelEntry, ProviderChoice};
use super::{App, AppError};
use crate::conversation::{reply_cost, ConversationSettings, ConversationUsage};
use crate::store::{StoreError, StoredMessage};

impl App {
    /// The conversation's own settings, what its next turn uses, the providers it may switch
    /// to and its totals. A conversation not started yet has the defaults.
    pub async fn conversation_settings(&self, key: &str) -> Result<ConversationView, AppError> {
        let own = match self.inner.store.find_session(key).await? {
            Some(s) => s.chat_settings,
            None => ConversationSettings::default(),
        };
        self.conversation_view(key, own).await
    }

    /// Replaces the conversation's own settings (creating the conversation if needed); the
    /// next turn uses them. A value out of range, an unknown provider or a model of another
    /// vendor is refused in plain words and nothing is saved.
    pub async fn set_conversation_settings(
        &self,
        key: &str,
        own: ConversationSettings,
    ) -> Result<ConversationView, AppError> {
        let own = own.normalized();
        let settings = self.inner.running.read().await.settings.clone();
        own.check(&settings)
            .map_err(|e| AppError::new("invalid_conversation_settings", e.to_string()))?;
        self.inner.store.get_or_create_session(key).await?;
        self.inner.store.set_chat_settings(key, &own).await?;
        self.conversation_view(key, own).await
    }

    /// The models of one configured provider (the composer's picker lists every provider).
    pub async fn list_models_of(&self, provider: &str) -> Result<Vec<ModelEntry>, AppError> {
        let document = self.inner.running.read().await.settings.to_value();
        self.test_connection(&document, provider, None).await
    }

    /// Each reply's cost from the current prices (shown, never stored).
    pub(super) async fn with_costs(&self, mut messages: Vec<StoredMessage>) -> Vec<StoredMessage> {
        let running = self.inner.running.read().await;
        let prices = &running.settings.prices;
        if prices.is_empty() {
            return messages;
        }
        for reply in messages.iter_mut().filter_map(|m| m.reply.as_mut()) {
            reply.cost = reply_cost(reply, prices);
        }
        messages
    }

    async fn conversation_view(
        &self,
        key: &str,
        own: ConversationSettings,
    ) -> Result<ConversationView, AppError> {
        let replies = match self.inner.store.replies_of(key).await {
            Err(StoreError::NotFound { .. }) => Vec::new(),
            other => other?,
        };
        let settings = self.inner.running.read().await.settings.clone();
        Ok(ConversationView {
            effective: own.resolve(&settings),
            providers: settings
                .providers
                .iter()
                .map(|(id, p)| ProviderChoice {
                    id: id.clone(),
                    kind: p.kind.as_str().to_owned(),
                    default_model: p.default_model.clone().unwrap_or_default(),
                })
                .collect(),
            usage: ConversationUsage::of(&replies, &settings.prices),
            settings: own,
        })
    }
}
