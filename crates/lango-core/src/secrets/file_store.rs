//! The opt-in plaintext key file `<config_dir>/secrets.json` (mode 0600 on unix).
//!
//! On Windows no ACL is set: the file inherits its folder's, which under the default
//! `%APPDATA%\Lango\Lango\config` grants only the user, SYSTEM and Administrators — the
//! readers a 0600 file has on Unix (owner and root). With `LANGO_HOME` elsewhere it gets that
//! folder's ACL (documented in the README). Windows always has its Credential Manager, so
//! this fallback is for Linux desktops without a Secret Service.
//!
//! Owns that file's format (`{ "apiKeys": { "<provider id>": "<key>" } }`) and its atomic,
//! owner-only writes. It must not decide *whether* the file may be used: `store` only calls
//! in here when `secrets.allowFileStore` is on (or to delete). A malformed file is reported,
//! never overwritten.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::api_key::ApiKey;
use super::error::SecretsError;

/// File name of the key file inside the config folder.
pub const SECRETS_FILE: &str = "secrets.json";

#[derive(Debug, Clone)]
pub(crate) struct FileStore {
    path: PathBuf,
}

impl FileStore {
    pub fn new(config_dir: &Path) -> Self {
        Self {
            path: config_dir.join(SECRETS_FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn get(&self, provider_id: &str) -> Result<Option<ApiKey>, SecretsError> {
        Ok(self.read_all()?.remove(provider_id))
    }

    pub fn set(&self, provider_id: &str, key: &ApiKey) -> Result<(), SecretsError> {
        let mut keys = self.read_all()?;
        keys.insert(provider_id.to_owned(), key.clone());
        self.write_all(&keys)
    }

    /// Removes the key; a missing file or entry is fine.
    pub fn delete(&self, provider_id: &str) -> Result<(), SecretsError> {
        let mut keys = self.read_all()?;
        if keys.remove(provider_id).is_some() {
            self.write_all(&keys)?;
        }
        Ok(())
    }

    fn error(&self, reason: impl Into<String>) -> SecretsError {
        SecretsError::File {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn read_all(&self) -> Result<BTreeMap<String, ApiKey>, SecretsError> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(self.error(e.to_string())),
        };
        // Report position only: serde_json's message could quote part of a key.
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            self.error(format!(
                "not valid JSON (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        let Some(keys) = value.get("apiKeys").and_then(Value::as_object) else {
            return Err(self.error("expected an object with an \"apiKeys\" object"));
        };
        keys.iter()
            .map(|(id, key)| match key.as_str() {
                Some(k) => Ok((id.clone(), ApiKey::new(k))),
                None => Err(self.error(format!("the key for \"{id}\" is not a string"))),
            })
            .collect()
    }

    /// Atomic: a 0600 temp file is written and fsynced, then renamed over the real one.
    fn write_all(&self, keys: &BTreeMap<String, ApiKey>) -> Result<(), SecretsError> {
        let map: Map<String, Value> = keys
            .iter()
            .map(|(id, key)| (id.clone(), Value::String(key.expose().to_owned())))
            .collect();
        let mut doc = Map::new();
        doc.insert("apiKeys".into(), Value::Object(map));
        let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
        text.push('\n');

        let dir = self.path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir)
            .map_err(|e| self.error(format!("cannot create {}: {e}", dir.display())))?;
        let tmp = self.path.with_file_name(format!("{SECRETS_FILE}.tmp"));
        let result =
            write_private(&tmp, text.as_bytes()).and_then(|()| fs::rename(&tmp, &self.path));
        // The temp copy holds keys; don't leave it behind after a failure.
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        // Overwrite our copy of the plaintext before it is freed.
        let mut bytes = text.into_bytes();
        bytes.fill(0);
        std::hint::black_box(&bytes);
        result.map_err(|e| self.error(e.to_string()))?;
        #[cfg(unix)]
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Creates `path` readable by the owner only (0600) and writes it durably.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A stale temp file would keep its old permissions through `truncate`; start fresh.
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        // The umask can only remove bits, but be explicit rather than rely on it.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}
