//! Provider types, their aliases and their default base URLs (REFERENCE §4.3).
//!
//! Owns the closed list of wire protocols Lango speaks. It must not read settings or know
//! about API keys; the `providers` section module parses the file and calls in here.

use std::fmt;

/// Which client a provider needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ProviderType {
    #[serde(rename = "openai")]
    OpenAi,
    /// Any server speaking the OpenAI chat API at a user-given `baseUrl` (GitHub Models, vLLM…).
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    #[serde(rename = "ollama")]
    Ollama,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
}

/// Canonical type names, in the order error messages list them.
pub const VALID_TYPES: &[&str] = &[
    "openai",
    "openai-compatible",
    "ollama",
    "anthropic",
    "gemini",
];

/// Accepted alternative spellings (the reference's registry aliases).
pub const TYPE_ALIASES: &[&str] = &[
    "gpt", "chatgpt", "claude", "llama", "bard", "google", "github",
];

/// GitHub Models' endpoint; the `github` alias fills it in so users need not know it.
pub const GITHUB_MODELS_BASE_URL: &str = "https://models.inference.ai.azure.com";

/// Ollama's own (non-OpenAI) API root, for native calls such as listing pulled models.
pub const OLLAMA_NATIVE_BASE_URL: &str = "http://localhost:11434";

/// What a `type` string resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedType {
    pub kind: ProviderType,
    /// A base URL the alias implies (only `github`), used when the file gives none.
    pub implied_base_url: Option<&'static str>,
}

impl ProviderType {
    /// Parses a type name or alias, ignoring case and surrounding spaces.
    pub fn resolve(name: &str) -> Option<ResolvedType> {
        let plain = |kind| ResolvedType {
            kind,
            implied_base_url: None,
        };
        let resolved = match name.trim().to_lowercase().as_str() {
            "openai" | "gpt" | "chatgpt" => plain(Self::OpenAi),
            "openai-compatible" => plain(Self::OpenAiCompatible),
            "github" => ResolvedType {
                kind: Self::OpenAiCompatible,
                implied_base_url: Some(GITHUB_MODELS_BASE_URL),
            },
            "ollama" | "llama" => plain(Self::Ollama),
            "anthropic" | "claude" => plain(Self::Anthropic),
            "gemini" | "google" | "bard" => plain(Self::Gemini),
            _ => return None,
        };
        Some(resolved)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::OpenAiCompatible => "openai-compatible",
            Self::Ollama => "ollama",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// Whether the provider refuses requests without an API key (Ollama runs locally).
    pub fn needs_api_key(self) -> bool {
        !matches!(self, Self::Ollama)
    }
}

impl fmt::Display for ProviderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The base URL used when a provider sets none. `None` for `openai-compatible`, which has no
/// sensible default and therefore requires `baseUrl`. Ollama's is its OpenAI-compatible
/// endpoint; see [`OLLAMA_NATIVE_BASE_URL`] for its native API.
pub fn default_base_url(kind: ProviderType) -> Option<&'static str> {
    match kind {
        ProviderType::OpenAi => Some("https://api.openai.com/v1"),
        ProviderType::OpenAiCompatible => None,
        ProviderType::Ollama => Some("http://localhost:11434/v1"),
        ProviderType::Anthropic => Some("https://api.anthropic.com"),
        ProviderType::Gemini => Some("https://generativelanguage.googleapis.com/v1beta"),
    }
}
