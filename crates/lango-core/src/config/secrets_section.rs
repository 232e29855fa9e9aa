//! The `secrets` section: where API keys may be kept.
//!
//! Owns the `allowFileStore` opt-in flag. It must not hold or read keys themselves; those
//! never appear in the settings file (see `crate::secrets`).

use serde_json::Value;

use super::fields::{Fields, Report};

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretsSettings {
    /// Explicit opt-in to keeping API keys in a plaintext 0600 file when no OS keychain
    /// works. Off by default: Lango never falls back to plaintext silently.
    pub allow_file_store: bool,
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> SecretsSettings {
    let mut secrets = SecretsSettings::default();
    if let Some(f) = Fields::open(value, "secrets", &["allowFileStore"], report) {
        if let Some(b) = f.boolean("allowFileStore", report) {
            secrets.allow_file_store = b;
        }
    }
    secrets
}
