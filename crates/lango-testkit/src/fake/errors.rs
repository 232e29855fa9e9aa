//! Error replies in each provider's own envelope, and the JSON helpers the bodies share.

use super::wire::Wire;
use serde::Serialize;

use crate::server::{Action, Reply};

/// A JSON string literal.
pub(super) fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Formats JSON the way Gemini does: `"key": value`, no space after commas.
pub(super) fn gemini_json(value: &serde_json::Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
        ) -> std::io::Result<()> {
            writer.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    if value.serialize(&mut ser).is_err() {
        return "{}".into();
    }
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn status_reply(wire: Wire, code: u16, body: &str, retry_after: Option<f64>) -> Reply {
    let body = if body.trim_start().starts_with('{') {
        body.to_string()
    } else {
        error_body(wire, code, body)
    };
    let retry = retry_after.map(|s| {
        if s.fract() == 0.0 && s >= 0.0 {
            format!("{}", s as u64)
        } else {
            format!("{s}")
        }
    });
    let headers: Vec<(&str, &str)> = retry
        .as_deref()
        .map(|v| ("Retry-After", v))
        .into_iter()
        .collect();
    Reply::head(code, "application/json", &headers).then(Action::Write(body.into_bytes()))
}

/// The provider's own error envelope around `message`.
pub(super) fn error_body(wire: Wire, code: u16, message: &str) -> String {
    let message = if message.is_empty() {
        format!("fake provider: HTTP {code}")
    } else {
        message.to_string()
    };
    match wire {
        Wire::OpenAi => {
            let (kind, err_code) = match code {
                401 => ("invalid_request_error", "\"invalid_api_key\""),
                404 => ("invalid_request_error", "\"model_not_found\""),
                429 => ("requests", "\"rate_limit_exceeded\""),
                400..=499 => ("invalid_request_error", "null"),
                _ => ("server_error", "null"),
            };
            format!(
                r#"{{"error":{{"message":{},"type":"{kind}","param":null,"code":{err_code}}}}}"#,
                js(&message)
            )
        }
        Wire::Anthropic => {
            let kind = match code {
                400 => "invalid_request_error",
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                _ => "api_error",
            };
            format!(
                r#"{{"type":"error","error":{{"type":"{kind}","message":{}}}}}"#,
                js(&message)
            )
        }
        Wire::Gemini => {
            let status = match code {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                429 => "RESOURCE_EXHAUSTED",
                503 => "UNAVAILABLE",
                504 => "DEADLINE_EXCEEDED",
                _ => "INTERNAL",
            };
            format!("{{\n  \"error\": {{\n    \"code\": {code},\n    \"message\": {},\n    \"status\": \"{status}\"\n  }}\n}}\n", js(&message))
        }
        Wire::Ollama => format!(r#"{{"error":{}}}"#, js(&message)),
    }
}
