//! A real OS keychain round trip. With `LANGO_TEST_KEYCHAIN=required` (CI runs it inside
//! `dbus-run-session` with an unlocked gnome-keyring) the keychain must work; without it,
//! an unavailable keychain is a skip, not a failure.

use lango_core::secrets::{probe_keychain, ApiKey, KeyLocation, KeychainStatus, SecretStore};

#[test]
fn keychain_set_get_through_a_new_store_and_delete() {
    let required = std::env::var("LANGO_TEST_KEYCHAIN").is_ok_and(|v| v == "required");
    let status = probe_keychain();
    match (&status, required) {
        (KeychainStatus::Available, _) => {}
        (KeychainStatus::Unavailable { reason }, true) => {
            panic!("LANGO_TEST_KEYCHAIN=required but the keychain is unavailable: {reason}")
        }
        (KeychainStatus::Unavailable { reason }, false) => {
            println!("SKIP keychain_set_get_through_a_new_store_and_delete: keychain unavailable ({reason}); set LANGO_TEST_KEYCHAIN=required to enforce");
            return;
        }
    }

    // Unique per run so parallel CI jobs on one keychain don't collide; no env var has it.
    let id = format!("lango-test-{}", std::process::id());
    let secret = format!("sk-keychain-test-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();

    let store = SecretStore::new(status.clone(), false, dir.path());
    assert_eq!(
        store.set(&id, &ApiKey::new(secret.clone())).unwrap(),
        KeyLocation::Keychain
    );

    let fresh = SecretStore::new(status.clone(), false, dir.path());
    let (key, location) = fresh.get(&id).unwrap().expect("key stored in the keychain");
    assert_eq!(key.expose(), secret);
    assert_eq!(location, KeyLocation::Keychain);
    assert_eq!(
        fresh.location(&id.to_uppercase()).unwrap(),
        KeyLocation::Keychain
    );
    assert!(
        !dir.path().join("secrets.json").exists(),
        "no plaintext file with a keychain"
    );

    fresh.delete(&id).unwrap();
    fresh.delete(&id).unwrap(); // idempotent
    let after = SecretStore::new(status, false, dir.path());
    assert!(
        after.get(&id).unwrap().is_none(),
        "key still present after delete"
    );
}
