//! Stopping an engine whose memory model hangs (issue 14 item 8): the stop is bounded, the
//! in-flight memory request is cancelled (the provider sees the connection close while the
//! process lives on), and the failure is kept for `memory status`.

use std::time::{Duration, Instant};

use lango_core::config::validate_value;
use lango_core::engine::{Engine, MEMORY_SHUTDOWN_GRACE};
use lango_core::paths::AppPaths;
use lango_core::store::{NewMessage, Store};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;

const KEY: &str = "s";

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn stopping_the_memory_cancels_a_hung_memory_call_and_keeps_the_failure() {
    let fake = FakeProvider::start(Script::new([Turn::stall(Vec::<String>::new(), 120_000)])).await;
    std::env::set_var("LANGO_P_API_KEY", "sk-test");
    let settings = validate_value(&json!({
        "providers": {"p": {"type": "openai-compatible",
            "baseUrl": format!("{}/v1", fake.server().base_url()), "defaultModel": "fake-model"}},
        "agent": {"provider": "p"},
        "observationalMemory": {"enabled": true, "messageTokenThreshold": 1}
    }))
    .expect("valid settings")
    .0;
    let home = tempfile::tempdir().unwrap();
    let paths = AppPaths::under(home.path());
    let store = Store::open_app(&paths).await.unwrap();
    store.create_session(KEY, "").await.unwrap();
    for (role, text) in [
        ("user", "u0"),
        ("assistant", "a0"),
        ("user", "u1"),
        ("assistant", "a1"),
    ] {
        store
            .append_message(KEY, NewMessage::new(role, text))
            .await
            .unwrap();
    }
    let engine = Engine::from_parts(&paths, settings, store.clone()).unwrap();
    let memory = engine.memory.as_ref().expect("memory on");

    memory.buffer.trigger(KEY);
    wait_for("the observer's request", || {
        fake.generate_requests().len() == 1
    })
    .await;

    let started = Instant::now();
    engine.stop_memory().await;
    assert!(
        started.elapsed() < MEMORY_SHUTDOWN_GRACE + Duration::from_secs(2),
        "stopping took {:?}",
        started.elapsed()
    );
    // The request was dropped, not left to the process's exit: the server sees the close.
    wait_for("the provider to see the connection close", || {
        fake.server().closed_early() == 1
    })
    .await;

    let failure = store.memory_failure(KEY).await.unwrap().expect("kept");
    assert!(
        failure.error.contains("did not answer"),
        "{}",
        failure.error
    );
    assert_eq!(
        store.observed_through_seq(KEY).await.unwrap(),
        0,
        "left for the next turn"
    );
    assert_eq!(store.list_messages(KEY).await.unwrap().len(), 4);
}
