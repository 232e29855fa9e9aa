//! Fetching the feed: one GET with a deadline and a size cap, nothing cached, no cookies.
//!
//! Redirects are followed (a release host may move a file) but only to addresses the feed
//! itself could have had (`link::check_feed_url`): an https feed cannot be redirected to
//! plain http.

use std::time::Duration;

use super::link::check_feed_url;
use super::UpdateError;

/// The whole check (connect, answer, body) must finish within this.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// A feed is a few hundred bytes; notes included, a few KiB. Anything far larger is not one.
pub const DEFAULT_MAX_FEED_BYTES: usize = 256 * 1024;

/// How long and how much one fetch may take (tests shorten them).
#[derive(Debug, Clone, Copy)]
pub struct FetchLimits {
    pub timeout: Duration,
    pub max_bytes: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_FEED_BYTES,
        }
    }
}

/// GETs `url` and returns its body. `url` must already have passed `check_feed_url`.
pub(super) async fn fetch(url: &str, limits: FetchLimits) -> Result<Vec<u8>, UpdateError> {
    tokio::time::timeout(limits.timeout, fetch_inner(url, limits))
        .await
        .unwrap_or_else(|_| {
            Err(UpdateError::Timeout {
                url: url.to_owned(),
                secs: limits.timeout.as_secs().max(1),
            })
        })
}

async fn fetch_inner(url: &str, limits: FetchLimits) -> Result<Vec<u8>, UpdateError> {
    let unreachable = |detail: String| UpdateError::Unreachable {
        url: url.to_owned(),
        detail,
    };
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() >= 5 {
            attempt.error("too many redirects")
        } else if check_feed_url(attempt.url().as_str()).is_err() {
            attempt.error("redirected to an address that is not https")
        } else {
            attempt.follow()
        }
    });
    let client = reqwest::Client::builder()
        .user_agent(concat!("lango/", env!("CARGO_PKG_VERSION")))
        .redirect(policy)
        .connect_timeout(limits.timeout)
        .build()
        .map_err(|e| unreachable(e.to_string()))?;
    let mut response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| unreachable(error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(UpdateError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
        });
    }
    let too_large = UpdateError::TooLarge {
        limit: limits.max_bytes,
    };
    if response
        .content_length()
        .is_some_and(|n| n > limits.max_bytes as u64)
    {
        return Err(too_large);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unreachable(error_chain(&e)))?
    {
        if body.len() + chunk.len() > limits.max_bytes {
            // Dropping the response closes the connection: the rest is never read.
            return Err(too_large);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// reqwest's own message is "error sending request"; the cause says what happened.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
