//! The answer to "is there a newer Lango?": fetch the feed, read it, compare.

use semver::Version;

use super::feed::{parse_feed, Release};
use super::fetch::{fetch, FetchLimits};
use super::link::check_feed_url;
use super::version::{is_newer, parse_version};
use super::{UpdateError, CURRENT_VERSION};

/// What the feed says about this build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateStatus {
    /// The feed's latest release is this one, an older one, or a pre-release a stable build
    /// is not offered. Carries the feed's version.
    UpToDate { latest: Version },
    /// A newer release: tell the user, with its link and notes. Nothing is downloaded.
    Available(Release),
}

/// Checks `feed_url` (`None` or empty = checks are off: no request is made) for a release
/// newer than this build.
pub async fn check(feed_url: Option<&str>) -> Result<UpdateStatus, UpdateError> {
    let current = parse_version(CURRENT_VERSION)?;
    check_with(feed_url, &current, FetchLimits::default()).await
}

/// [`check`] against a given current version and limits.
pub async fn check_with(
    feed_url: Option<&str>,
    current: &Version,
    limits: FetchLimits,
) -> Result<UpdateStatus, UpdateError> {
    let raw = feed_url
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or(UpdateError::NotConfigured)?;
    let url = check_feed_url(raw).map_err(|why| UpdateError::BadFeedUrl {
        url: raw.chars().take(120).collect(),
        why,
    })?;
    let body = fetch(&url, limits).await?;
    let release = parse_feed(&body)?;
    tracing::info!(feed = %url, latest = %release.version, current = %current, "update check");
    if is_newer(&release.version, current) {
        Ok(UpdateStatus::Available(release))
    } else {
        Ok(UpdateStatus::UpToDate {
            latest: release.version,
        })
    }
}
