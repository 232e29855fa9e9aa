//! The environment-variable backend: `LANGO_<PROVIDER>_API_KEY`.
//!
//! Owns the variable's name and reading it. It must not set or unset variables (keys from
//! the environment are the user's to manage, and the process environment is shared).

use super::api_key::ApiKey;

/// `LANGO_<ID>_API_KEY`: the id uppercased, every non-alphanumeric character as `_`
/// (`my-ollama` → `LANGO_MY_OLLAMA_API_KEY`).
pub fn env_var_name(provider_id: &str) -> String {
    let id: String = provider_id
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("LANGO_{id}_API_KEY")
}

/// The key from the environment; an empty or non-UTF-8 value counts as unset.
pub(crate) fn read(var: &str) -> Option<ApiKey> {
    let value = std::env::var(var).ok()?;
    let key = ApiKey::new(value);
    (!key.is_empty()).then_some(key)
}
