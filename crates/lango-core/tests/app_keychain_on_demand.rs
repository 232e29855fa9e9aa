//! The OS keychain is asked only when something needs it. A start that probed it (a throw-away
//! entry written, read back, deleted) cost ~60–130 ms of D-Bus on every start, once more for
//! each provider an engine built, an unlock prompt on a locked keyring for people whose keys
//! are not even there, and a hung start on a secret service that never answers.
//!
//! One test in its own binary: the probe count is per process.

use lango_core::app::App;
use lango_core::paths::AppPaths;
use lango_core::secrets::{known_status, probes_run};
use serde_json::json;

#[tokio::test]
async fn a_start_never_probes_the_keychain_and_the_settings_screen_probes_it_once() {
    let home = tempfile::tempdir().unwrap();
    // The chat provider's key from its environment variable; the memory model's provider has
    // none anywhere (its key is looked for in the keychain and the file, without a probe).
    std::env::set_var("LANGO_CLOUD_API_KEY", "sk-from-the-environment-0123456789");
    let settings = json!({
        "providers": {
            "cloud": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "defaultModel": "chat-model"},
            "local": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "defaultModel": "memory-model"},
        },
        "agent": {"provider": "cloud"},
        "observationalMemory": {"enabled": true, "provider": "local", "model": "memory-model"},
    });
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();

    let app = App::open(AppPaths::under(home.path()))
        .await
        .expect("app opens");
    let status = app.status().await;
    assert!(
        status.ready,
        "both providers' engines are built: {status:?}"
    );
    assert_eq!(probes_run(), 0, "opening the app probed the keychain");
    // A new chat's defaults come from the document alone.
    let document = app.settings_document().await;
    assert_eq!(document["agent"]["provider"], "cloud");
    assert_eq!(probes_run(), 0, "a new chat's defaults probed the keychain");

    // The settings screen says whether keys can be stored there: it probes, once.
    let first = app.settings().await;
    let probes = probes_run();
    // A read that failed before (no keychain in this session) already settled the answer.
    assert!(probes <= 1, "{probes} probes for one settings screen");
    let known = known_status().expect("the settings screen settled the keychain's status");
    assert_eq!(first.keychain.available, known.is_available());
    let again = app.settings().await;
    assert_eq!(probes_run(), probes, "the answer is kept for the process");
    assert_eq!(again.keychain, first.keychain);

    let env_key = again.keys.iter().find(|k| k.provider == "cloud").unwrap();
    assert!(
        env_key.description.contains("LANGO_CLOUD_API_KEY"),
        "{env_key:?}"
    );
    app.shutdown().await;
}
