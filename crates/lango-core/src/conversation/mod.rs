//! A conversation's own model and generation settings, and what its replies cost.
//!
//! Owns `settings` (the per-conversation overrides of the Settings defaults: provider,
//! model, temperature, max output tokens, system prompt — checked, and resolved into what
//! the next turn uses) and `cost` (prices → a reply's cost and a conversation's totals).
//! It must not touch the store or the providers: the store keeps the overrides as JSON, the
//! engine turns them into a turn's request.

mod cost;
mod reply;
mod settings;

pub use cost::{reply_cost, ConversationUsage};
pub use reply::ReplyInfo;
pub use settings::{ConversationSettings, ConversationSettingsError, EffectiveSettings};
