//! Plain-words headlines for the errors a desktop user meets most: a provider that cannot be
//! reached or refuses the key, a missing or failing OS keychain, and a damaged database.
//!
//! Owns only the sentence per typed error kind. The engine's own text ("tcp connect error …
//! os error 111", "DBus error …") is kept by the caller as the folded technical detail;
//! kinds without a better sentence keep their `Display` as the headline.

use crate::provider::overflow::number_after;
use crate::provider::{NetworkFailure, ProviderError};
use crate::secrets::SecretsError;
use crate::store::StoreError;

/// The headline for a provider error, or `None` when its own message already is one.
pub(super) fn provider(e: &ProviderError) -> Option<String> {
    let text = match e {
        ProviderError::Network { message } => match NetworkFailure::of(message) {
            NetworkFailure::Refused => {
                "Nothing answered at the provider's address. Check that the server is running and the base URL is right."
            }
            NetworkFailure::AddressNotFound => {
                "The provider's address could not be found. Check the base URL and the internet connection."
            }
            NetworkFailure::Secure => {
                "A secure connection to the provider could not be made: its certificate was not accepted."
            }
            NetworkFailure::Other => {
                "Lango could not reach the provider. Check the base URL and the internet connection."
            }
        },
        ProviderError::Timeout { .. } => {
            "The provider did not answer in time. Try again, or check the base URL."
        }
        ProviderError::Unauthorized { .. } => {
            "The provider did not accept the API key. Check the key under Settings → Providers."
        }
        ProviderError::NotFound { .. } => {
            "The provider did not find the model or the address. Check the model name and the base URL."
        }
        ProviderError::Server { status, .. } => {
            return Some(format!(
                "The provider had a problem on its side (error {status}). Try again in a moment."
            ))
        }
        ProviderError::MissingKey { provider, .. } => {
            return Some(format!(
                "“{provider}” has no API key yet. Add it under Settings → Providers."
            ))
        }
        ProviderError::KeyUnavailable { provider, .. } => {
            return Some(format!(
                "Lango could not read the API key of “{provider}”. Check that the OS keychain is unlocked, or enter the key again under Settings → Providers."
            ))
        }
        ProviderError::BadRequest { message } => {
            return too_many_tools(message).or_else(|| reply_too_long(message))
        }
        // Reaching the user, the history was already cut to the newest message (runner::fit).
        ProviderError::ContextExceeded { limit, .. } => {
            let window = limit
                .window
                .map(|w| format!(" ({w} tokens)"))
                .unwrap_or_default();
            if matches!((limit.sent, limit.window), (Some(sent), Some(window)) if sent < window) {
                return Some(format!(
                    "The reply length asked for does not fit the model's context{window} beside this conversation. Lower the reply length (Conversation settings, or agent.maxTokens)."
                ));
            }
            return Some(format!(
                "This message does not fit the model's context{window}, even with the older messages left out: the system prompt, memory and tool definitions take room too. Shorten the message, turn off tools you do not need (Settings → Tools), give the memory a smaller budget (Settings → Memory), or pick a model with a larger context."
            ));
        }
        ProviderError::RateLimited { retry_after, .. } => {
            return Some(match retry_after {
                Some(wait) => format!(
                    "The provider is limiting requests. Try again in {} s.",
                    wait.as_secs().max(1)
                ),
                None => "The provider is limiting requests. Try again in a moment.".to_owned(),
            })
        }
        _ => return None,
    };
    Some(text.to_owned())
}

/// OpenAI's (and Azure's) refusal of more than 128 tools in one request — "Invalid 'tools':
/// array too long. Expected an array with maximum length 128, but got an array with length
/// 150 instead." — says which setting helps: a few MCP servers reach it.
fn too_many_tools(message: &str) -> Option<String> {
    if !message.contains("'tools'") || !message.contains("array too long") {
        return None;
    }
    let limit = number_after(message, "maximum length ")
        .map_or_else(String::new, |n| format!(" at most {n}"));
    let offered = number_after(message, "array with length ")
        .map_or_else(String::new, |n| format!(" ({n} are on)"));
    Some(format!(
        "The provider takes{limit} tools in one request{offered}. Turn off the servers or tools this conversation does not need in Settings → Tools."
    ))
}

/// A refusal of the reply length asked for (`agent.maxTokens`, a conversation's own reply
/// length) as more than the model can write — OpenAI's "max_tokens is too large: 100000. This
/// model supports at most 16384 completion tokens…", Anthropic's "max_tokens: 100000 > 64000,
/// which is the maximum allowed number of output tokens…" — says where to lower it.
fn reply_too_long(message: &str) -> Option<String> {
    let names_it = ["max_tokens", "max_completion_tokens", "maxOutputTokens"]
        .iter()
        .any(|name| message.contains(name));
    let over = ["too large", "maximum allowed", "at most"]
        .iter()
        .any(|words| message.contains(words));
    if !names_it || !over {
        return None;
    }
    let most = number_after(message, "at most ")
        .or_else(|| number_after(message, " > "))
        .map_or_else(String::new, |n| format!(" (at most {n} tokens)"));
    Some(format!(
        "The reply length asked for is more than this model can write{most}. Lower it: the reply length in Conversation settings, or agent.maxTokens in Settings → Agent."
    ))
}

