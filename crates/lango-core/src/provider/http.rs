//! HTTP for every wire client: the shared reqwest client, sending with retries, and the
//! stream driver that feeds a response body through a format [`Decoder`].
//!
//! Retry policy: 429, 5xx and connection failures are retried with exponential backoff and
//! jitter — only before any byte of a response body has been read. Once a stream has
//! started, a failure is final (`Interrupted`): text may already be on the user's screen.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use super::error::ProviderError;
use super::limit::{Capped, ReplyLimit};
use super::types::{BoxFuture, EventStream, StreamEvent};
use super::USER_AGENT;
use crate::config::DEFAULT_MAX_REPLY_BYTES;

/// Timeouts and retry limits (from the settings; defaults suit hosted APIs and local models).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    pub connect_timeout: Duration,
    /// Longest wait for the response headers, and between two reads of a streaming body.
    pub idle_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// The hard cap on one streamed reply (`agent.maxReplyBytes`, see [`super::limit`]).
    pub max_reply_bytes: u64,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        }
    }
}

impl HttpSettings {
    /// The timeouts the user set in `agent.connectTimeout` / `agent.idleTimeout`, and the
    /// reply cap in `agent.maxReplyBytes`.
    pub fn from_agent(agent: &crate::config::AgentSettings) -> Self {
        Self {
            connect_timeout: Duration::from_secs(agent.connect_timeout),
            idle_timeout: Duration::from_secs(agent.idle_timeout),
            max_reply_bytes: agent.max_reply_bytes,
            ..Self::default()
        }
    }
}

/// The client every provider uses. No overall timeout: a long answer is not a failure.
pub fn client(settings: &HttpSettings) -> Result<reqwest::Client, ProviderError> {
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .connect_timeout(settings.connect_timeout)
        .build()
        .map_err(|e| ProviderError::Config {
            message: format!("cannot create the HTTP client: {e}"),
        })
}

/// Delay before retry number `attempt` (1-based): exponential with full jitter, or the
/// server's Retry-After when it gave one (capped at `max_backoff`).
fn backoff(settings: &HttpSettings, attempt: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(wait) = retry_after {
        return wait.min(settings.max_backoff);
    }
    let exp = settings
        .initial_backoff
        .saturating_mul(1 << attempt.saturating_sub(1).min(16));
    let cap = exp.min(settings.max_backoff);
    // Full jitter: uniformly in [cap/2, cap], so clients that failed together spread out.
    let half = cap / 2;
    half + half.mul_f64(fastrand::f64())
}

fn retry_after_header(response: &reqwest::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    value
        .trim()
        .parse::<f64>()
        .ok()
        .map(|s| Duration::from_secs_f64(s.max(0.0)))
}

fn classify_send_error(e: &reqwest::Error) -> ProviderError {
    if e.is_timeout() {
        ProviderError::Timeout {
            phase: "while connecting".into(),
        }
    } else {
        ProviderError::Network {
            message: root_cause(e),
        }
    }
}

