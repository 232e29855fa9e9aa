//! The `ApiKey` newtype: a secret string that never prints itself.
//!
//! Owns redaction (`Debug`/`Display` show `ApiKey(***)`) and best-effort wiping on drop.
//! It must not store or look keys up (`store` does).

use std::fmt;

/// An API key. The only way to see the text is [`ApiKey::expose`], so a key cannot reach a
/// log line or an error message through `{:?}` or `{}` by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key, trimming the whitespace a paste or `$(cat key.txt)` tends to carry.
    pub fn new(key: impl Into<String>) -> Self {
        // Wrapped first so the untrimmed original is wiped too when we copy out of it.
        let raw = Self(key.into());
        if raw.0.trim().len() == raw.0.len() {
            raw
        } else {
            Self(raw.0.trim().to_owned())
        }
    }

    /// The key text, for building a request header. Do not log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl Drop for ApiKey {
    fn drop(&mut self) {
        // Best effort without `unsafe`: overwrite our buffer so the key does not linger in
        // freed memory. Copies made by callers (`expose().to_owned()`) are theirs to manage.
        let mut bytes = std::mem::take(&mut self.0).into_bytes();
        bytes.fill(0);
        std::hint::black_box(&bytes);
    }
}
