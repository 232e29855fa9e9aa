//! A Streamable HTTP server's client: the SDK's reqwest client, with what it takes for a
//! call never to wait for its timeout once the server has answered it, and to be told what
//! happened in plain words:
//! - an answer over the size limit becomes an error answer for its request (the SDK alone
//!   ends the stream and the call waits);
//! - an error answer without an id (a server refusing a request too large for it, HTTP 413)
//!   is given the id of the one request its POST carried (the SDK alone cannot match it);
//! - an HTTP failure that is not JSON-RPC (a proxy's 502 page, a 429) is answered to that
//!   request with its status (the SDK alone fails the send: "the server stopped");
//! - a server that forgot our session (it restarted) and says so with a 400 instead of the
//!   spec's 404 gets a new session, as the SDK does for a 404;
//! - a server that cannot be started is described by the cause under the SDK's errors.
//!
//! Owns building the HTTP client (headers, secrets, timeouts) and those answers. The error's
//! words for a too-large answer are `connection`'s, from [`OversizedAnswers`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::Value;
use sse_stream::Sse;

use super::env;
use super::error::McpError;
use super::oversized::{megabytes, too_large_answer, OversizedAnswers};
use crate::secrets::SecretStore;

/// How the SDK's SSE reader says an event went over its limit (its error type is private).
const EVENT_TOO_LARGE: &str = "SSE event exceeded the maximum size";

/// The JSON-RPC code of the answer put in place of an HTTP failure (implementation-defined
/// server error).
const HTTP_ERROR_CODE: i64 = -32000;

type SseEvents = BoxStream<'static, Result<Sse, SseError>>;

/// The transport for the server at `url`, its headers' `keychain:` values resolved.
pub fn transport(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    secrets: Option<&SecretStore>,
    oversized: OversizedAnswers,
) -> Result<StreamableHttpClientTransport<BoundedClient>, McpError> {
    let mut custom = HashMap::new();
    for (name, value) in env::resolve_secrets(headers, secrets)? {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|e| McpError::Spawn {
            command: url.to_owned(),
            reason: format!("header \"{name}\" is not a valid header name ({e})"),
        })?;
        let value = HeaderValue::from_str(&value).map_err(|_| McpError::Spawn {
            command: url.to_owned(),
            reason: format!("the value of header \"{name}\" is not valid in a header"),
        })?;
        custom.insert(header, value);
    }
    let inner = reqwest::Client::builder()
        .user_agent(concat!("lango/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| McpError::Spawn {
            command: url.to_owned(),
            reason: e.to_string(),
        })?;
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(custom);
    let client = BoundedClient { inner, oversized };
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// The SDK's reqwest client, answering a request whose answer was too large.
#[derive(Clone)]
pub struct BoundedClient {
    inner: reqwest::Client,
    oversized: OversizedAnswers,
}

impl BoundedClient {
    /// The error answer for request `id` in the place of one over `limit` bytes.
    fn too_large(&self, id: &Value, limit: usize) -> String {
        tracing::warn!(%id, limit = %megabytes(limit), "an MCP server's answer over HTTP is over the size limit");
        self.oversized.insert(id, None);
        too_large_answer(id, None, limit)
    }
}

