//! Settings → About's "Check for updates": the saved feed (`updates.feedUrl`) asked once per
//! click through `crate::update`. Nothing is downloaded or installed; a newer version is
//! reported with its link.

use super::dto::{UpdateCheck, UpdateOutcome, UpdateProblem};
use super::App;
use crate::update::{self, UpdateError, UpdateStatus, CURRENT_VERSION};

impl App {
    /// Checks the saved release feed. Never an `Err`: a failure is an answer to show.
    pub async fn check_for_updates(&self) -> UpdateCheck {
        let feed = {
            let running = self.inner.running.read().await;
            running.settings.updates.feed().map(str::to_owned)
        };
        update_check(update::check(feed.as_deref()).await)
    }
}

/// The wire form of a check's result.
pub fn update_check(result: Result<UpdateStatus, UpdateError>) -> UpdateCheck {
    let mut check = UpdateCheck {
        current: CURRENT_VERSION.to_owned(),
        outcome: UpdateOutcome::Failed,
        latest: None,
        url: None,
        notes: None,
        published: None,
        error: None,
    };
    match result {
        Ok(UpdateStatus::UpToDate { latest }) => {
            check.outcome = UpdateOutcome::UpToDate;
            check.latest = Some(latest.to_string());
        }
        Ok(UpdateStatus::Available(release)) => {
            check.outcome = UpdateOutcome::Available;
            check.latest = Some(release.version.to_string());
            check.url = release.url;
            check.notes = Some(release.notes).filter(|n| !n.trim().is_empty());
            check.published = release.published;
        }
        Err(e) => {
            if matches!(e, UpdateError::NotConfigured) {
                check.outcome = UpdateOutcome::Off;
            } else {
                tracing::warn!("update check failed: {e}");
            }
            check.error = Some(UpdateProblem {
                code: e.code().to_owned(),
                message: e.summary(),
                detail: e.to_string(),
            });
        }
    }
    check
}
