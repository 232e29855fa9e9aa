//! Secrets without an OS keychain: env var, refusal without opt-in, the 0600 file with it.
//!
//! The first test points D-Bus at a socket that does not exist before probing. It lives in
//! its own test binary so that environment change cannot leak into other test files, and it
//! is a single test so nothing else in this binary probes concurrently.
// The keychain-less test is Linux's (D-Bus); elsewhere only part of these imports is used.
#![cfg_attr(not(target_os = "linux"), allow(unused_imports))]

use lango_core::config::{self, Settings};
use lango_core::paths::AppPaths;
use lango_core::secrets::{
    probe_keychain, ApiKey, KeyLocation, KeychainStatus, SecretStore, SecretsError,
};

fn unavailable() -> KeychainStatus {
    KeychainStatus::Unavailable {
        reason: "test".into(),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn without_a_keychain_only_the_env_var_and_the_opted_in_file_hold_keys() {
    // Before any keychain call in this process; D-Bus reads it on connect.
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent");
    let status = probe_keychain();
    let KeychainStatus::Unavailable { reason } = &status else {
        panic!("probe must report Unavailable with a dead D-Bus, got {status:?}");
    };
    assert!(!reason.is_empty());

    let home = tempfile::tempdir().unwrap();
    let paths = AppPaths::under(home.path());

    // No opt-in: refuse, and say what the options are.
    let store = SecretStore::new(status.clone(), false, &paths.config_dir);
    let err = store
        .set("MyProvider", &ApiKey::new("sk-no-store-1234"))
        .unwrap_err();
    assert!(matches!(err, SecretsError::NoSecureStore { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("LANGO_MYPROVIDER_API_KEY"), "{text}");
    assert!(text.contains("allowFileStore"), "{text}");
    assert!(!text.contains("sk-no-store-1234"), "{text}");
    assert!(!paths.config_dir.join("secrets.json").exists());
    assert_eq!(store.location("myprovider").unwrap(), KeyLocation::Missing);

    // The environment variable works with no store at all.
    std::env::set_var("LANGO_ENV_ONLY_API_KEY", "sk-from-env-5678\n");
    let (key, location) = store.get("env-only").unwrap().expect("env key");
    assert_eq!(key.expose(), "sk-from-env-5678");
    assert_eq!(
        location,
        KeyLocation::Environment {
            var: "LANGO_ENV_ONLY_API_KEY".into()
        }
    );

    // Opted in: the plaintext file, 0600, and never settings.json.
    let mut settings = Settings::default();
    settings.secrets.allow_file_store = true;
    config::save(&paths, &settings).unwrap();
    let store = SecretStore::new(
        status.clone(),
        settings.secrets.allow_file_store,
        &paths.config_dir,
    );
    let secret = "sk-file-store-9abc";
    let location = store.set("Work", &ApiKey::new(secret)).unwrap();
    let file = paths.config_dir.join("secrets.json");
    assert_eq!(location, KeyLocation::File { path: file.clone() });

    let reopened = SecretStore::new(status.clone(), true, &paths.config_dir);
    let (key, location) = reopened.get("work").unwrap().expect("file key");
    assert_eq!(key.expose(), secret);
    assert_eq!(location, KeyLocation::File { path: file.clone() });

    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "secrets.json mode is {mode:o}");
    }
    let settings_text = std::fs::read_to_string(paths.settings_file()).unwrap();
    assert!(
        !settings_text.contains(secret),
        "key leaked into settings.json"
    );
    assert!(std::fs::read_to_string(&file).unwrap().contains(secret));
    assert!(!paths.config_dir.join("secrets.json.tmp").exists());

    // The env var still wins over the file.
    std::env::set_var("LANGO_WORK_API_KEY", "sk-env-wins");
    let (key, location) = reopened.get("work").unwrap().unwrap();
    assert_eq!(key.expose(), "sk-env-wins");
    assert!(matches!(location, KeyLocation::Environment { .. }));
    std::env::remove_var("LANGO_WORK_API_KEY");

    // Turning the opt-in off hides the file; delete still cleans it.
    let strict = SecretStore::new(status, false, &paths.config_dir);
    assert!(strict.get("work").unwrap().is_none());
    strict.delete("work").unwrap();
    strict.delete("work").unwrap();
    assert!(reopened.get("work").unwrap().is_none());
    assert!(!std::fs::read_to_string(&file).unwrap().contains(secret));
}

#[test]
fn file_store_keeps_several_providers_and_delete_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let store = SecretStore::new(unavailable(), true, dir.path());
    store.set("filetest-a", &ApiKey::new("key-a")).unwrap();
    store.set("filetest-b", &ApiKey::new("key-b")).unwrap();
    store.set("filetest-a", &ApiKey::new("key-a2")).unwrap();
    assert_eq!(
        store.get("filetest-a").unwrap().unwrap().0.expose(),
        "key-a2"
    );
    store.delete("filetest-a").unwrap();
    store.delete("filetest-a").unwrap();
    assert!(store.get("filetest-a").unwrap().is_none());
    assert_eq!(
        store.get("filetest-b").unwrap().unwrap().0.expose(),
        "key-b"
    );
    // Deleting from a store that never had a file is fine too.
    SecretStore::new(unavailable(), true, &dir.path().join("none"))
        .delete("filetest-a")
        .unwrap();
}

#[test]
fn a_malformed_key_file_is_reported_and_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secrets.json");
    std::fs::write(&file, "{ \"apiKeys\": { \"x\": \"sk-half").unwrap();
    let store = SecretStore::new(unavailable(), true, dir.path());
    let err = store.set("filetest-c", &ApiKey::new("k")).unwrap_err();
    assert!(matches!(err, SecretsError::File { .. }), "{err:?}");
    assert!(!err.to_string().contains("sk-half"), "{err}");
    assert!(store.get("filetest-c").is_err());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{ \"apiKeys\": { \"x\": \"sk-half"
    );
}

#[test]
fn empty_keys_and_provider_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = SecretStore::new(unavailable(), true, dir.path());
    assert!(matches!(
        store.set("filetest-d", &ApiKey::new("  \n")),
        Err(SecretsError::EmptyKey { .. })
    ));
    assert!(matches!(
        store.set("  ", &ApiKey::new("k")),
        Err(SecretsError::EmptyProviderId)
    ));
}
