//! The cached memory section: an edit invalidates it and is in the next chat request.

use super::*;

#[tokio::test]
async fn edits_invalidate_the_cached_memory_section() {
    let (dir, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    let o = observe(&store, "s", "user prefers Go").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store);
    let first = send(&adapter, &inner, "s", "hi").await;
    assert!(first.contains("- user prefers Go"), "{first}");
    assert_eq!(
        send(&adapter, &inner, "s", "hi").await,
        first,
        "unchanged memory, same text"
    );

    // Edited through another handle on the same file (another process: the CLI next to the
    // desktop app): the next request carries the edit.
    let other = Store::open(&dir.path().join("lango.db")).await.unwrap();
    other
        .update_observation(&o.id, "user prefers Rust", 4)
        .await
        .unwrap();
    let edited = send(&adapter, &inner, "s", "hi").await;
    assert!(
        edited.contains("- user prefers Rust") && !edited.contains("Go"),
        "{edited}"
    );
    // A new note, then deleting everything.
    observe(&other, "s", "user works on a desktop app").await;
    let more = send(&adapter, &inner, "s", "hi").await;
    assert!(more.contains("- user works on a desktop app"), "{more}");
    other.delete_observations_by_session("s").await.unwrap();
    let gone = send(&adapter, &inner, "s", "hi").await;
    assert!(!gone.contains("Conversation Memory"), "{gone}");
    other.close().await;

    // A session deleted and created again under the same key starts empty.
    observe(&store, "s", "a note of the old session").await;
    assert!(send(&adapter, &inner, "s", "hi")
        .await
        .contains("old session"));
    store.delete_session("s").await.unwrap();
    store.create_session("s", "s").await.unwrap();
    let fresh = send(&adapter, &inner, "s", "hi").await;
    assert!(!fresh.contains("Conversation Memory"), "{fresh}");
}

#[tokio::test]
async fn an_edit_between_turns_is_in_the_next_chat_request() {
    // Through the engine: the memory is read when the turn starts (prefetch) and cached.
    let fake = FakeProvider::start(Script::new([Turn::text(["ok"])])).await;
    let home = tempfile::tempdir().unwrap();
    let engine = engine(
        &home,
        settings(&format!("{}/v1", fake.base_url()), json!({"enabled": true})),
    )
    .await;
    engine.store.create_session("e", "e").await.unwrap();
    let o = observe(&engine.store, "e", "user prefers Go").await;
    turn(&engine, "e", "hello").await;
    turn(&engine, "e", "hello again").await;
    engine
        .store
        .update_observation(&o.id, "user prefers Rust", 4)
        .await
        .unwrap();
    turn(&engine, "e", "and now?").await;
    engine.shutdown().await;
    let systems = chat_system_texts(&fake);
    assert_eq!(systems.len(), 3);
    assert!(systems[0].contains("- user prefers Go") && systems[1].contains("- user prefers Go"));
    assert!(
        systems[2].contains("- user prefers Rust") && !systems[2].contains("Go"),
        "{}",
        systems[2]
    );
}