/// The headline for a store error whose own text is SQLite's (a damaged page, an internal
/// failure), or `None` when its message already is a sentence for the user (disk full, a
/// read-only folder, not found…).
pub(super) fn store(e: &StoreError) -> Option<&'static str> {
    match e {
        StoreError::Corrupt { .. } => Some(
            "Lango's database file is damaged, so this could not be done. Nothing was changed: `lango doctor` checks the file, restores a backup or salvages what can still be read.",
        ),
        StoreError::Database(_) => Some(
            "Lango's database did not complete this. What was stored before is intact.",
        ),
        _ => None,
    }
}

/// `(code, headline, detail)` for a secrets error. A missing keychain is said once by the
/// settings screen's notice, so its error is short and points there.
pub(super) fn secrets(e: &SecretsError) -> (&'static str, String, Option<String>) {
    match e {
        SecretsError::NoSecureStore { reason, .. } => (
            "no_secure_store",
            "There is no OS keychain to keep the API key in.".to_owned(),
            Some(reason.clone()),
        ),
        SecretsError::Keychain { provider, reason } => (
            "secrets",
            format!("The OS keychain did not work for the key of “{provider}”."),
            Some(reason.clone()),
        ),
        SecretsError::File { .. } => (
            "secrets",
            "The file that keeps the API keys could not be used.".to_owned(),
            Some(e.to_string()),
        ),
        other => ("secrets", other.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::AppError;

    fn network(message: &str) -> AppError {
        AppError::from(ProviderError::Network {
            message: message.into(),
        })
    }

    #[test]
    fn a_damaged_database_is_said_plainly_with_sqlites_text_as_detail() {
        let e = AppError::from(StoreError::Corrupt {
            path: "/home/me/.local/share/lango/lango.db".into(),
            backup: None,
            detail: "fts5: corruption found reading blob 549755813889 from table \"message_fts\""
                .into(),
        });
        assert_eq!(e.code, "database_corrupt");
        assert!(
            e.message.starts_with("Lango's database file is damaged"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("fts5"), "{}", e.message);
        assert!(e.message.contains("lango doctor"));
        let detail = e.detail.unwrap_or_default();
        assert!(detail.contains("fts5: corruption found") && detail.contains("lango.db"));
    }

    #[test]
    fn a_full_disk_keeps_its_own_sentence() {
        let e = AppError::from(StoreError::Full {
            path: "/data/lango.db".into(),
            detail: "database or disk is full".into(),
        });
        assert!(e
            .message
            .starts_with("the disk holding /data/lango.db is full"));
        assert_eq!(e.detail, None);
    }

    #[test]
    fn connection_refused_is_said_plainly_with_the_os_text_as_detail() {
        for text in [
            "error sending request for url (http://127.0.0.1:11434/api/tags): client error (Connect): tcp connect error: Connection refused (os error 111)",
            "tcp connect error: No connection could be made because the target machine actively refused it. (os error 10061)",
        ] {
            let e = network(text);
            assert_eq!(e.code, "network");
            assert!(e.message.starts_with("Nothing answered"), "{}", e.message);
            assert!(!e.message.contains("os error"));
            assert!(e.detail.as_deref().is_some_and(|d| d.contains(text)));
        }
    }

    #[test]
    fn an_unknown_host_is_said_plainly() {
        for text in [
            "client error (Connect): dns error: failed to lookup address information: Name or service not known",
            "dns error: No such host is known. (os error 11001)",
        ] {
            let e = network(text);
            assert!(e.message.contains("could not be found"), "{}", e.message);
            assert!(!e.message.contains("dns"));
        }
    }

    #[test]
    fn a_rejected_certificate_is_said_plainly() {
        let e = network("client error (Connect): invalid peer certificate: UnknownIssuer");
        assert!(e.message.contains("secure connection"), "{}", e.message);
        assert!(e.detail.is_some_and(|d| d.contains("UnknownIssuer")));
    }

    #[test]
    fn other_network_failures_still_get_a_plain_headline() {
        let e = network("connection reset by peer");
        assert!(
            e.message.starts_with("Lango could not reach"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_missing_key_points_desktop_users_to_the_settings_and_keeps_the_cli_way_as_detail() {
        let e = AppError::from(ProviderError::MissingKey {
            provider: "work".into(),
            env_var: "LANGO_WORK_API_KEY".into(),
        });
        assert_eq!(e.code, "no_api_key");
        assert!(e.message.contains("Settings → Providers"), "{}", e.message);
        assert!(!e.message.contains("lango config"), "{}", e.message);
        let detail = e.detail.unwrap_or_default();
        assert!(
            detail.contains("lango config set-key work") && detail.contains("LANGO_WORK_API_KEY")
        );
    }

    #[test]
    fn an_unreadable_key_is_said_plainly_with_the_keychain_reason_as_detail() {
        let e = AppError::from(ProviderError::KeyUnavailable {
            provider: "work".into(),
            message: "DBus error: org.freedesktop.Secret.Error.IsLocked".into(),
        });
        assert_eq!(e.code, "secrets");
        assert!(
            e.message.contains("could not read the API key of “work”"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("DBus"));
        assert!(e.detail.is_some_and(|d| d.contains("IsLocked")));
    }

    #[test]
    fn a_timeout_is_said_plainly() {
        let e = AppError::from(ProviderError::Timeout {
            phase: "while connecting".into(),
        });
        assert_eq!(e.code, "timeout");
        assert!(e.message.contains("did not answer in time"));
        assert_eq!(e.detail.as_deref(), Some("timed out while connecting"));
    }

    #[test]
    fn a_rejected_key_points_to_the_settings_and_keeps_the_providers_reason() {
        let e = AppError::from(ProviderError::from_status(
            401,
            r#"{"error":{"message":"Incorrect API key provided"}}"#,
            None,
        ));
        assert_eq!(e.code, "unauthorized");
        assert!(e.message.contains("did not accept the API key"));
        assert!(e.message.contains("Settings → Providers"));
        assert!(e
            .detail
            .is_some_and(|d| d.contains("Incorrect API key provided")));
    }

    #[test]
    fn a_context_refusal_names_what_to_change() {
        let refusal = |sent| {
            AppError::from(ProviderError::ContextExceeded {
                limit: crate::provider::ContextLimit {
                    window: Some(4096),
                    sent: Some(sent),
                },
                message: "too long".into(),
            })
        };
        let prompt = refusal(6010);
        assert_eq!(prompt.code, "context_exceeded");
        assert!(
            prompt
                .message
                .starts_with("This message does not fit the model's context (4096 tokens)"),
            "{}",
            prompt.message
        );
        let reply = refusal(1000);
        assert!(
            reply
                .message
                .starts_with("The reply length asked for does not fit"),
            "{}",
            reply.message
        );
        assert!(reply.message.contains("agent.maxTokens"));
    }

    #[test]
    fn too_many_tools_for_openai_points_to_the_tools_settings() {
        let e = AppError::from(ProviderError::BadRequest {
            message: "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 150 instead.".into(),
        });
        assert_eq!(e.code, "bad_request");
        assert_eq!(
            e.message,
            "The provider takes at most 128 tools in one request (150 are on). Turn off the servers or tools this conversation does not need in Settings → Tools."
        );
        assert!(e.detail.unwrap_or_default().contains("array too long"));
        // Other refusals keep the provider's own words as the headline.
        let other = AppError::from(ProviderError::BadRequest {
            message: "'messages' is required".into(),
        });
        assert!(
            other.message.contains("'messages' is required"),
            "{}",
            other.message
        );
        assert_eq!(other.detail, None);
    }

    #[test]
    fn a_reply_length_over_the_models_limit_says_where_to_lower_it() {
        for (message, most) in [
            ("max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.", "16384"),
            ("max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514", "64000"),
        ] {
            let e = AppError::from(ProviderError::BadRequest {
                message: message.into(),
            });
            assert!(
                e.message.starts_with(&format!(
                    "The reply length asked for is more than this model can write (at most {most} tokens)."
                )),
                "{}",
                e.message
            );
            assert!(e.message.contains("agent.maxTokens"));
            assert_eq!(e.detail.as_deref().map(|d| d.contains(message)), Some(true));
        }
    }

    #[test]
    fn a_rate_limit_says_when_to_try_again() {
        let e = AppError::from(ProviderError::RateLimited {
            retry_after: Some(Duration::from_secs(30)),
            message: "slow down".into(),
        });
        assert!(e.message.contains("Try again in 30 s"), "{}", e.message);
    }

    #[test]
    fn no_keychain_is_one_short_sentence_and_the_dbus_text_is_the_detail() {
        let dbus =
            "DBus error: The name org.freedesktop.secrets was not provided by any .service files";
        let e = AppError::from(SecretsError::NoSecureStore {
            provider: "openai".into(),
            env_var: "LANGO_OPENAI_API_KEY".into(),
            reason: dbus.into(),
        });
        assert_eq!(e.code, "no_secure_store");
        assert!(!e.message.contains("DBus"));
        assert!(
            !e.message.contains("allowFileStore"),
            "the settings notice says how"
        );
        assert_eq!(e.detail.as_deref(), Some(dbus));
    }

    #[test]
    fn a_failing_keychain_is_said_plainly() {
        let e = AppError::from(SecretsError::Keychain {
            provider: "openai".into(),
            reason: "DBus error: timed out".into(),
        });
        assert!(!e.message.contains("DBus"));
        assert!(e.message.contains("OS keychain"));
        assert_eq!(e.detail.as_deref(), Some("DBus error: timed out"));
    }

    #[test]
    fn errors_that_already_read_plainly_keep_their_message() {
        let e = AppError::from(ProviderError::cut_off());
        assert!(e
            .message
            .contains("before the provider said the reply was complete"));
        assert_eq!(e.detail, None);
    }
}
