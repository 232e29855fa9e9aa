//! What can go wrong talking to a provider, in terms the UI can show and act on.

use std::time::Duration;

use super::overflow::{context_limit, ContextLimit};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// 401/403: the key is missing, wrong or lacks access.
    #[error("the provider rejected the API key: {message}")]
    Unauthorized { message: String },

    /// 404: usually an unknown model name or a wrong base URL.
    #[error("not found (check the model name and base URL): {message}")]
    NotFound { message: String },

    /// 429, after the retries ran out.
    #[error("rate limited{}: {message}", retry_after.map(|d| format!(" (retry after {} s)", d.as_secs())).unwrap_or_default())]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },

    /// 400/413/422: the provider's own explanation of what it did not accept.
    #[error("the provider did not accept the request: {message}")]
    BadRequest { message: String },

    /// 400/413: the prompt is longer than the model's context window, as the provider said
    /// (`limit`: the window and what was sent, when it named them; provider::overflow).
    #[error("the request is too long for the model's context{}: {message}", limit.window.map(|w| format!(" ({w} tokens)")).unwrap_or_default())]
    ContextExceeded {
        limit: ContextLimit,
        message: String,
    },

    /// 5xx (and Anthropic's 529), after the retries ran out.
    #[error("the provider had a server error ({status}): {message}")]
    Server { status: u16, message: String },

    /// Could not connect or the connection failed before a response.
    #[error("network error: {message}")]
    Network { message: String },

    /// No response, or no data for the idle-read timeout.
    #[error("timed out {phase}")]
    Timeout { phase: String },

    /// The stream broke after it had started (connection reset, an error event in an
    /// HTTP-200 stream, malformed data). Text received so far is the caller's to keep.
    #[error("the reply was interrupted: {message}")]
    Interrupted { message: String },

    /// The model or provider cannot do what was asked (e.g. tools).
    #[error("not supported: {message}")]
    Unsupported { message: String },

    /// The request was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,

    /// Misconfiguration found before sending (unknown provider, bad base URL).
    #[error("{message}")]
    Config { message: String },

    /// A provider that needs an API key has none, in the keychain or the environment. The
    /// text names the CLI's ways to add one; the desktop says "Settings → Providers".
    #[error("no API key for provider {provider:?}: store one with `lango config set-key {provider}` or set {env_var}")]
    MissingKey { provider: String, env_var: String },

    /// The key exists somewhere but could not be read (keychain locked or failing, key file
    /// unreadable): the secrets store's reason in `message`.
    #[error("cannot read the API key of provider {provider:?}: {message}")]
    KeyUnavailable { provider: String, message: String },
}

/// Why a connection could not be made, read from the OS or TLS library's error text (which
/// differs per OS: the Unix and Windows wordings are both known here). It picks the plain
/// sentence the user sees; the text itself stays available as the technical detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkFailure {
    /// Nothing listens at the address (a local server that is not running).
    Refused,
    /// The host name does not resolve (a typo, or no internet).
    AddressNotFound,
    /// The TLS handshake or the server's certificate failed.
    Secure,
    Other,
}

impl NetworkFailure {
    pub fn of(message: &str) -> Self {
        let m = message.to_lowercase();
        let any = |needles: &[&str]| needles.iter().any(|n| m.contains(n));
        if any(&[
            "connection refused",
            "actively refused",
            "os error 111",
            "os error 10061",
        ]) {
            Self::Refused
        } else if any(&[
            "dns error",
            "failed to lookup address",
            "name or service not known",
            "no such host",
            "nodename nor servname",
            "temporary failure in name resolution",
        ]) {
            Self::AddressNotFound
        } else if any(&["certificate", "tls", "ssl", "handshake"]) {
            Self::Secure
        } else {
            Self::Other
        }
    }
}

