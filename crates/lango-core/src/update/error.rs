//! Why an update check gave no answer, in plain words (`summary`) with the technical detail
//! (`Display`) kept for a folded "details" line or a log.

/// A failed update check. Nothing here is fatal to the app: the user is told and can retry.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("no release feed is set (updates.feedUrl)")]
    NotConfigured,
    #[error("the release feed address {url} {why}")]
    BadFeedUrl { url: String, why: &'static str },
    #[error("could not reach {url}: {detail}")]
    Unreachable { url: String, detail: String },
    #[error("{url} did not answer within {secs} s")]
    Timeout { url: String, secs: u64 },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("the release feed is larger than {limit} bytes; a feed is a few hundred bytes")]
    TooLarge { limit: usize },
    #[error("the release feed is not valid JSON: {detail}")]
    BadJson { detail: String },
    #[error("the release feed does not say which version is the latest: {detail}")]
    BadFeed { detail: String },
    #[error("\"{version}\" is not a version number like 1.2.3: {detail}")]
    BadVersion { version: String, detail: String },
    #[error("the release link \"{link}\" {why}")]
    BadLink { link: String, why: &'static str },
}

impl UpdateError {
    /// A stable snake_case code for the UI and tests.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotConfigured => "update_off",
            Self::BadFeedUrl { .. } => "update_feed_url",
            Self::Unreachable { .. } => "update_unreachable",
            Self::Timeout { .. } => "update_timeout",
            Self::Status { .. } => "update_http_status",
            Self::TooLarge { .. } => "update_too_large",
            Self::BadJson { .. } => "update_bad_json",
            Self::BadFeed { .. } | Self::BadVersion { .. } => "update_bad_feed",
            Self::BadLink { .. } => "update_bad_link",
        }
    }

    /// One sentence a user can act on; the `Display` text is the detail behind it.
    pub fn summary(&self) -> String {
        match self {
            Self::NotConfigured => "Update checks are off: no release feed is set.".to_owned(),
            Self::BadFeedUrl { .. } => {
                "The release feed address is not usable (it must be https://).".to_owned()
            }
            Self::Unreachable { .. } => {
                "Could not reach the release feed. Check your connection and the feed address."
                    .to_owned()
            }
            Self::Timeout { .. } => "The release feed did not answer in time.".to_owned(),
            Self::Status { status: 404, .. } => {
                "The release feed was not found at that address (HTTP 404).".to_owned()
            }
            Self::Status { status, .. } => {
                format!("The release feed's server answered with an error (HTTP {status}).")
            }
            Self::TooLarge { .. } | Self::BadJson { .. } => {
                "The release feed is not a release feed (unreadable JSON).".to_owned()
            }
            Self::BadFeed { .. } | Self::BadVersion { .. } => {
                "The release feed does not name a usable version.".to_owned()
            }
            Self::BadLink { .. } => {
                "The release feed's link is not a web address, so it is not shown.".to_owned()
            }
        }
    }
}
