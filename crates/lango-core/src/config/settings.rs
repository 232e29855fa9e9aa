//! The whole settings document: its sections, cross-section rules and resolved accessors.
//!
//! Owns `Settings`, `validate_value` and the rules that span sections (provider references).
//! It must not touch the filesystem (`file` does) nor know per-field rules (section modules).

use serde_json::Value;

use super::agent::{self, AgentSettings};
use super::appearance::{self, AppearanceSettings};
use super::backups_section::{self, BackupSettings};
use super::error::Problem;
use super::fields::{Fields, Report};
use super::mcp::{self, McpServers};
use super::memory::{self, ObservationalMemorySettings};
use super::prices_section::{self, Prices};
use super::provider_type::ProviderType;
use super::providers::{self, ProviderSettings, Providers};
use super::secrets_section::{self, SecretsSettings};
use super::tools_section::{self, ToolsSettings};
use super::updates_section::{self, UpdateSettings};

const SECTIONS: &[&str] = &[
    "agent",
    "providers",
    "observationalMemory",
    "secrets",
    "appearance",
    "tools",
    "mcpServers",
    "backups",
    "updates",
    "prices",
];

/// The effective settings: every field present, defaults filled in. Serialises to the
/// camelCase file format.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub agent: AgentSettings,
    pub providers: Providers,
    pub observational_memory: ObservationalMemorySettings,
    pub secrets: SecretsSettings,
    pub appearance: AppearanceSettings,
    pub tools: ToolsSettings,
    pub backups: BackupSettings,
    /// The release feed the About screen and `lango update check` read (off by default).
    pub updates: UpdateSettings,
    /// MCP servers by name, in Claude Desktop's format (see `config::mcp`).
    #[serde(skip_serializing_if = "McpServers::is_empty")]
    pub mcp_servers: McpServers,
    /// What models cost, per million tokens (see `config::prices_section`).
    #[serde(skip_serializing_if = "Prices::is_empty")]
    pub prices: Prices,
}

/// Checks a settings document the way loading does and builds it. `Ok` carries warnings
/// (the settings still work); `Err` carries every problem found. The desktop settings
/// screen validates unsaved edits with this, so it shows the same messages as `load`.
pub fn validate_value(value: &Value) -> Result<(Settings, Vec<String>), Vec<Problem>> {
    let mut report = Report::default();
    let settings = match Fields::open(Some(value), "", SECTIONS, &mut report) {
        Some(root) => {
            let settings = Settings {
                agent: agent::parse(root.raw("agent"), &mut report),
                providers: providers::parse(root.raw("providers"), &mut report),
                observational_memory: memory::parse(root.raw("observationalMemory"), &mut report),
                secrets: secrets_section::parse(root.raw("secrets"), &mut report),
                appearance: appearance::parse(root.raw("appearance"), &mut report),
                tools: tools_section::parse(root.raw("tools"), &mut report),
                backups: backups_section::parse(root.raw("backups"), &mut report),
                updates: updates_section::parse(root.raw("updates"), &mut report),
                mcp_servers: mcp::parse(root.raw("mcpServers"), &mut report),
                prices: prices_section::parse(root.raw("prices"), &mut report),
            };
            check_references(&settings, &root, &mut report);
            settings
        }
        None => Settings::default(),
    };
    if report.problems.is_empty() {
        Ok((settings, report.warnings))
    } else {
        Err(report.problems)
    }
}

/// Provider ids named outside `providers` must exist there.
fn check_references(s: &Settings, root: &Fields<'_>, report: &mut Report) {
    // A provider entry that failed to parse was already reported; don't also call the
    // reference to it unknown.
    let declared = |id: &str| {
        root.raw("providers")
            .and_then(Value::as_object)
            .is_some_and(|m| m.keys().any(|k| providers::normalize_provider_id(k) == id))
    };
    let configured = || {
        if s.providers.is_empty() {
            "no providers are configured".to_owned()
        } else {
            let ids: Vec<&str> = s.providers.keys().map(String::as_str).collect();
            format!("configured providers: {}", ids.join(", "))
        }
    };

    let agent_id = s.agent.provider.as_str();
    if !agent_id.is_empty() && !declared(agent_id) {
        report.problem(
            "agent.provider",
            format!(
                "agent.provider \"{agent_id}\" is not a configured provider ({})",
                configured()
            ),
        );
    } else if agent_id.is_empty() && s.providers.len() > 1 {
        report.warn(format!(
            "agent.provider is empty and {} providers are configured; set it to choose one ({})",
            s.providers.len(),
            configured()
        ));
    }

    let om = &s.observational_memory;
    if !om.provider.is_empty() && !declared(&om.provider) {
        let message = format!(
            "observationalMemory.provider \"{}\" is not a configured provider ({})",
            om.provider,
            configured()
        );
        // Only an error when memory would actually call it.
        if om.enabled {
            report.problem("observationalMemory.provider", message);
        } else {
            report.warn(message);
        }
    }
    check_embedding_model(s, report);
}

