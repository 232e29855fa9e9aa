//! The hand-written `baseUrl` check (no url crate: we only need "http(s) with a host").
//!
//! Owns deciding whether a string is an acceptable provider base URL. It must not fetch,
//! rewrite query strings or resolve hosts.

/// Returns the URL trimmed of spaces and trailing `/` (clients append paths such as
/// `/chat/completions`), or why it is not an http/https URL with a host.
pub(crate) fn check_base_url(raw: &str) -> Result<String, &'static str> {
    let url = raw.trim().trim_end_matches('/');
    if url.chars().any(char::is_whitespace) {
        return Err("must not contain spaces");
    }
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("http://") {
        &url["http://".len()..]
    } else if lower.starts_with("https://") {
        &url["https://".len()..]
    } else {
        return Err("must start with http:// or https://");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // userinfo@host:port → host
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = if host_port.starts_with('[') {
        // IPv6 literal: keep up to the closing bracket.
        host_port
            .split(']')
            .next()
            .map(|h| h.trim_start_matches('['))
            .unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.is_empty() {
        return Err("has no host");
    }
    Ok(url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::check_base_url;

    #[test]
    fn accepts_http_and_https_with_host() {
        assert_eq!(
            check_base_url(" https://api.x.com/v1/ ").as_deref(),
            Ok("https://api.x.com/v1")
        );
        assert!(check_base_url("http://localhost:11434").is_ok());
        assert!(check_base_url("http://[::1]:8080/v1").is_ok());
        assert!(check_base_url("HTTPS://Example.com").is_ok());
    }

    #[test]
    fn rejects_other_schemes_and_missing_hosts() {
        assert!(check_base_url("ftp://x.com").is_err());
        assert!(check_base_url("localhost:11434").is_err());
        assert!(check_base_url("http://").is_err());
        assert!(check_base_url("http://:80/v1").is_err());
        assert!(check_base_url("http://a b.com").is_err());
    }
}
