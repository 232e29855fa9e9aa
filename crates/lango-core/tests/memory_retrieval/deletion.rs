//! Deletion: deleting a session, or rewinding its messages, deletes their vectors (and the
//! session's triples).

use super::*;

#[tokio::test]
async fn deleting_a_session_deletes_its_vectors_and_triples() {
    let (_home, _fake, engine) = two_embedded_turns().await;
    let store = &engine.store;
    assert!(!store
        .session_vectors("trip", None)
        .await
        .unwrap()
        .is_empty());
    assert!(
        !store.list_triples("trip").await.unwrap().is_empty(),
        "the observation's triples"
    );
    store.create_session("kept", "kept").await.unwrap();
    let kept = say(store, "kept", "user", "kept message").await;
    store
        .save_vectors(&[VectorRow {
            session_key: "kept".into(),
            collection: "message".into(),
            item_id: kept.id.to_string(),
            model: "fake-embed".into(),
            vector: embed_text("kept message"),
        }])
        .await
        .unwrap();

    engine.runner.sessions().delete("trip").await.unwrap();
    assert!(store
        .session_vectors("trip", None)
        .await
        .unwrap()
        .is_empty());
    assert!(store.list_triples("trip").await.unwrap().is_empty());
    assert_eq!(store.session_vectors("kept", None).await.unwrap().len(), 1);
    // No orphans under any session (the cascade removed the rows, not just the join).
    let counts = store.memory_state("kept").await.unwrap().unwrap();
    assert_eq!(counts.vectors, 1);
}

#[tokio::test]
async fn rewinding_messages_deletes_their_vectors() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "s").await.unwrap();
    let first = say(&store, "s", "user", "first question").await;
    let reply = say(&store, "s", "assistant", "first answer").await;
    let fake = FakeProvider::start(Script::default()).await;
    embed_messages(&store, &fake, "s", &[&first, &reply]).await;
    store.delete_messages_from("s", reply.seq).await.unwrap();
    let left = store.session_vectors("s", None).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].1, first.id.to_string());
}