/// `observationalMemory.embeddingModel` needs a memory provider with an embeddings API.
fn check_embedding_model(s: &Settings, report: &mut Report) {
    const FIELD: &str = "observationalMemory.embeddingModel";
    let om = &s.observational_memory;
    let model = om.embedding_model.as_str();
    if model.is_empty() {
        return;
    }
    if !om.enabled {
        report.warn(format!(
            "{FIELD} \"{model}\" has no effect while observationalMemory.enabled is false"
        ));
        return;
    }
    let (provider_id, _) = s.effective_observer();
    // A missing or unknown provider is reported elsewhere.
    let Some(provider) = s.provider(provider_id) else {
        return;
    };
    match provider.kind {
        ProviderType::Anthropic => report.problem(
            FIELD,
            format!(
                "{FIELD} \"{model}\" needs a provider with an embeddings API, but the memory's provider \
                 \"{provider_id}\" is {}, which has none: set observationalMemory.provider to an \
                 OpenAI, OpenAI-compatible, Gemini or Ollama provider, or set {FIELD} to \"\" \
                 (knowledge retrieval is then full-text only)",
                provider.kind.as_str()
            ),
        ),
        ProviderType::Gemini if !model.contains("embedding") => report.warn(format!(
            "{FIELD} \"{model}\" does not look like a Gemini embedding model (such as \
             \"gemini-embedding-001\"); Gemini's default embedding model is used instead"
        )),
        _ => {}
    }
}

impl Settings {
    /// Parses and validates a settings document (see [`validate_value`]).
    pub fn from_value(value: &Value) -> Result<(Self, Vec<String>), Vec<Problem>> {
        validate_value(value)
    }

    /// The settings as a JSON value in the file format.
    pub fn to_value(&self) -> Value {
        // Serialising plain structs and string-keyed maps cannot fail. A NaN temperature
        // (only possible by building Settings by hand) becomes null; `save` refuses it.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Pretty JSON of the effective settings, as `lango config show` prints it.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(&self.to_value()).unwrap_or_default()
    }

    /// Looks a provider up by id, ignoring case and surrounding spaces.
    pub fn provider(&self, id: &str) -> Option<&ProviderSettings> {
        self.providers.get(&providers::normalize_provider_id(id))
    }

    /// The agent's provider id: `agent.provider`, or the only configured provider when that
    /// is empty. `None` when nothing is chosen (no providers, or several and none picked).
    pub fn agent_provider_id(&self) -> Option<&str> {
        if !self.agent.provider.is_empty() {
            return Some(self.agent.provider.as_str());
        }
        match self.providers.keys().next() {
            Some(only) if self.providers.len() == 1 => Some(only.as_str()),
            _ => None,
        }
    }

    /// `(provider id, model)` the chat uses. Model `""` = the vendor's default; otherwise
    /// `agent.model`, else the provider's `defaultModel`. Provider `""` = none chosen.
    pub fn effective_agent(&self) -> (&str, &str) {
        let provider = self.agent_provider_id().unwrap_or("");
        let model = if self.agent.model.is_empty() {
            self.default_model_of(provider)
        } else {
            self.agent.model.as_str()
        };
        (provider, model)
    }

    /// `(provider id, model)` the observer/reflector use. An empty OM provider means the
    /// agent's provider and model. An OM provider of its own with an empty model uses that
    /// provider's `defaultModel` (or vendor default ""), never the agent's model, which may
    /// belong to another vendor.
    pub fn effective_observer(&self) -> (&str, &str) {
        let om = &self.observational_memory;
        let (agent_provider, agent_model) = self.effective_agent();
        let provider = if om.provider.is_empty() {
            agent_provider
        } else {
            om.provider.as_str()
        };
        let model = if !om.model.is_empty() {
            om.model.as_str()
        } else if provider == agent_provider {
            agent_model
        } else {
            self.default_model_of(provider)
        };
        (provider, model)
    }

    /// A provider's `defaultModel`, `""` (the vendor default) when it has none.
    pub fn default_model_of(&self, provider: &str) -> &str {
        self.providers
            .get(provider)
            .and_then(|p| p.default_model.as_deref())
            .unwrap_or("")
    }
}