/// reqwest's Display hides the interesting part ("connection refused") in the source chain.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// Sends a request built by `make` (called once per attempt), retrying retryable failures
/// before any body byte is read. Returns the successful response, headers read, body unread.
pub async fn send(
    make: impl Fn() -> reqwest::RequestBuilder,
    settings: &HttpSettings,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, ProviderError> {
    let mut attempt = 0u32;
    loop {
        let (client, request) = make().build_split();
        let request = request.map_err(|e| ProviderError::Config {
            message: format!("cannot build the request: {e}"),
        })?;
        let secrets = secrets_of(&request);
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            r = tokio::time::timeout(settings.idle_timeout, client.execute(request)) => r,
        };
        let error = match outcome {
            Err(_) => ProviderError::Timeout {
                phase: "waiting for the response".into(),
            },
            Ok(Err(e)) => classify_send_error(&e),
            Ok(Ok(response)) if response.status().is_success() => return Ok(response),
            Ok(Ok(response)) => {
                let status = response.status().as_u16();
                let retry_after = retry_after_header(&response);
                let body = tokio::time::timeout(settings.idle_timeout, response.text())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or_default();
                ProviderError::from_status(status, &body, retry_after)
            }
        }
        .redacted(&secrets);
        attempt += 1;
        if !error.is_retryable() || attempt > settings.max_retries {
            return Err(error);
        }
        let retry_after = match &error {
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        };
        let wait = backoff(settings, attempt, retry_after);
        tracing::warn!(attempt, wait_ms = wait.as_millis() as u64, error = %error, "provider request failed; retrying");
        tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// The credentials a request carries (auth headers, a `key` query parameter), so error
/// texts can be scrubbed of them whatever the server echoes.
fn secrets_of(request: &reqwest::Request) -> Vec<String> {
    let mut secrets = Vec::new();
    for name in ["authorization", "x-api-key", "x-goog-api-key", "api-key"] {
        if let Some(value) = request.headers().get(name).and_then(|v| v.to_str().ok()) {
            let value = value.trim();
            secrets.push(
                value
                    .strip_prefix("Bearer ")
                    .unwrap_or(value)
                    .trim()
                    .to_string(),
            );
        }
    }
    secrets.extend(
        request
            .url()
            .query_pairs()
            .filter(|(k, _)| k == "key")
            .map(|(_, v)| v.into_owned()),
    );
    secrets.retain(|s| !s.is_empty());
    secrets
}

/// Sends with retries and reads the whole body as JSON.
pub async fn fetch_json(
    make: impl Fn() -> reqwest::RequestBuilder,
    settings: &HttpSettings,
) -> Result<serde_json::Value, ProviderError> {
    let response = send(make, settings, &CancellationToken::new()).await?;
    let bytes = match tokio::time::timeout(settings.idle_timeout, response.bytes()).await {
        Err(_) => {
            return Err(ProviderError::Timeout {
                phase: "reading the response".into(),
            })
        }
        Ok(Err(e)) => {
            return Err(ProviderError::Interrupted {
                message: format!("reading the response failed: {e}"),
            })
        }
        Ok(Ok(b)) => b,
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        let snippet: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
        ProviderError::Interrupted {
            message: format!("the provider sent a response that is not JSON ({e}): {snippet}"),
        }
    })
}

/// Turns a wire format's bytes into events. One per stream; must emit exactly one terminal
/// event (`Done` or `Error`) across `feed` and `finish`.
pub trait Decoder: Send + 'static {
    fn feed(&mut self, bytes: &[u8]) -> Vec<StreamEvent>;
    /// The body ended cleanly (EOF).
    fn finish(&mut self) -> Vec<StreamEvent>;
}

/// How many bytes are decoded before checking for events to yield.
const FEED_SLICE: usize = 256;

type Body = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

enum State<D> {
    Connecting {
        response: BoxFuture<'static, Result<reqwest::Response, ProviderError>>,
        decoder: D,
    },
    /// `body` is None once EOF was reached and the decoder finished. `unfed` holds bytes read
    /// but not yet decoded: a read is decoded a slice at a time so the first event of a big
    /// read reaches the user without waiting for the rest of it to be parsed.
    Reading {
        body: Option<Body>,
        decoder: D,
        pending: VecDeque<StreamEvent>,
        unfed: Bytes,
    },
    Ended,
}

/// The event stream of one streaming request, the way every client sends it: [`send`] (with
/// retries before the first byte) the request `make` builds, pass a start failure through
/// `explain` (a client's chance to make it friendlier), then [`drive`] the body through
/// `decoder`, capped ([`Capped`]) at the settings' reply cap and the request's `max_tokens`.
pub fn stream<D: Decoder>(
    make: impl Fn() -> reqwest::RequestBuilder + Send + Sync + 'static,
    settings: &HttpSettings,
    decoder: D,
    max_tokens: Option<u32>,
    cancel: CancellationToken,
    explain: impl FnOnce(ProviderError) -> ProviderError + Send + 'static,
) -> EventStream {
    let limit = ReplyLimit {
        max_bytes: settings.max_reply_bytes,
        max_tokens,
    };
    let decoder = Capped::new(decoder, limit);
    let send_settings = settings.clone();
    let send_cancel = cancel.clone();
    let response: BoxFuture<'static, _> = Box::pin(async move {
        send(make, &send_settings, &send_cancel)
            .await
            .map_err(explain)
    });
    drive(response, decoder, settings.idle_timeout, cancel)
}

