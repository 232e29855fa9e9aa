//! Which addresses the update check may fetch and show.
//!
//! - The **feed** must be `https://`. Plain `http://` is accepted only for this machine
//!   (`localhost`, `127.0.0.0/8`, `[::1]`: a local mirror, tests): over plain HTTP anyone on
//!   the network path could announce a fake release with a link of their choosing.
//! - The **release link** shown to the user must be an `http(s)://` address with a host;
//!   `javascript:`, `file:`, `data:` and the like are refused, since the link is opened by
//!   the system browser on a click.

use std::net::IpAddr;

use reqwest::Url;

/// The feed URL, trimmed, or why it cannot be used (the message completes "… `why`").
pub fn check_feed_url(raw: &str) -> Result<String, &'static str> {
    let trimmed = raw.trim();
    let url = Url::parse(trimmed).map_err(|_| "is not a web address (https://…)")?;
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err("has no host");
    };
    match url.scheme() {
        "https" => Ok(trimmed.to_owned()),
        "http" if is_loopback(host) => Ok(trimmed.to_owned()),
        "http" => Err("must use https:// (plain http:// is only allowed for localhost)"),
        _ => Err("must start with https://"),
    }
}

/// The release link as it will be opened, or why it is refused.
pub fn check_release_link(raw: &str) -> Result<String, &'static str> {
    let trimmed = raw.trim();
    let url = Url::parse(trimmed).map_err(|_| "is not a web address")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("is not an http:// or https:// address");
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("has no host");
    }
    // The serialised form: what the browser is handed is exactly what was checked.
    Ok(url.to_string())
}

fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_must_be_https_unless_it_is_on_this_machine() {
        assert!(check_feed_url("https://example.com/latest.json").is_ok());
        assert!(check_feed_url(" http://127.0.0.1:8080/feed.json ").is_ok());
        assert!(check_feed_url("http://localhost/feed.json").is_ok());
        assert!(check_feed_url("http://[::1]:9/feed.json").is_ok());
        assert!(check_feed_url("http://example.com/latest.json").is_err());
        assert!(check_feed_url("http://127.0.0.1.evil.com/x").is_err());
        assert!(check_feed_url("ftp://example.com/latest.json").is_err());
        assert!(check_feed_url("file:///etc/passwd").is_err());
        assert!(check_feed_url("example.com/latest.json").is_err());
    }

    #[test]
    fn a_release_link_must_be_a_web_address() {
        assert_eq!(
            check_release_link("https://github.com/o/lango/releases/tag/v0.2.0").as_deref(),
            Ok("https://github.com/o/lango/releases/tag/v0.2.0")
        );
        assert!(check_release_link("http://example.com/").is_ok());
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "file:///C:/Windows/System32/calc.exe",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox",
            "smb://host/share",
            "/relative/path",
            "",
        ] {
            assert!(check_release_link(bad).is_err(), "{bad} must be refused");
        }
    }
}
