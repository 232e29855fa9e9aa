//! Exit codes and the one-line error report: what failed and what to do, never a backtrace.

use std::process::ExitCode;

/// 0 ok, 2 usage, 3 config, 4 provider, 5 store, 6 not found, 7 `lango doctor` found the
/// database damaged (or from a newer Lango), 8 the update feed could not be read, 100
/// `lango update check` found a newer version; a signal that stopped a chat
/// gives the shell's 128 + its number (documented in the README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Usage = 2,
    Config = 3,
    Provider = 4,
    Store = 5,
    /// A conversation (or other named thing) that does not exist.
    NotFound = 6,
    /// `lango doctor` found the database unusable.
    Damaged = 7,
    /// `lango update check`: the release feed could not be fetched or read.
    UpdateFeed = 8,
    /// `lango update check`: a newer version exists (like `dnf check-update`'s 100).
    UpdateAvailable = 100,
    Internal = 1,
    /// The user stopped the reply with Ctrl-C (the shell convention for SIGINT).
    Interrupted = 130,
    /// SIGTERM stopped the chat (128 + 15).
    Terminated = 143,
    /// SIGHUP — the terminal went away — stopped the chat (128 + 1).
    HungUp = 129,
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

    /// A reply stopped by a signal: what arrived is kept, marked interrupted.
    pub fn stopped(stop: crate::signals::Stop) -> Self {
        let by = match stop {
            crate::signals::Stop::Interrupt => String::new(),
            other => format!(" by {}", other.name()),
        };
        Self::new(
            stop.kind(),
            format!("stopped{by}; the reply so far is kept, marked interrupted"),
        )
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
            E::Provider(p) if p.is_config() => Kind::Config,
            E::Provider(lango_core::provider::ProviderError::Cancelled) | E::Cancelled => {
                Kind::Interrupted
            }
            E::Provider(_) => Kind::Provider,
            E::Store(e) => store_kind(e),
            _ => Kind::Internal,
        };
        let mut message = e.to_string();
        if matches!(
            &e,
            E::Provider(lango_core::provider::ProviderError::ContextExceeded { .. })
        ) {
            // The older messages were already left out (the engine retried with less).
            message.push_str(CONTEXT_HINT);
        }
        Self::new(kind, message)
    }
}

/// What a user can change when even the newest message does not fit the model's context.
const CONTEXT_HINT: &str = "\n(the older messages were already left out; shorten the message, turn off MCP servers or tools you do not need (\"disabled\", \"disabledTools\"), lower observationalMemory.memoryTokenBudget or agent.maxTokens, or use a model with a larger context)";

impl From<lango_core::engine::EngineError> for CliError {
    fn from(e: lango_core::engine::EngineError) -> Self {
        use lango_core::engine::EngineError as E;
        let kind = match &e {
            E::Config(_) | E::NoProvider { .. } => Kind::Config,
            E::Provider(p) if p.is_config() => Kind::Config,
            E::Provider(_) => Kind::Provider,
            E::Store(e) => store_kind(e),
        };
        Self::new(kind, e.to_string())
    }
}

impl From<lango_core::store::StoreError> for CliError {
    fn from(e: lango_core::store::StoreError) -> Self {
        let mut message = e.to_string();
        if matches!(&e, lango_core::store::StoreError::NotFound { what } if what.starts_with("session"))
        {
            message.push_str("; `lango sessions list` shows the conversations");
        }
        Self::new(store_kind(&e), message)
    }
}

/// A missing conversation is the caller's mistake, not a database failure.
fn store_kind(e: &lango_core::store::StoreError) -> Kind {
    match e {
        lango_core::store::StoreError::NotFound { .. } => Kind::NotFound,
        _ => Kind::Store,
    }
}

impl From<lango_core::store::recovery::RecoveryError> for CliError {
    fn from(e: lango_core::store::recovery::RecoveryError) -> Self {
        use lango_core::store::recovery::RecoveryError as E;
        let kind = match &e {
            E::NoSuchBackup { .. } => Kind::NotFound,
            _ => Kind::Store,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<lango_core::import::ImportError> for CliError {
    fn from(e: lango_core::import::ImportError) -> Self {
        use lango_core::import::ImportError as E;
        let kind = match &e {
            E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => Kind::NotFound,
            E::Store(s) => store_kind(s),
            E::Cancelled => Kind::Interrupted,
            // The file is not what `lango import` takes.
            _ => Kind::Usage,
        };
        Self::new(kind, e.to_string())
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

/// Prints the error (an empty message = the command already said everything) and exits.
pub fn report(e: &CliError) -> ExitCode {
    if !e.message.is_empty() {
        crate::terminal::errln!("lango: {}", e.message);
    }
    ExitCode::from(e.kind as u8)
}