impl ProviderError {
    /// A stable machine code for the UI (`{code, message}`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unauthorized { .. } => "unauthorized",
            Self::NotFound { .. } => "not_found",
            Self::RateLimited { .. } => "rate_limited",
            Self::BadRequest { .. } => "bad_request",
            Self::ContextExceeded { .. } => "context_exceeded",
            Self::Server { .. } => "server_error",
            Self::Network { .. } => "network",
            Self::Timeout { .. } => "timeout",
            Self::Interrupted { .. } => "interrupted",
            Self::Unsupported { .. } => "unsupported",
            Self::Cancelled => "cancelled",
            Self::Config { .. } => "config",
            Self::MissingKey { .. } => "no_api_key",
            Self::KeyUnavailable { .. } => "secrets",
        }
    }

    /// Found in the settings or the keys before anything was sent: fixing the configuration
    /// (not retrying) is what helps.
    pub fn is_config(&self) -> bool {
        matches!(
            self,
            Self::Config { .. } | Self::MissingKey { .. } | Self::KeyUnavailable { .. }
        )
    }

    /// The same error with every occurrence of each secret replaced by `***`. Some servers
    /// quote the key they rejected; what the user sees (and logs) must never contain it.
    pub fn redacted(self, secrets: &[String]) -> Self {
        let scrub = |mut text: String| {
            for secret in secrets.iter().filter(|s| s.len() >= 4) {
                text = text.replace(secret.as_str(), "***");
            }
            text
        };
        match self {
            Self::Unauthorized { message } => Self::Unauthorized {
                message: scrub(message),
            },
            Self::NotFound { message } => Self::NotFound {
                message: scrub(message),
            },
            Self::RateLimited {
                retry_after,
                message,
            } => Self::RateLimited {
                retry_after,
                message: scrub(message),
            },
            Self::BadRequest { message } => Self::BadRequest {
                message: scrub(message),
            },
            Self::ContextExceeded { limit, message } => Self::ContextExceeded {
                limit,
                message: scrub(message),
            },
            Self::Server { status, message } => Self::Server {
                status,
                message: scrub(message),
            },
            Self::Network { message } => Self::Network {
                message: scrub(message),
            },
            Self::Interrupted { message } => Self::Interrupted {
                message: scrub(message),
            },
            Self::Unsupported { message } => Self::Unsupported {
                message: scrub(message),
            },
            Self::Config { message } => Self::Config {
                message: scrub(message),
            },
            Self::KeyUnavailable { provider, message } => Self::KeyUnavailable {
                provider,
                message: scrub(message),
            },
            other @ (Self::Timeout { .. } | Self::Cancelled | Self::MissingKey { .. }) => other,
        }
    }

    /// A stream that ended (EOF) without the provider's end marker: the text so far may be
    /// only part of the reply, so it must never pass for complete.
    pub fn cut_off() -> Self {
        Self::Interrupted {
            message: "the connection ended before the provider said the reply was complete".into(),
        }
    }

    /// Whether trying again (before any byte of a response) may help.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Network { .. }
        )
    }

    /// Builds the error for a non-success HTTP status from the response body, pulling out the
    /// provider's own message (`{"error":{"message"}}`, `{"error":"…"}`, `{"message"}`).
    pub fn from_status(status: u16, body: &str, retry_after: Option<Duration>) -> Self {
        let message = error_message(body);
        match status {
            401 | 403 => Self::Unauthorized { message },
            404 => Self::NotFound { message },
            429 => Self::RateLimited {
                retry_after: retry_after.or_else(|| gemini_retry_delay(body)),
                message,
            },
            400 | 409 | 413 | 422 => {
                if message.to_lowercase().contains("does not support tools") {
                    Self::Unsupported { message }
                } else if let Some(limit) = context_limit(body, &message) {
                    Self::ContextExceeded { limit, message }
                } else {
                    Self::BadRequest { message }
                }
            }
            _ => Self::Server { status, message },
        }
    }
}

/// The human part of an error body, or the body itself (trimmed, capped) when it has none.
pub fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let from_json = parsed.as_ref().and_then(|v| {
        let e = v.get("error").unwrap_or(v);
        e.get("message")
            .and_then(|m| m.as_str())
            .map(str::to_string)
            .or_else(|| e.as_str().map(str::to_string))
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        return "(no details in the response)".into();
    }
    text.chars().take(500).collect()
}

/// Gemini puts the retry delay in the body: `details[].retryDelay: "30s"`.
fn gemini_retry_delay(body: &str) -> Option<Duration> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    v.get("error")?
        .get("details")?
        .as_array()?
        .iter()
        .find_map(|d| {
            let s = d.get("retryDelay")?.as_str()?;
            let secs: f64 = s.trim_end_matches('s').parse().ok()?;
            Some(Duration::from_secs_f64(secs.max(0.0)))
        })
}
