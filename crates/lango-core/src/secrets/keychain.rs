//! The OS keychain backend (`keyring`: macOS Keychain, Windows Credential Manager, the
//! Secret Service over D-Bus on Linux) and the probe that decides if it works — run once per
//! process, the first time something needs the answer ([`session_status`]), never at start.
//!
//! Owns every `keyring` call. It must not fall back to anything else (`store` decides) and
//! must never panic or put a key in an error message. Entries use service `lango` and the
//! provider id as the account.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use keyring::{Entry, Error as KeyringError};

/// The keychain "service" every Lango entry is filed under.
pub const KEYCHAIN_SERVICE: &str = "lango";

/// Whether the OS keychain can store and return a value in this session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum KeychainStatus {
    Available,
    Unavailable { reason: String },
}

impl KeychainStatus {
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available)
    }
}

/// This process's answer: probed the first time something needs it, or learnt from a read
/// that failed before any probe ([`note_read_failure`]); then kept for the process's life.
static SESSION: OnceLock<KeychainStatus> = OnceLock::new();

/// Round-trip probes run by this process.
static PROBES: AtomicUsize = AtomicUsize::new(0);

/// Whether the keychain works in this session: probed on the first call (a write, a read
/// and a delete: ~60–130 ms over D-Bus on the measuring machine, seconds on a broken one,
/// and an unlock prompt on a locked keyring), the answer kept. So only what needs it pays —
/// storing a key, the settings screen — and never the app's start: a person whose keys come
/// from the environment, or who runs a local model, is never asked to unlock a keyring.
/// Blocks: call it off the UI thread.
pub fn session_status() -> KeychainStatus {
    SESSION.get_or_init(probe_keychain).clone()
}

/// What this process knows without asking the keychain (None: nothing yet).
pub fn known_status() -> Option<KeychainStatus> {
    SESSION.get().cloned()
}

/// A key read failed before anything probed: the keychain counts as unavailable for this
/// process, as a failed probe would make it, so later reads do not wait on it again.
pub(crate) fn note_read_failure(reason: &str) {
    let _ = SESSION.set(KeychainStatus::Unavailable {
        reason: format!("reading a key failed: {reason}"),
    });
}

/// How many round-trip probes this process has run (for tests and diagnostics: the app's
/// start runs none).
pub fn probes_run() -> usize {
    PROBES.load(Ordering::Relaxed)
}

/// Checks the keychain with a real round trip: write a throw-away entry, read it back
/// through a *new* `Entry`, delete it. A bare read proves nothing (BUILD-NOTES §6: some
/// backends accept a write and then answer "no entry"; keyring's mock never shares values).
///
/// Every call probes again; [`session_status`] probes once and keeps the answer. It can
/// block for seconds (a broken D-Bus setup stalled ~3 s in D-Bus autolaunch), so run it
/// off the UI thread, e.g. in `tokio::task::spawn_blocking`.
pub fn probe_keychain() -> KeychainStatus {
    PROBES.fetch_add(1, Ordering::Relaxed);
    let started = Instant::now();
    let status =
        guarded(probe_round_trip).unwrap_or_else(|reason| KeychainStatus::Unavailable { reason });
    tracing::debug!(
        ?status,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "keychain probe"
    );
    status
}

fn probe_round_trip() -> Result<KeychainStatus, String> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    // Unique per process and call, so concurrent probes never read each other's entry.
    let account = format!("lango-probe-{}-{nanos}", std::process::id());
    let value = format!("probe-{nanos}");
    let unavailable = |what: &str, e: KeyringError| {
        Ok(KeychainStatus::Unavailable {
            reason: format!("{what}: {e}"),
        })
    };

    let writer = match Entry::new(KEYCHAIN_SERVICE, &account) {
        Ok(entry) => entry,
        Err(e) => return unavailable("cannot open a keychain entry", e),
    };
    if let Err(e) = writer.set_password(&value) {
        return unavailable("cannot write to the keychain", e);
    }
    let reader = match Entry::new(KEYCHAIN_SERVICE, &account) {
        Ok(entry) => entry,
        Err(e) => {
            let _ = writer.delete_credential();
            return unavailable("cannot open a keychain entry", e);
        }
    };
    let read = reader.get_password();
    let deleted = reader.delete_credential();
    match read {
        Ok(v) if v == value => {}
        Ok(_) => {
            return Ok(KeychainStatus::Unavailable {
                reason: "the keychain returned a different value than was stored".into(),
            })
        }
        Err(KeyringError::NoEntry) => {
            return Ok(KeychainStatus::Unavailable {
                reason: "the keychain accepted a value but could not return it (no persistent keychain in this session)".into(),
            })
        }
        Err(e) => return unavailable("cannot read back from the keychain", e),
    }
    match deleted {
        Ok(()) => Ok(KeychainStatus::Available),
        Err(e) => unavailable("cannot delete from the keychain", e),
    }
}

/// Runs a keychain call, turning a panic inside a platform backend into an error: a broken
/// D-Bus must cost the user the keychain, not the app.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err("the keychain backend panicked".to_owned()))
}

fn entry(provider_id: &str) -> Result<Entry, String> {
    Entry::new(KEYCHAIN_SERVICE, provider_id).map_err(|e| e.to_string())
}

/// The stored key, `None` when there is no entry.
pub(crate) fn get(provider_id: &str) -> Result<Option<String>, String> {
    guarded(|| match entry(provider_id)?.get_password() {
        Ok(key) => Ok(Some(key)),
        Err(KeyringError::NoEntry) => Ok(None),
        Err(e) => Err(e.to_string()),
    })
}

pub(crate) fn set(provider_id: &str, key: &str) -> Result<(), String> {
    guarded(|| {
        entry(provider_id)?
            .set_password(key)
            .map_err(|e| e.to_string())
    })
}

/// Removes the entry; a missing one is fine (idempotent).
pub(crate) fn delete(provider_id: &str) -> Result<(), String> {
    guarded(|| match entry(provider_id)?.delete_credential() {
        Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
        Err(e) => Err(e.to_string()),
    })
}
