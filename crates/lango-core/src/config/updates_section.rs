//! The `updates` section: where the app may look for a newer release, and when.
//!
//! Owns `feedUrl`: a JSON release feed; empty (the default) = never look, so no URL means no
//! network. The app looks only when the user asks (Settings → About, `lango update check`).
//! Fetching and reading the feed is `crate::update`'s job; the URL rule is shared with it.

use serde_json::Value;

use super::fields::{Fields, Report};
use crate::update::link::check_feed_url;

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateSettings {
    /// `""` = update checks are off.
    pub feed_url: String,
}

impl UpdateSettings {
    /// The feed to check, `None` when checks are off.
    pub fn feed(&self) -> Option<&str> {
        Some(self.feed_url.as_str()).filter(|u| !u.is_empty())
    }
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> UpdateSettings {
    let mut updates = UpdateSettings::default();
    let Some(f) = Fields::open(value, "updates", &["feedUrl"], report) else {
        return updates;
    };
    if let Some(url) = f.string("feedUrl", report) {
        if !url.trim().is_empty() {
            match check_feed_url(&url) {
                Ok(url) => updates.feed_url = url,
                Err(why) => {
                    let path = f.path("feedUrl");
                    report.problem(&path, format!("{path} {why}, got \"{}\"", url.trim()));
                }
            }
        }
    }
    updates
}
