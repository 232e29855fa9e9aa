//! Exit codes and the one-line error report: what failed and what to do, never a backtrace.

use std::process::ExitCode;

/// 0 ok, 2 usage, 3 config, 4 provider, 5 store (documented in the README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Usage = 2,
    Config = 3,
    Provider = 4,
    Store = 5,
    Internal = 1,
    /// The user stopped the reply with Ctrl-C (the shell convention for SIGINT).
    Interrupted = 130,
}

#[derive(Debug)]
pub struct CliError {
    pub kind: Kind,
    pub message: String,
}

impl CliError {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Kind::Internal, message)
    }
}

impl From<lango_core::config::ConfigError> for CliError {
    fn from(e: lango_core::config::ConfigError) -> Self {
        Self::new(Kind::Config, e.to_string())
    }
}

impl From<lango_core::agent::AgentError> for CliError {
    fn from(e: lango_core::agent::AgentError) -> Self {
        use lango_core::agent::AgentError as E;
        let kind = match &e {
            E::Provider(lango_core::provider::ProviderError::Config { .. }) => Kind::Config,
            E::Provider(lango_core::provider::ProviderError::Cancelled) | E::Cancelled => {
                Kind::Interrupted
            }
            E::Provider(_) => Kind::Provider,
            E::Store(_) => Kind::Store,
            _ => Kind::Internal,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<lango_core::engine::EngineError> for CliError {
    fn from(e: lango_core::engine::EngineError) -> Self {
        use lango_core::engine::EngineError as E;
        let kind = match &e {
            E::Config(_)
            | E::NoProvider { .. }
            | E::Provider(lango_core::provider::ProviderError::Config { .. }) => Kind::Config,
            E::Provider(_) => Kind::Provider,
            E::Store(_) => Kind::Store,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<lango_core::store::StoreError> for CliError {
    fn from(e: lango_core::store::StoreError) -> Self {
        Self::new(Kind::Store, e.to_string())
    }
}

impl From<lango_core::secrets::SecretsError> for CliError {
    fn from(e: lango_core::secrets::SecretsError) -> Self {
        Self::new(Kind::Config, e.to_string())
    }
}

impl From<lango_core::paths::PathsError> for CliError {
    fn from(e: lango_core::paths::PathsError) -> Self {
        Self::new(Kind::Config, e.to_string())
    }
}

pub fn report(e: &CliError) -> ExitCode {
    eprintln!("lango: {}", e.message);
    ExitCode::from(e.kind as u8)
}
