//! A long imported conversation (ChatGPT threads run to thousands of messages) is written a
//! chunk per transaction: a message sent meanwhile waits for one chunk, not for the whole
//! conversation, and a re-import after a partial write carries on where it stopped.

use lango_core::store::{ImportOutcome, NewMessage};

use super::{messages, store};

#[path = "../common/long_thread.rs"]
mod long_thread;
use long_thread::long_thread as conversation;

#[tokio::test]
async fn a_message_sent_during_a_long_import_is_written_before_the_import_ends() {
    let (_dir, store) = store().await;
    store.create_session("mine", "").await.expect("session");
    let long = conversation(4_000);
    let importing = {
        let store = store.clone();
        let long = long.clone();
        tokio::spawn(async move { store.write_import(&long).await })
    };
    // Once the conversation is there (its first chunk committed), send in another one.
    let key = loop {
        let listed = store.list_sessions(10, 0).await.expect("list");
        if let Some(s) = listed.iter().find(|s| s.key.starts_with("chatgpt-")) {
            break s.key.clone();
        }
        tokio::task::yield_now().await;
    };
    store
        .append_message("mine", NewMessage::new("user", "Is the plumber coming?"))
        .await
        .expect("sent");
    let imported_when_sent = messages(&store, &key).await.len();
    assert!(
        imported_when_sent < 4_000,
        "the send waited for the whole import ({imported_when_sent} of 4000 messages in)"
    );
    let outcome = importing.await.expect("joined").expect("imported");
    assert_eq!(
        outcome,
        ImportOutcome::Created {
            key: key.clone(),
            messages: 4_000
        }
    );
    assert_eq!(messages(&store, &key).await.len(), 4_000);
}

#[tokio::test]
async fn a_reimport_after_a_partial_write_adds_only_what_was_missing() {
    let (_dir, store) = store().await;
    // What a write stopped after its first chunks leaves: the first 600 messages, recorded.
    let mut partial = conversation(1_000);
    partial.messages.truncate(600);
    store.write_import(&partial).await.expect("partial");
    let outcome = store
        .write_import(&conversation(1_000))
        .await
        .expect("again");
    let ImportOutcome::Appended {
        key,
        messages: added,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert_eq!(added, 400);
    let stored = messages(&store, &key).await;
    assert_eq!(stored.len(), 1_000, "every message once");
    assert!(stored
        .iter()
        .enumerate()
        .all(|(i, m)| m.content.starts_with(&format!("message {i} "))));
}
