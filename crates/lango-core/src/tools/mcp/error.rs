//! What can go wrong with an MCP server, in words a user can act on.

/// A server that could not start, or a call that could not be made.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum McpError {
    #[error("command not found: {command}. {hint}")]
    CommandNotFound { command: String, hint: String },
    #[error("could not start \"{command}\": {reason}")]
    Spawn { command: String, reason: String },
    #[error("the server did not finish starting within {seconds} s{stderr}")]
    StartTimeout { seconds: u64, stderr: String },
    #[error("the server failed while starting: {reason}{stderr}")]
    Initialize { reason: String, stderr: String },
    #[error("the secret \"{name}\" referenced as keychain:{name} is not stored (add it with `lango config set-key {name}` or in Settings)")]
    MissingSecret { name: String },
    #[error("the secret \"{name}\" could not be read: {reason}")]
    Secret { name: String, reason: String },
    #[error("the server \"{0}\" is not running")]
    NotRunning(String),
    #[error("the server \"{server}\" stopped while the tool was running{stderr}")]
    ServerGone { server: String, stderr: String },
    /// A remote server: its connection ended, which says nothing of the server itself.
    #[error("the connection to the server \"{server}\" was lost while the tool was running (it may have run the tool all the same)")]
    ConnectionLost { server: String },
    /// A remote server no one answered at its address: the call was not made.
    #[error("could not reach the server \"{server}\" ({cause}); the tool did not run")]
    Unreachable { server: String, cause: String },
    #[error("the server \"{server}\" answered with an error: {message}")]
    Protocol { server: String, message: String },
    #[error("the answer from \"{server}\" was too large to read: {}more than the {limit} Lango accepts from a tool. Ask for a smaller part (a range of lines, a narrower query)", .size.as_deref().map(|s| format!("{s}, ")).unwrap_or_default())]
    AnswerTooLarge {
        server: String,
        /// Its whole size, when the transport saw its end (stdio does; HTTP stops at the limit).
        size: Option<String>,
        limit: String,
    },
    #[error("no MCP server is named \"{0}\"")]
    UnknownServer(String),
}

impl McpError {
    /// A stable code for the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Self::CommandNotFound { .. } => "command_not_found",
            Self::Spawn { .. } => "spawn_failed",
            Self::StartTimeout { .. } => "start_timeout",
            Self::Initialize { .. } => "initialize_failed",
            Self::MissingSecret { .. } | Self::Secret { .. } => "secret",
            Self::NotRunning(_) => "not_running",
            Self::ServerGone { .. } => "server_gone",
            Self::ConnectionLost { .. } => "connection_lost",
            Self::Unreachable { .. } => "unreachable",
            Self::Protocol { .. } => "protocol",
            Self::AnswerTooLarge { .. } => "answer_too_large",
            Self::UnknownServer(_) => "unknown_server",
        }
    }
}

/// `": <last stderr lines>"` for messages, or nothing.
pub(crate) fn stderr_suffix(lines: &[String]) -> String {
    let tail: Vec<&str> = lines
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(String::as_str)
        .collect();
    if tail.is_empty() {
        String::new()
    } else {
        format!(" (its last output: {})", tail.join(" / "))
    }
}
