//! The error every app operation returns, as the desktop UI receives it:
//! `{ "code": "<stable_snake_case>", "message": "<sentence for the user>" }`.
//!
//! Owns the mapping from the engine's typed errors to those codes. Messages come from the
//! engine's own `Display` impls, or for network, provider, keychain and database-damage
//! failures a plain sentence (`plain`) with that text kept as `detail`; neither ever
//! contains an API key (provider errors are redacted at the HTTP layer).

use serde::Serialize;

use super::plain;

use crate::agent::AgentError;
use crate::config::ConfigError;
use crate::engine::EngineError;
use crate::paths::PathsError;
use crate::provider::ProviderError;
use crate::secrets::SecretsError;
use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    /// Stable, machine-readable (snake_case): part of the UI contract.
    pub code: String,
    /// Safe to show as is: a plain sentence, the headline.
    pub message: String,
    /// The technical text behind it (an OS or HTTP error), for a folded "Details".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl AppError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            detail: None,
        }
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        let code = match &e {
            StoreError::NotFound { .. } => "not_found",
            StoreError::Duplicate { .. } => "duplicate",
            StoreError::Constraint(_) => "conflict",
            StoreError::Corrupt { .. } => "database_corrupt",
            StoreError::TooNew { .. } => "database_too_new",
            _ => "store",
        };
        match plain::store(&e) {
            Some(headline) => Self::new(code, headline).with_detail(e.to_string()),
            None => Self::new(code, e.to_string()),
        }
    }
}

impl From<ProviderError> for AppError {
    fn from(e: ProviderError) -> Self {
        match plain::provider(&e) {
            Some(headline) => Self::new(e.code(), headline).with_detail(e.to_string()),
            None => Self::new(e.code(), e.to_string()),
        }
    }
}

impl From<AgentError> for AppError {
    fn from(e: AgentError) -> Self {
        match e {
            AgentError::Provider(p) => p.into(),
            AgentError::Store(s) => s.into(),
            other => Self::new(other.code(), other.to_string()),
        }
    }
}

impl From<ConfigError> for AppError {
    fn from(e: ConfigError) -> Self {
        Self::new("invalid_settings", e.to_string())
    }
}

impl From<SecretsError> for AppError {
    fn from(e: SecretsError) -> Self {
        let (code, headline, detail) = plain::secrets(&e);
        let error = Self::new(code, headline);
        match detail {
            Some(d) => error.with_detail(d),
            None => error,
        }
    }
}

impl From<PathsError> for AppError {
    fn from(e: PathsError) -> Self {
        Self::new("paths_unavailable", e.to_string())
    }
}

impl From<EngineError> for AppError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Config(c) => c.into(),
            EngineError::Store(s) => s.into(),
            EngineError::Provider(p) => p.into(),
            e @ EngineError::NoProvider { .. } => Self::new("no_provider", e.to_string()),
        }
    }
}
