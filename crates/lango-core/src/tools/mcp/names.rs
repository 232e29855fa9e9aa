//! The names tools are offered to models under: `server__tool`, made valid for every
//! provider (OpenAI `^[a-zA-Z0-9_-]{1,64}$`; Gemini also wants a letter or `_` first) and
//! unique, with a map back to the exact server and tool.
//!
//! Owns the sanitising and de-duplication. It must not know what a tool does.

use std::collections::HashSet;

/// The longest name every provider accepts.
pub const MAX_NAME_LEN: usize = 64;
const SEPARATOR: &str = "__";

/// The name for `tool` of `server`, not in `taken` (which it joins).
pub fn exposed_name(server: &str, tool: &str, taken: &mut HashSet<String>) -> String {
    let base = format!("{}{SEPARATOR}{}", clean(server), clean(tool));
    let base = valid_start(base);
    let mut name = fit(&base, "");
    let mut n = 2;
    while taken.contains(&name) {
        name = fit(&base, &format!("_{n}"));
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Every character outside `[A-Za-z0-9_-]` becomes `_`; empty becomes `tool`.
fn clean(part: &str) -> String {
    let cleaned: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "tool".to_owned()
    } else {
        cleaned
    }
}

/// Gemini wants a letter or an underscore first.
fn valid_start(name: String) -> String {
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => name,
        _ => format!("_{name}"),
    }
}

/// `base` + `suffix`, cutting `base` so the whole fits [`MAX_NAME_LEN`] (all ASCII here).
fn fit(base: &str, suffix: &str) -> String {
    let room = MAX_NAME_LEN - suffix.len();
    let cut = if base.len() > room {
        &base[..room]
    } else {
        base
    };
    format!("{cut}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_valid_everywhere(name: &str) -> bool {
        (1..=MAX_NAME_LEN).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
    }

    #[test]
    fn names_are_server_then_tool() {
        let mut taken = HashSet::new();
        assert_eq!(
            exposed_name("files", "read_file", &mut taken),
            "files__read_file"
        );
    }

    #[test]
    fn names_any_provider_rejects_are_made_valid() {
        let mut taken = HashSet::new();
        for (server, tool) in [
            ("my server", "get.weather"),
            ("1password", "item/read"),
            ("", ""),
            ("ünïcödé", "工具"),
            ("a".repeat(80).as_str(), "b".repeat(80).as_str()),
        ] {
            let name = exposed_name(server, tool, &mut taken);
            assert!(is_valid_everywhere(&name), "{name}");
        }
    }

    #[test]
    fn two_servers_with_the_same_tool_names_get_distinct_names() {
        let mut taken = HashSet::new();
        let a = exposed_name("a b", "echo", &mut taken);
        let b = exposed_name("a.b", "echo", &mut taken);
        let c = exposed_name("a_b", "echo", &mut taken);
        assert_eq!(a, "a_b__echo");
        assert_eq!(b, "a_b__echo_2");
        assert_eq!(c, "a_b__echo_3");
        let long = "x".repeat(100);
        let d = exposed_name(&long, "t", &mut taken);
        let e = exposed_name(&long, "t", &mut taken);
        assert_ne!(d, e);
        assert!(is_valid_everywhere(&e));
    }
}
