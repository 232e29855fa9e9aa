//! Errors of the secrets module.
//!
//! Owns `SecretsError`. Messages must never contain a key: they name providers, variables
//! and paths only.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// No keychain, and the user has not opted in to the plaintext file.
    #[error(
        "there is no secure place to store the API key for \"{provider}\": the OS keychain is unavailable ({reason}). \
         Either set the environment variable {env_var}, or set \"secrets\": {{ \"allowFileStore\": true }} in settings.json \
         to store it unencrypted in a file only your user can read"
    )]
    NoSecureStore {
        provider: String,
        env_var: String,
        reason: String,
    },

    #[error("the OS keychain failed for \"{provider}\": {reason}")]
    Keychain { provider: String, reason: String },

    #[error("the key file {} could not be used: {reason}", path.display())]
    File { path: PathBuf, reason: String },

    #[error("a provider id must not be empty")]
    EmptyProviderId,

    #[error("the API key for \"{provider}\" is empty")]
    EmptyKey { provider: String },
}
