//! Version numbers as releases name them (`0.2.0`, `v0.2.0`, `0.3.0-beta.1`) and when one
//! is worth telling the user about.
//!
//! Semantic versioning precedence (`semver`): `0.10.0` > `0.9.0`, `0.2.0` > `0.2.0-rc.1`,
//! build metadata (`+abc`) ignored. A pre-release is offered only to someone already running
//! a pre-release: a user of a stable build is not pushed onto betas.

use std::cmp::Ordering;

use semver::Version;

use super::UpdateError;

/// Parses `1.2.3`, with an optional leading `v`/`V` and surrounding spaces.
pub fn parse_version(raw: &str) -> Result<Version, UpdateError> {
    let text = raw.trim();
    let text = text
        .strip_prefix('v')
        .or_else(|| text.strip_prefix('V'))
        .unwrap_or(text);
    Version::parse(text).map_err(|e| UpdateError::BadVersion {
        version: raw.chars().take(40).collect(),
        detail: e.to_string(),
    })
}

/// Whether `latest` should be offered to someone running `current`.
pub fn is_newer(latest: &Version, current: &Version) -> bool {
    if !latest.pre.is_empty() && current.pre.is_empty() {
        return false;
    }
    latest.cmp_precedence(current) == Ordering::Greater
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        parse_version(s).unwrap()
    }

    #[test]
    fn versions_compare_by_number_not_by_text() {
        assert!(is_newer(&v("0.10.0"), &v("0.9.0")));
        assert!(is_newer(&v("v0.2.0"), &v("0.1.9")));
        assert!(!is_newer(&v("0.1.0"), &v("0.1.0")));
        assert!(!is_newer(&v("0.1.0+build.7"), &v("0.1.0")));
        assert!(!is_newer(&v("0.0.9"), &v("0.1.0")));
    }

    #[test]
    fn a_stable_build_is_not_offered_a_pre_release_but_a_beta_is_offered_the_release() {
        assert!(!is_newer(&v("0.3.0-beta.1"), &v("0.2.0")));
        assert!(is_newer(&v("0.2.0"), &v("0.2.0-rc.1")));
        assert!(is_newer(&v("0.2.0-rc.2"), &v("0.2.0-rc.1")));
    }

    #[test]
    fn a_leading_v_and_spaces_are_accepted_but_not_words() {
        assert_eq!(v(" V1.2.3 "), Version::new(1, 2, 3));
        assert!(parse_version("latest").is_err());
        assert!(parse_version("1.2").is_err());
    }
}
