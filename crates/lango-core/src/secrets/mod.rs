//! API keys: looked up, stored and deleted outside the settings file.
//!
//! Owns the key backends (environment variable, OS keychain, opt-in 0600 file) and the
//! policy between them. Keys must never reach the settings file, the database, logs or
//! `Debug` output: they travel as [`ApiKey`], which prints as `ApiKey(***)`. This module
//! must not read or write `settings.json` (callers pass `secrets.allowFileStore` in).
//!
//! The keychain is probed once per process, when something first needs to know whether it
//! works (`keychain::session_status`), never at start: build stores with
//! [`SecretStore::probing_when_needed`].

mod api_key;
mod env;
mod error;
mod file_store;
mod keychain;
mod store;

pub use api_key::ApiKey;
pub use env::env_var_name;
pub use error::SecretsError;
pub use file_store::SECRETS_FILE;
pub use keychain::{
    known_status, probe_keychain, probes_run, session_status, KeychainStatus, KEYCHAIN_SERVICE,
};
pub use store::{KeyLocation, SecretStore};
