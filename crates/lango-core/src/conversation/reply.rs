//! Who wrote a reply: stored with each assistant message.

use serde::{Deserialize, Serialize};

/// Who wrote an assistant reply: the provider id and model the request went to, and the
/// provider's own token counts when it reported them (never estimated here).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyInfo {
    pub provider: String,
    /// `""` when the request named none and the provider has no default configured.
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// US dollars, from the prices in Settings: worked out when shown, never stored (a
    /// price edited later applies to earlier replies too).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}