impl StreamableHttpClient for BoundedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let request_id = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let id = request_id
            .as_ref()
            .and_then(|id| serde_json::to_value(id).ok());
        let in_session = session_id.is_some();
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        let Some(id) = id else {
            return response;
        };
        match response {
            Err(StreamableHttpError::ResponseBodyTooLarge { max_size }) => {
                match serde_json::from_str(&self.too_large(&id, max_size)) {
                    Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, None)),
                    Err(_) => Err(StreamableHttpError::ResponseBodyTooLarge { max_size }),
                }
            }
            // A server restarted since it gave us our session: the MCP spec has it answer 404
            // (the SDK then starts a new session and sends the request again), but servers
            // built on the TypeScript SDK's examples — server-everything too — answer 400 "No
            // valid session ID provided", without an id, and every later call failed so.
            Ok(StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(error), _))
                if in_session
                    && error.id.is_none()
                    && error.error.message.to_lowercase().contains("session") =>
            {
                tracing::info!(said = %error.error.message, "an MCP server no longer knows our session; starting a new one");
                Err(StreamableHttpError::SessionExpired)
            }
            // A server that could not read the request (too large for it: HTTP 413) answers
            // without an id; the answer to this POST is this request's all the same.
            Ok(StreamableHttpPostResponse::Json(
                ServerJsonRpcMessage::Error(mut error),
                session,
            )) if error.id.is_none() => {
                error.id = request_id;
                Ok(StreamableHttpPostResponse::Json(
                    ServerJsonRpcMessage::Error(error),
                    session,
                ))
            }
            Ok(StreamableHttpPostResponse::Sse(events, session)) => {
                let events = answer_cut_event(events, self.clone(), id, limits.max_sse_event_size);
                Ok(StreamableHttpPostResponse::Sse(events, session))
            }
            // The server (or a proxy before it) answered, but not in JSON-RPC: say what it
            // said, where the SDK alone fails the send and the call reads "server stopped".
            Err(e) => match http_refusal(&e) {
                Some(said) => match error_answer(&id, HTTP_ERROR_CODE, &said) {
                    Some(answer) => Ok(StreamableHttpPostResponse::Json(answer, None)),
                    None => Err(e),
                },
                None => Err(e),
            },
            other => other,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseEvents, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseEvents, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// Why a remote server could not be started, in plain words: the cause at the bottom of
/// the SDK's chain of errors (its own words name Rust types and its internal steps).
pub fn start_failure(url: &str, error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError as E;
    match error {
        // An HTTP failure put in an answer's place by this client (above).
        E::JsonRpcError(data) if is_sign_in(&data.message) => {
            format!("{url} answered {}", data.message)
        }
        E::JsonRpcError(data) if data.message.starts_with("HTTP ") => format!(
            "{url} answered {} — is it the address of an MCP server (Streamable HTTP)?",
            data.message
        ),
        E::JsonRpcError(data) => format!("it answered: {}", data.message),
        E::TransportError { error, .. } => {
            let cause = innermost(error);
            if reqwest_connect_failure(error) {
                format!("could not connect to {url}: {cause}")
            } else {
                format!("the connection to {url} failed: {cause}")
            }
        }
        other => other.to_string(),
    }
}

/// The next error in `error`'s chain of causes, looking into the SDK's HTTP error (which
/// holds the client's error without naming it as its source).
fn cause<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a (dyn std::error::Error + 'static)> {
    match error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(inner)) => Some(inner),
        _ => error.source(),
    }
}

/// The last error in `error`'s chain of causes.
pub fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut last = error;
    while let Some(next) = cause(last) {
        last = next;
    }
    last.to_string()
}

/// Whether a connection could not be made at all (refused, no such host, no route).
pub fn reqwest_connect_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_connect)
        {
            return true;
        }
        next = cause(e);
    }
    false
}

/// Whether a refusal's words are about letting Lango in (HTTP 401 or 403), where the
/// address is right.
fn is_sign_in(said: &str) -> bool {
    said.starts_with("HTTP 401 ") || said.starts_with("HTTP 403 ")
}

