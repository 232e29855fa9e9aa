//! The memory when its model fails or is slow: chat goes on, `lango memory status` says why,
//! and `lango memory update` makes the notes a slow local model could not finish in time.

mod support;

use lango_core::store::Store;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;
use support::memory_settings::write_memory_settings;
use support::{lango, stderr, stdout, SYSTEM_PROMPT as SYSTEM};

#[tokio::test]
async fn a_hung_memory_model_does_not_hold_chat_back_and_memory_status_shows_the_failure() {
    // Two replies, then the observer's call hangs for two minutes.
    let fake = FakeProvider::start(Script::new([
        Turn::text(["First answer about the budget."]),
        Turn::text(["Second answer."]),
        Turn::stall(Vec::<String>::new(), 120_000),
    ]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_memory_settings(home.path(), &fake);
    // Long enough to pass messageTokenThreshold (60) on its own.
    let long = "Item 1 costs 10 euros; remember it for the budget please. ".repeat(8);
    let first = lango(home.path(), &["chat", "--session", "s", &long], None).await;
    assert!(first.status.success(), "{}", stderr(&first));

    // The first exchange is now observable: this turn's memory cycle calls the hung model.
    let started = std::time::Instant::now();
    let second = lango(
        home.path(),
        &["chat", "--session", "s", "And item 2?"],
        None,
    )
    .await;
    let took = started.elapsed();
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(stdout(&second).contains("Second answer."));
    assert_eq!(fake.turns_served(), 3, "the observer was called");
    assert!(
        took < std::time::Duration::from_secs(15),
        "chat exited {took:?} after starting (the memory model hangs for 120 s)"
    );

    let status = lango(home.path(), &["memory", "status", "--session", "s"], None).await;
    let text = stdout(&status);
    assert!(status.status.success(), "{}", stderr(&status));
    assert!(text.contains("last error"), "{text}");
    assert!(text.contains("did not answer"), "{text}");
    assert!(text.contains("try again after the next turn"), "{text}");

    // Nothing was observed or archived: the messages wait for the next turn.
    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    assert!(store.list_observations("s").await.unwrap().is_empty());
    assert_eq!(store.list_messages("s").await.unwrap().len(), 4);
    store.close().await;
}

#[tokio::test]
async fn a_memory_provider_without_a_key_leaves_chat_working_and_memory_status_says_why() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Still here."])])).await;
    let home = tempfile::tempdir().unwrap();
    let s = json!({
        "providers": {
            "p": {"type": "openai-compatible", "baseUrl": format!("{}/v1", fake.server().base_url()), "defaultModel": "fake-model"},
            "q": {"type": "openai", "defaultModel": "gpt-4o-mini"}
        },
        "agent": {"provider": "p", "systemPrompt": SYSTEM},
        "observationalMemory": {"enabled": true, "provider": "q", "messageTokenThreshold": 1}
    });
    std::fs::write(home.path().join("settings.json"), s.to_string()).unwrap();

    let chat = lango(home.path(), &["chat", "--session", "s", "Hello?"], None).await;
    assert!(chat.status.success(), "{}", stderr(&chat));
    assert!(stdout(&chat).contains("Still here."));

    let status = lango(home.path(), &["memory", "status", "--session", "s"], None).await;
    let text = stdout(&status);
    assert!(status.status.success(), "{}", stderr(&status));
    assert!(
        text.contains("the memory's provider \"q\" has no API key"),
        "{text}"
    );
}

#[tokio::test]
async fn a_memory_model_slower_than_the_chats_grace_gets_its_notes_made_by_memory_update() {
    // Two replies, then the observer answers in ~4 s: longer than `lango chat` waits at exit.
    let fake = FakeProvider::start(Script::new([
        Turn::text(["First answer about the budget."]),
        Turn::text(["Second answer."]),
        Turn::Text {
            chunks: vec!["The user keeps ".into(), "a budget.".into()],
            delay_ms: 4_000,
        },
    ]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_memory_settings(home.path(), &fake);
    let long = "Item 1 costs 10 euros; remember it for the budget please. ".repeat(8);
    for message in [long.as_str(), "And item 2?"] {
        let out = lango(home.path(), &["chat", "--session", "s", message], None).await;
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    assert!(
        store.list_observations("s").await.unwrap().is_empty(),
        "cancelled at exit"
    );
    store.close().await;

    let update = lango(home.path(), &["memory", "update", "--session", "s"], None).await;
    let text = stdout(&update);
    assert!(update.status.success(), "{}", stderr(&update));
    assert_eq!(
        text.trim(),
        "memory of s: 1 new observation, 0 new reflections"
    );
    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    let observations = store.list_observations("s").await.unwrap();
    assert_eq!(observations.len(), 1);
    assert_eq!(observations[0].content, "The user keeps a budget.");
    store.close().await;
    let status = lango(home.path(), &["memory", "status", "--session", "s"], None).await;
    let text = stdout(&status);
    assert!(
        !text.contains("last error"),
        "a good cycle clears the failure: {text}"
    );

    // Nothing left to do: a second update makes no model call.
    let served = fake.turns_served();
    let again = lango(home.path(), &["memory", "update", "--session", "s"], None).await;
    assert!(stdout(&again).contains("0 new observations"));
    assert_eq!(fake.turns_served(), served);
}
