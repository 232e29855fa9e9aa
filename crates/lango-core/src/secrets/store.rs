//! `SecretStore`: where an API key is looked up, saved and deleted.
//!
//! Owns the policy between backends: read env var → keychain → opt-in file; write keychain,
//! else the opt-in file, else refuse (never a silent plaintext fallback). It must not talk
//! to `keyring` or the file directly beyond the backend modules, nor read settings itself
//! (callers pass `secrets.allowFileStore` in).

use std::fmt;
use std::path::{Path, PathBuf};

use super::api_key::ApiKey;
use super::env::{self, env_var_name};
use super::error::SecretsError;
use super::file_store::FileStore;
use super::keychain::{self, KeychainStatus};

/// Where a provider's key currently comes from, for the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum KeyLocation {
    Environment {
        var: String,
    },
    Keychain,
    /// The opt-in plaintext file; callers should show a warning.
    File {
        path: PathBuf,
    },
    Missing,
}

impl fmt::Display for KeyLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Environment { var } => write!(f, "from the environment variable {var}"),
            Self::Keychain => f.write_str("stored in the OS keychain"),
            Self::File { path } => write!(f, "stored unencrypted in {}", path.display()),
            Self::Missing => f.write_str("not set"),
        }
    }
}

/// Looks keys up and stores them according to what this session can do.
#[derive(Debug, Clone)]
pub struct SecretStore {
    /// The keychain's status as the caller probed it; None: this process's, asked for only
    /// when needed ([`keychain::session_status`]).
    keychain: Option<KeychainStatus>,
    file: Option<FileStore>,
    /// Kept even without the opt-in so `delete` can clean up a file written earlier.
    file_for_delete: FileStore,
}

impl SecretStore {
    /// A store that trusts `keychain` (a [`keychain::probe_keychain`] result, e.g. from a
    /// short-lived command that probes anyway); `allow_file_store` is
    /// `settings.secrets.allowFileStore`.
    pub fn new(keychain: KeychainStatus, allow_file_store: bool, config_dir: &Path) -> Self {
        Self::with(Some(keychain), allow_file_store, config_dir)
    }

    /// A store that asks whether the keychain works only when it must: reading a key tries
    /// the keychain without a probe; storing or deleting one probes (once per process).
    pub fn probing_when_needed(allow_file_store: bool, config_dir: &Path) -> Self {
        Self::with(None, allow_file_store, config_dir)
    }

    fn with(keychain: Option<KeychainStatus>, allow_file_store: bool, config_dir: &Path) -> Self {
        let file = FileStore::new(config_dir);
        Self {
            keychain,
            file: allow_file_store.then(|| file.clone()),
            file_for_delete: file,
        }
    }

    /// Whether the keychain works (probes it the first time in this process; blocks).
    pub fn keychain_status(&self) -> KeychainStatus {
        match &self.keychain {
            Some(status) => status.clone(),
            None => keychain::session_status(),
        }
    }

    /// Whether a read should try the keychain: unless it is known not to work.
    fn may_read_keychain(&self) -> bool {
        match &self.keychain {
            Some(status) => status.is_available(),
            None => keychain::known_status().is_none_or(|s| s.is_available()),
        }
    }

    /// The key and where it came from: env var, then keychain (if available), then the file
    /// (if opted in). A keychain failure does not hide a key in the file, but is returned
    /// when nothing else has the key.
    pub fn get(&self, provider_id: &str) -> Result<Option<(ApiKey, KeyLocation)>, SecretsError> {
        let id = normalize(provider_id)?;
        let var = env_var_name(&id);
        if let Some(key) = env::read(&var) {
            return Ok(Some((key, KeyLocation::Environment { var })));
        }
        let mut keychain_error = None;
        if self.may_read_keychain() {
            match keychain::get(&id) {
                Ok(Some(key)) => return Ok(Some((ApiKey::new(key), KeyLocation::Keychain))),
                Ok(None) => {}
                Err(reason) => {
                    tracing::warn!(provider = %id, %reason, "keychain read failed");
                    if self.keychain.is_none() {
                        keychain::note_read_failure(&reason);
                    }
                    keychain_error = Some(SecretsError::Keychain {
                        provider: id.clone(),
                        reason,
                    });
                }
            }
        }
        if let Some(file) = &self.file {
            if let Some(key) = file.get(&id)? {
                let path = file.path().to_owned();
                return Ok(Some((key, KeyLocation::File { path })));
            }
        }
        match keychain_error {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }

    /// Stores a key in the keychain, or in the opt-in file when there is no keychain
    /// (the returned `KeyLocation::File` is the caller's cue to show a warning).
    pub fn set(&self, provider_id: &str, key: &ApiKey) -> Result<KeyLocation, SecretsError> {
        let id = normalize(provider_id)?;
        if key.is_empty() {
            return Err(SecretsError::EmptyKey { provider: id });
        }
        match (&self.keychain_status(), &self.file) {
            (KeychainStatus::Available, _) => {
                keychain::set(&id, key.expose()).map_err(|reason| SecretsError::Keychain {
                    provider: id.clone(),
                    reason,
                })?;
                Ok(KeyLocation::Keychain)
            }
            (KeychainStatus::Unavailable { .. }, Some(file)) => {
                file.set(&id, key)?;
                Ok(KeyLocation::File {
                    path: file.path().to_owned(),
                })
            }
            (KeychainStatus::Unavailable { reason }, None) => Err(SecretsError::NoSecureStore {
                env_var: env_var_name(&id),
                provider: id,
                reason: reason.clone(),
            }),
        }
    }

    /// Removes the key from the keychain and the file (even if the file opt-in has since
    /// been turned off). Idempotent. An environment variable is the user's and stays.
    pub fn delete(&self, provider_id: &str) -> Result<(), SecretsError> {
        let id = normalize(provider_id)?;
        if self.keychain_status().is_available() {
            keychain::delete(&id).map_err(|reason| SecretsError::Keychain {
                provider: id.clone(),
                reason,
            })?;
        }
        self.file_for_delete.delete(&id)
    }

    /// Where the key for `provider_id` would be read from ([`KeyLocation::Missing`] if none).
    pub fn location(&self, provider_id: &str) -> Result<KeyLocation, SecretsError> {
        Ok(self
            .get(provider_id)?
            .map_or(KeyLocation::Missing, |(_, location)| location))
    }
}

/// Same normalisation as settings' provider ids, so "OpenAI" and "openai" share a key.
fn normalize(provider_id: &str) -> Result<String, SecretsError> {
    let id = crate::config::normalize_provider_id(provider_id);
    if id.is_empty() {
        Err(SecretsError::EmptyProviderId)
    } else {
        Ok(id)
    }
}
