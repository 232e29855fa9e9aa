//! The release feed: one small JSON object naming the latest release.
//!
//! Lango's own format:
//! `{"version": "0.2.0", "url": "https://…/releases/tag/v0.2.0", "notes": "…", "pubDate": "…"}`
//! (only `version` is required). Tauri's updater `latest.json` is read too —
//! `{"version", "notes", "pub_date", "platforms": {"linux-x86_64": {"url", "signature"}, …}}` —
//! its link being this platform's download when there is no `url`. Unknown fields are
//! ignored: a feed may carry more than Lango reads.

use semver::Version;
use serde::Deserialize;

use super::link::check_release_link;
use super::version::parse_version;
use super::UpdateError;

/// Release notes longer than this are cut (they are shown as plain text in a small panel).
const MAX_NOTES_CHARS: usize = 4_000;

/// The latest release, as the feed describes it (link checked, notes bounded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: Version,
    /// Where to read about or download it: always `http(s)://`.
    pub url: Option<String>,
    pub notes: String,
    /// As the feed wrote it (not parsed: only shown).
    pub published: Option<String>,
}

#[derive(Deserialize)]
struct RawFeed {
    version: Option<serde_json::Value>,
    url: Option<String>,
    notes: Option<String>,
    #[serde(rename = "pubDate", alias = "pub_date")]
    pub_date: Option<String>,
    platforms: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Reads a feed document.
pub fn parse_feed(body: &[u8]) -> Result<Release, UpdateError> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| UpdateError::BadJson {
            detail: e.to_string(),
        })?;
    if !value.is_object() {
        return Err(UpdateError::BadFeed {
            detail: "it is not a JSON object".into(),
        });
    }
    let raw: RawFeed = serde_json::from_value(value).map_err(|e| UpdateError::BadFeed {
        detail: e.to_string(),
    })?;
    let version = match raw.version {
        Some(serde_json::Value::String(s)) => parse_version(&s)?,
        Some(other) => {
            return Err(UpdateError::BadFeed {
                detail: format!("\"version\" must be a string, got {other}"),
            })
        }
        None => {
            return Err(UpdateError::BadFeed {
                detail: "it has no \"version\"".into(),
            })
        }
    };
    let link = raw
        .url
        .filter(|u| !u.trim().is_empty())
        .or_else(|| raw.platforms.as_ref().and_then(platform_url));
    let url = match link {
        Some(link) => Some(
            check_release_link(&link).map_err(|why| UpdateError::BadLink {
                link: link.chars().take(80).collect(),
                why,
            })?,
        ),
        None => None,
    };
    let notes = raw.notes.unwrap_or_default();
    let notes = if notes.chars().count() > MAX_NOTES_CHARS {
        let cut: String = notes.chars().take(MAX_NOTES_CHARS).collect();
        format!("{cut}…")
    } else {
        notes
    };
    Ok(Release {
        version,
        url,
        notes,
        published: raw.pub_date.filter(|d| !d.trim().is_empty()),
    })
}

/// Tauri's key for this build: `linux-x86_64`, `windows-x86_64`, `darwin-aarch64`, …
fn platform_key() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    format!("{os}-{}", std::env::consts::ARCH)
}

fn platform_url(platforms: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    platforms
        .get(&platform_key())
        .and_then(|p| p.get("url"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lango_s_own_feed_is_read() {
        let r = parse_feed(
            br#"{"version":"v0.2.0","url":"https://example.com/r/v0.2.0","notes":"Faster.","pubDate":"2026-11-01"}"#,
        )
        .unwrap();
        assert_eq!(r.version, Version::new(0, 2, 0));
        assert_eq!(r.url.as_deref(), Some("https://example.com/r/v0.2.0"));
        assert_eq!(r.notes, "Faster.");
        assert_eq!(r.published.as_deref(), Some("2026-11-01"));
    }

    #[test]
    fn tauri_s_latest_json_links_to_this_platform_s_download() {
        let key = platform_key();
        let doc = serde_json::json!({
            "version": "0.3.0",
            "notes": "n",
            "pub_date": "2026-11-02T10:00:00Z",
            "platforms": { key: { "url": "https://example.com/Lango.bin", "signature": "sig" },
                           "other-arch": { "url": "https://example.com/other" } }
        });
        let r = parse_feed(doc.to_string().as_bytes()).unwrap();
        assert_eq!(r.version, Version::new(0, 3, 0));
        assert_eq!(r.url.as_deref(), Some("https://example.com/Lango.bin"));
        assert_eq!(r.published.as_deref(), Some("2026-11-02T10:00:00Z"));
    }

    #[test]
    fn a_feed_without_a_version_or_with_a_dangerous_link_is_refused() {
        assert!(matches!(
            parse_feed(br#"{"url":"https://x.y/"}"#),
            Err(UpdateError::BadFeed { .. })
        ));
        assert!(matches!(
            parse_feed(br#"{"version":2}"#),
            Err(UpdateError::BadFeed { .. })
        ));
        assert!(matches!(
            parse_feed(br#"["0.2.0"]"#),
            Err(UpdateError::BadFeed { .. })
        ));
        assert!(matches!(
            parse_feed(br#"{"version":"0.2.0","url":"javascript:alert(1)"}"#),
            Err(UpdateError::BadLink { .. })
        ));
        assert!(matches!(
            parse_feed(b"<html>"),
            Err(UpdateError::BadJson { .. })
        ));
    }

    #[test]
    fn long_notes_are_cut() {
        let doc = serde_json::json!({"version": "1.0.0", "notes": "x".repeat(10_000)});
        let r = parse_feed(doc.to_string().as_bytes()).unwrap();
        assert_eq!(r.notes.chars().count(), MAX_NOTES_CHARS + 1);
    }
}
