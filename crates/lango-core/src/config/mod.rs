//! Lango's settings file (`settings.json`, camelCase keys) at `AppPaths::settings_file()`.
//!
//! Owns reading, validating, serialising and atomically saving the settings. It must not
//! hold API keys (they live in `crate::secrets`; an `apiKey` in the file is an error) and
//! must not resolve paths itself (`crate::paths` does).
//!
//! Loading parses to a `serde_json::Value`, walks it collecting every problem at once
//! (unknown keys by dotted path, wrong types, rule violations), then builds [`Settings`].
//! A malformed file is reported and left untouched, never reset.

mod agent;
mod appearance;
mod backups_section;
mod error;
mod fields;
mod file;
mod mcp;
mod memory;
mod prices_section;
mod provider_type;
mod providers;
mod secrets_section;
mod settings;
mod tools_section;
mod updates_section;
mod url_check;

pub use agent::{
    AgentSettings, SubAgentSettings, DEFAULT_CONNECT_TIMEOUT_SECS, DEFAULT_IDLE_TIMEOUT_SECS,
    DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_SECS,
    DEFAULT_SYSTEM_PROMPT, DEFAULT_TEMPERATURE, DEFAULT_TOOL_TIMEOUT_SECS,
};
pub use appearance::{AppearanceSettings, Theme};
pub use backups_section::{BackupSettings, DEFAULT_BACKUPS_KEPT};
pub use error::{ConfigError, Problem};
pub use file::{load, load_from, save, save_to, Loaded};
pub use mcp::{McpServerSettings, McpServers, McpTransport, DEFAULT_MCP_CALL_TIMEOUT_SECS};
pub use memory::{
    ObservationalMemorySettings, DEFAULT_MAX_MESSAGE_TOKEN_BUDGET,
    DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT, DEFAULT_MAX_REFLECTIONS_IN_CONTEXT,
    DEFAULT_MEMORY_TOKEN_BUDGET, DEFAULT_MESSAGE_TOKEN_THRESHOLD,
    DEFAULT_OBSERVATION_TOKEN_THRESHOLD, DEFAULT_REFLECTION_CONSOLIDATION_THRESHOLD,
};
pub use prices_section::{Price, Prices};
pub use provider_type::{
    default_base_url, ProviderType, ResolvedType, GITHUB_MODELS_BASE_URL, OLLAMA_NATIVE_BASE_URL,
    TYPE_ALIASES, VALID_TYPES,
};
pub use providers::{normalize_provider_id, ProviderSettings, Providers};
pub use secrets_section::SecretsSettings;
pub use settings::{validate_value, Settings};
pub use tools_section::{
    ToolsSettings, DEFAULT_MAX_TOOL_CALLS_PER_TURN, DEFAULT_TOOL_OUTPUT_TOKENS,
};
pub use updates_section::UpdateSettings;
