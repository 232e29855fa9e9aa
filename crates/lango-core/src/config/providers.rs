//! The `providers` section: id → `{ type, baseUrl?, defaultModel? }`.
//!
//! Owns id normalisation, type/alias resolution per entry, `baseUrl` checks and the
//! "API keys never live here" rule. It must not read or store keys (see `crate::secrets`)
//! nor check cross-section references (`settings` does that).

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::{describe, report_unknown_key, Fields, Report};
use super::provider_type::{default_base_url, ProviderType, TYPE_ALIASES, VALID_TYPES};
use super::url_check::check_base_url;

const KNOWN: &[&str] = &["type", "baseUrl", "defaultModel"];

/// One configured provider. Its id is the key it is stored under in [`Providers`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    #[serde(rename = "type")]
    pub kind: ProviderType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
}

impl ProviderSettings {
    pub fn new(kind: ProviderType) -> Self {
        Self {
            kind,
            base_url: None,
            default_model: None,
        }
    }

    /// `baseUrl` if set, else the type's default; `None` only for a (rejected) bare
    /// `openai-compatible`.
    pub fn effective_base_url(&self) -> Option<&str> {
        self.base_url
            .as_deref()
            .or_else(|| default_base_url(self.kind))
    }
}

/// Providers by normalised id. A `BTreeMap` so saved files and `show` output are stable.
pub type Providers = BTreeMap<String, ProviderSettings>;

/// Lowercased and trimmed: the form ids are stored and looked up in (REFERENCE §4.3 [FIX]).
pub fn normalize_provider_id(id: &str) -> String {
    id.trim().to_lowercase()
}

/// `apiKey`, `api_key`, `ApiKey`, `api-key`… all get the keychain explanation.
fn is_api_key_name(key: &str) -> bool {
    let squashed: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    squashed == "apikey"
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> Providers {
    let mut providers = Providers::new();
    let Some(section) = Fields::open_any_keys(value, "providers", report) else {
        return providers;
    };
    // raw spelling per normalised id, to name both entries when two collide.
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for (raw_id, entry) in section.map() {
        let path = section.path(raw_id);
        let id = normalize_provider_id(raw_id);
        if id.is_empty() {
            report.problem(&path, format!("{path}: a provider id must not be empty"));
            continue;
        }
        if let Some(first) = seen.insert(id.clone(), raw_id) {
            report.problem(
                &path,
                format!("providers.{first} and {path} are the same provider id \"{id}\" (ids ignore case and spaces)"),
            );
            continue;
        }
        if let Some(p) = parse_one(entry, &path, &id, report) {
            providers.insert(id, p);
        }
    }
    providers
}

fn parse_one(value: &Value, path: &str, id: &str, report: &mut Report) -> Option<ProviderSettings> {
    let Some(fields) = Fields::open_any_keys(Some(value), path, report) else {
        if value.is_null() {
            report.problem(path, format!("{path} must be an object, got null"));
        }
        return None;
    };
    for key in fields.map().keys() {
        if KNOWN.contains(&key.as_str()) {
            continue;
        }
        let key_path = fields.path(key);
        if is_api_key_name(key) {
            report.problem(
                &key_path,
                format!(
                    "{key_path} is not allowed: API keys are never stored in the settings file, they live in the OS keychain. \
                     Remove it and run `lango config set-key {id}`, or set the environment variable {}",
                    crate::secrets::env_var_name(id)
                ),
            );
        } else {
            report_unknown_key(&key_path, key, KNOWN, report);
        }
    }

    let kind = parse_type(&fields, report);
    let base_url = fields.string("baseUrl", report).and_then(|raw| {
        if raw.trim().is_empty() {
            return None; // a cleared input means "use the default"
        }
        let key_path = fields.path("baseUrl");
        match check_base_url(&raw) {
            Ok(url) => Some(url),
            Err(why) => {
                report.problem(
                    &key_path,
                    format!("{key_path} {why}: it must be an http:// or https:// URL with a host, got {}", describe(&Value::String(raw))),
                );
                None
            }
        }
    });
    let default_model = fields
        .string("defaultModel", report)
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty());

    let resolved = kind?;
    let base_url = base_url.or_else(|| resolved.implied_base_url.map(str::to_owned));
    if resolved.kind == ProviderType::OpenAiCompatible && base_url.is_none() {
        let key_path = fields.path("baseUrl");
        // A bad baseUrl was already reported; don't pile on a "missing" message.
        if fields
            .raw("baseUrl")
            .is_none_or(|v| v.as_str().is_some_and(|s| s.trim().is_empty()))
        {
            report.problem(
                &key_path,
                format!("{key_path} is required for type \"openai-compatible\" (the server's API root, e.g. http://localhost:8000/v1)"),
            );
        }
        return None;
    }
    Some(ProviderSettings {
        kind: resolved.kind,
        base_url,
        default_model,
    })
}

fn parse_type(
    fields: &Fields<'_>,
    report: &mut Report,
) -> Option<super::provider_type::ResolvedType> {
    let path = fields.path("type");
    let valid = VALID_TYPES.join(", ");
    let Some(name) = fields.string("type", report) else {
        if fields.raw("type").is_none() {
            report.problem(&path, format!("{path} is required; valid types: {valid}"));
        }
        return None;
    };
    let resolved = ProviderType::resolve(&name);
    if resolved.is_none() {
        report.problem(
            &path,
            format!(
                "{path} {} is not a known provider type; valid types: {valid} (aliases: {})",
                describe(&Value::String(name)),
                TYPE_ALIASES.join(", ")
            ),
        );
    }
    resolved
}