/// What an HTTP answer that is not JSON-RPC said, in a few plain words: `None` for the
/// failures the SDK handles itself (an expired session, no connection at all).
fn http_refusal(error: &StreamableHttpError<reqwest::Error>) -> Option<String> {
    let said = match error {
        // Lango has no OAuth sign-in for MCP servers; a token in the headers is what it has.
        StreamableHttpError::AuthRequired(_) => return Some(
            "HTTP 401 Unauthorized: the server asks to sign in. Lango cannot sign in to an MCP server by itself; if the server takes a token, set it in the server's headers (\"Authorization\": \"Bearer keychain:NAME\")".to_owned(),
        ),
        StreamableHttpError::InsufficientScope(e) => {
            let scope = e.required_scope.as_deref().map(|s| format!(" (it asks for {s})")).unwrap_or_default();
            format!("HTTP 403 Forbidden: the server's token does not allow this{scope}")
        }
        StreamableHttpError::HttpStatus(status) => {
            let reason = reqwest::StatusCode::from_u16(status.status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("");
            match &status.retry_after {
                Some(after) => format!("HTTP {} {reason} (try again after {after})", status.status),
                None => format!("HTTP {} {reason}", status.status),
            }
        }
        StreamableHttpError::UnexpectedServerResponse(text) => text.to_string(),
        StreamableHttpError::UnexpectedContentType(kind) => format!(
            "an answer of type {} instead of JSON or an event stream",
            kind.as_deref().unwrap_or("(none)")
        ),
        _ => return None,
    };
    // A server's words reach the window and the terminal: no control sequences.
    Some(bounded_text(&crate::text::sanitize::clean(&said), 300))
}

/// `text` on one line and at most `max` characters (it may be a whole HTML page).
fn bounded_text(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// A JSON-RPC error answer for request `id`.
fn error_answer(id: &Value, code: i64, message: &str) -> Option<ServerJsonRpcMessage> {
    serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .ok()
}

/// `events` (the answer stream of request `id`), where an event over the limit becomes the
/// error answer for `id` (the SDK's reader stops there, so the stream ends after it).
fn answer_cut_event(
    events: SseEvents,
    client: BoundedClient,
    id: Value,
    limit: usize,
) -> SseEvents {
    events
        .map(move |item| match item {
            Err(SseError::Body(e)) if e.to_string().contains(EVENT_TOO_LARGE) => Ok(Sse {
                event: Some("message".to_owned()),
                data: Some(client.too_large(&id, limit)),
                id: None,
                retry: None,
            }),
            other => other,
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::streamable_http_client::HttpStatusError;

    #[test]
    fn a_rate_limit_says_when_to_try_again() {
        let error = StreamableHttpError::HttpStatus(HttpStatusError::new(429, Some("30".into())));
        assert_eq!(
            http_refusal(&error).as_deref(),
            Some("HTTP 429 Too Many Requests (try again after 30)")
        );
    }

    #[test]
    fn a_whole_html_page_is_cut_to_one_short_line() {
        let page = format!(
            "HTTP 400: <html>\n  <body>{}</body>\n</html>",
            "word ".repeat(500)
        );
        let said =
            http_refusal(&StreamableHttpError::UnexpectedServerResponse(page.into())).unwrap();
        assert!(
            said.starts_with("HTTP 400: <html> <body>word word"),
            "{said}"
        );
        assert_eq!(said.chars().count(), 301, "{said}");
        assert!(said.ends_with('…'));
    }

    #[test]
    fn control_sequences_in_a_servers_page_never_reach_the_words() {
        let page = "HTTP 400: \u{1b}]0;owned\u{7}\u{1b}[31mno\u{1b}[0m";
        let said =
            http_refusal(&StreamableHttpError::UnexpectedServerResponse(page.into())).unwrap();
        assert_eq!(said, "HTTP 400: no");
    }

    #[test]
    fn a_server_asking_to_sign_in_is_told_apart_from_one_that_is_no_mcp_server() {
        use rmcp::transport::streamable_http_client::AuthRequiredError;
        let error = StreamableHttpError::AuthRequired(AuthRequiredError::new("Bearer".into()));
        let said = http_refusal(&error).unwrap();
        assert!(
            said.starts_with("HTTP 401 Unauthorized: the server asks to sign in."),
            "{said}"
        );
        assert!(is_sign_in(&said));
        assert!(!is_sign_in("HTTP 404 Not Found: no such page"));
    }

    #[test]
    fn failures_the_sdk_recovers_from_are_left_to_it() {
        assert_eq!(http_refusal(&StreamableHttpError::SessionExpired), None);
        assert_eq!(
            http_refusal(&StreamableHttpError::TransportChannelClosed),
            None
        );
    }

    #[test]
    fn the_error_answer_carries_the_requests_id() {
        let answer =
            error_answer(&serde_json::json!("req-3"), HTTP_ERROR_CODE, "HTTP 502").unwrap();
        let text = serde_json::to_value(&answer).unwrap();
        assert_eq!(text["id"], "req-3");
        assert_eq!(text["error"]["message"], "HTTP 502");
    }
}