/// The event stream of one request: awaits `response` (the retrying send), then reads the
/// body through `decoder`, with the idle-read timeout and cancellation. Stops after the first
/// terminal event; dropping the stream (or cancelling) drops the connection.
pub fn drive<D: Decoder>(
    response: BoxFuture<'static, Result<reqwest::Response, ProviderError>>,
    decoder: D,
    idle_timeout: Duration,
    cancel: CancellationToken,
) -> EventStream {
    let stream = futures_util::stream::unfold(
        State::Connecting { response, decoder },
        move |state| {
            let cancel = cancel.clone();
            async move {
                let mut state = state;
                loop {
                    match state {
                        State::Ended => return None,
                        State::Connecting { response, decoder } => match response.await {
                            Ok(r) => {
                                state = State::Reading {
                                    body: Some(Box::pin(r.bytes_stream())),
                                    decoder,
                                    pending: VecDeque::new(),
                                    unfed: Bytes::new(),
                                }
                            }
                            Err(e) => return Some((StreamEvent::Error(e), State::Ended)),
                        },
                        State::Reading {
                            body,
                            mut decoder,
                            mut pending,
                            mut unfed,
                        } => {
                            if let Some(event) = pending.pop_front() {
                                let terminal = matches!(
                                    event,
                                    StreamEvent::Done { .. } | StreamEvent::Error(_)
                                );
                                let next = if terminal {
                                    State::Ended
                                } else {
                                    State::Reading {
                                        body,
                                        decoder,
                                        pending,
                                        unfed,
                                    }
                                };
                                return Some((event, next));
                            }
                            if !unfed.is_empty() {
                                let slice = unfed.split_to(FEED_SLICE.min(unfed.len()));
                                pending.extend(decoder.feed(&slice));
                                state = State::Reading {
                                    body,
                                    decoder,
                                    pending,
                                    unfed,
                                };
                                continue;
                            }
                            let mut reader = body?;
                            let read = tokio::select! {
                                _ = cancel.cancelled() => return Some((StreamEvent::Error(ProviderError::Cancelled), State::Ended)),
                                r = tokio::time::timeout(idle_timeout, reader.next()) => r,
                            };
                            match read {
                                Err(_) => {
                                    let e = ProviderError::Timeout {
                                        phase: format!(
                                            "after {} s without data from the provider",
                                            idle_timeout.as_secs()
                                        ),
                                    };
                                    return Some((StreamEvent::Error(e), State::Ended));
                                }
                                Ok(Some(Ok(bytes))) => unfed = bytes,
                                Ok(Some(Err(e))) => {
                                    let e = ProviderError::Interrupted {
                                        message: root_cause(&e),
                                    };
                                    return Some((StreamEvent::Error(e), State::Ended));
                                }
                                Ok(None) => {
                                    // Deliver what finish() produces, then end.
                                    pending.extend(decoder.finish());
                                    state = State::Reading {
                                        body: None,
                                        decoder,
                                        pending,
                                        unfed,
                                    };
                                    continue;
                                }
                            }
                            state = State::Reading {
                                body: Some(reader),
                                decoder,
                                pending,
                                unfed,
                            };
                        }
                    }
                }
            }
        },
    );
    Box::pin(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_capped_and_honours_retry_after() {
        let s = HttpSettings {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            ..Default::default()
        };
        for _ in 0..50 {
            let b1 = backoff(&s, 1, None);
            assert!(
                b1 >= Duration::from_millis(50) && b1 <= Duration::from_millis(100),
                "{b1:?}"
            );
            let b3 = backoff(&s, 3, None);
            assert!(
                b3 >= Duration::from_millis(200) && b3 <= Duration::from_millis(400),
                "{b3:?}"
            );
            assert!(backoff(&s, 30, None) <= Duration::from_secs(1));
        }
        assert_eq!(
            backoff(&s, 1, Some(Duration::from_millis(300))),
            Duration::from_millis(300)
        );
        assert_eq!(
            backoff(&s, 1, Some(Duration::from_secs(90))),
            Duration::from_secs(1)
        );
    }
}
