//! The retrieval cache (`memory::knowledge_index`) and the memory's vocabulary
//! (`memory::knowledge_vocabulary`): what a model call reads from the database and what it
//! answers from memory, against real SQLite files.

use lango_core::memory::knowledge_index::KnowledgeIndex;
use lango_core::store::{NewMessage, Store};

use crate::{observe, say, temp_store};

/// Session "s"'s BM25 candidates for `query` through `index`, at its current memory state:
/// what context assembly asks before a model call.
async fn cached(
    index: &KnowledgeIndex,
    store: &Store,
    query: &str,
) -> Vec<lango_core::memory::knowledge::Candidate> {
    let state = store.memory_state("s").await.unwrap().unwrap();
    lango_core::memory::knowledge::bm25_candidates_in(index, store, "s", &state, query)
        .await
        .unwrap()
}

/// A temporary store with session "s" holding one observation, and an empty retrieval cache.
async fn session_with_note(note: &str) -> (tempfile::TempDir, Store, KnowledgeIndex) {
    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    observe(&store, "s", note).await;
    (dir, store, KnowledgeIndex::default())
}

/// Retrieval keeps a session's memory matches until its memory changes: a second call with
/// the same keywords reads nothing more, a new observation is found by the very next call,
/// and messages added to the history are found without any memory change.
#[tokio::test]
async fn the_retrieval_cache_follows_the_memory_version_and_never_hides_new_items() {
    let (_d, store, index) = session_with_note("User keeps bees on the roof").await;
    let texts = |found: &[lango_core::memory::knowledge::Candidate]| -> Vec<String> {
        found.iter().map(|c| c.content.clone()).collect()
    };
    let ask = |query: &'static str| cached(&index, &store, query);

    let first = ask("how are the bees and the honey?").await;
    assert_eq!(texts(&first), ["User keeps bees on the roof"]);
    let read = index.counts().read;
    let again = ask("how are the bees and the honey?").await;
    assert_eq!(texts(&again), texts(&first));
    assert_eq!(
        index.counts().read,
        read,
        "the second call read no keyword again"
    );

    observe(&store, "s", "User sells the honey at the market").await;
    let after = ask("how are the bees and the honey?").await;
    assert_eq!(
        after.len(),
        2,
        "the new observation is found at once: {after:?}"
    );

    say(&store, "s", "user", "The honey harvest starts in June").await;
    let with_history = ask("when is the honey harvest?").await;
    assert_eq!(
        texts(&with_history)[0],
        "The honey harvest starts in June",
        "a history message is found without a memory change"
    );
}

/// Compaction can archive messages still queued for indexing (the memory cycle indexes after
/// each turn). Indexing them later is a change of the session's memory: retrieval cached
/// before it finds them right after.
#[tokio::test]
async fn archived_messages_indexed_late_are_found_by_a_cached_retrieval() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    store
        .append_message(
            "s",
            NewMessage::new("user", "The kayak is stored in the garage"),
        )
        .await
        .unwrap();
    store
        .append_message("s", NewMessage::new("assistant", "Noted."))
        .await
        .unwrap();
    store.compact_messages("s", 1, "summary").await.unwrap();
    let index = KnowledgeIndex::default();
    let ask = || cached(&index, &store, "where is the kayak?");
    assert!(ask().await.is_empty(), "not indexed yet");
    store.index_pending_messages().await.unwrap();
    let found = ask().await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].content, "The kayak is stored in the garage");
}

/// After a memory change the engine refreshes retrieval's cache in the background (after the
/// memory cycle): the next model call finds the new note without reading the database.
#[tokio::test]
async fn a_refresh_after_a_memory_change_keeps_the_next_retrieval_off_the_database() {
    let (_d, store, index) = session_with_note("User grows tomatoes on the balcony").await;
    let ask = || cached(&index, &store, "how do the tomatoes grow?");
    assert_eq!(ask().await.len(), 1);
    observe(&store, "s", "The tomatoes need water every evening").await;
    index.refresh(&store, "s").await.unwrap();
    let read = index.counts().read;
    let found = ask().await;
    assert_eq!(found.len(), 2, "the new note is found: {found:?}");
    assert_eq!(index.counts().read, read, "nothing was read on the call");
}

/// Once the engine refreshed retrieval after a memory change, a word the conversation's
/// memory never held (a new number, a new name) is answered without reading the database;
/// a word that an edited note now holds is still read and found, and a word in an archived
/// message is found — read by the refresh, before any message asked about it.
#[tokio::test]
async fn words_the_memory_never_held_are_not_read_on_the_send_path() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let note = observe(&store, "s", "User keeps bees on the roof").await;
    store
        .append_message("s", NewMessage::new("user", "The kayak is in the garage"))
        .await
        .unwrap();
    store
        .append_message("s", NewMessage::new("assistant", "Noted."))
        .await
        .unwrap();
    store.compact_messages("s", 1, "summary").await.unwrap();
    store.index_pending_messages().await.unwrap();
    let index = KnowledgeIndex::default();
    let ask = |query: &'static str| cached(&index, &store, query);
    assert_eq!(ask("the bees?").await.len(), 1);
    index.refresh(&store, "s").await.unwrap();

    let read = index.counts().read;
    assert!(ask("what about invoice 4711 from Okonkwo?")
        .await
        .is_empty());
    assert_eq!(
        index.counts().read,
        read,
        "no word of it was ever in the memory"
    );
    let found = ask("where is the kayak?").await;
    assert_eq!(
        found.len(),
        1,
        "an archived message's word is read: {found:?}"
    );
    assert_eq!(
        index.counts().read,
        read,
        "the kayak was read by the refresh, off the send path"
    );

    store
        .update_observation(&note.id, "User keeps bees for Okonkwo", 5)
        .await
        .unwrap();
    let found = ask("what about Okonkwo?").await;
    assert_eq!(found.len(), 1, "the edit is found at once: {found:?}");
    index.refresh(&store, "s").await.unwrap();
    let read = index.counts().read;
    assert_eq!(ask("Okonkwo again?").await.len(), 1);
    assert!(ask("and 4711?").await.is_empty());
    assert_eq!(
        index.counts().read,
        read,
        "both answered from the refreshed cache"
    );
}

/// A memory change (a memory cycle saving a note and archiving messages) costs the next
/// retrieval only the change: it reads what was archived and the notes, not every cached
/// keyword's matches again, and finds the new items at once; a deleted note is gone at once.
#[tokio::test]
async fn after_a_memory_change_retrieval_reads_only_the_change() {
    let (_d, store, index) = session_with_note("User keeps bees on the roof").await;
    let ask = |query: &'static str| cached(&index, &store, query);
    let texts = |found: &[lango_core::memory::knowledge::Candidate]| -> Vec<String> {
        let mut t: Vec<String> = found.iter().map(|c| c.content.clone()).collect();
        t.sort();
        t
    };
    assert_eq!(ask("the bees and the kayak?").await.len(), 1);
    let read = index.counts().read;

    // A memory cycle: a new note, and the oldest messages archived.
    let note = observe(&store, "s", "The bees swarmed near the kayak").await;
    say(&store, "s", "user", "The kayak is stored in the garage").await;
    say(&store, "s", "assistant", "Noted.").await;
    store.compact_messages("s", 1, "summary").await.unwrap();
    let found = ask("the bees and the kayak?").await;
    assert_eq!(
        texts(&found),
        [
            "The bees swarmed near the kayak",
            "The kayak is stored in the garage",
            "User keeps bees on the roof",
        ],
        "the new note and the archived message are found at once"
    );
    assert_eq!(
        index.counts().read,
        read,
        "no cached keyword was read again"
    );

    store.delete_observations(&[note.id]).await.unwrap();
    let found = ask("the bees and the kayak?").await;
    assert_eq!(
        texts(&found),
        [
            "The kayak is stored in the garage",
            "User keeps bees on the roof"
        ],
        "a deleted note is gone at once"
    );
    assert_eq!(index.counts().read, read);
}

/// A message archived while still queued for the search index cannot be matched by a keyword
/// searched for the first time meanwhile; once it is indexed (a memory change), the next
/// call finds it.
#[tokio::test]
async fn a_message_archived_before_it_was_indexed_is_found_once_indexed() {
    let (_d, store, index) = session_with_note("User keeps bees on the roof").await;
    let ask = |query: &'static str| cached(&index, &store, query);
    assert_eq!(ask("bees?").await.len(), 1);

    // Archived by a compaction before the indexing got to it.
    for (role, text) in [
        ("user", "The canoe is stored in the barn"),
        ("assistant", "Noted."),
    ] {
        store
            .append_message("s", NewMessage::new(role, text))
            .await
            .unwrap();
    }
    store.compact_messages("s", 1, "summary").await.unwrap();
    assert_eq!(ask("bees?").await.len(), 1);
    ask("canoe barn?").await;

    store.index_pending_messages().await.unwrap();
    let found = ask("canoe barn?").await;
    assert!(
        found
            .iter()
            .any(|c| c.content == "The canoe is stored in the barn"),
        "{found:?}"
    );
}

/// A long conversation's cache is tidied after many memory changes (past 1,000 items
/// recorded) without forgetting what it searched: a word last used long ago — many other
/// words were searched since — is still answered without a read on the send path.
#[tokio::test]
async fn words_searched_long_ago_stay_cached_when_the_cache_is_tidied() {
    let (_d, store, index) = session_with_note("The quokka lives on Rottnest Island").await;
    assert_eq!(
        cached(&index, &store, "where does the quokka live?")
            .await
            .len(),
        1
    );
    // 96 other words since (8 a message): more than the 64 a rebuild would read again.
    for batch in 0..12 {
        let other: Vec<String> = (0..8).map(|i| format!("topic{batch}x{i}")).collect();
        cached(&index, &store, &other.join(" ")).await;
    }
    // One long memory change: 1,100 messages archived at once.
    for i in 0..1_101 {
        store
            .append_message(
                "s",
                NewMessage::new("user", format!("Message {i} about the garden")),
            )
            .await
            .unwrap();
    }
    store.compact_messages("s", 1_099, "summary").await.unwrap();
    store.index_pending_messages().await.unwrap();
    index.refresh(&store, "s").await.unwrap();
    // And the next memory cycle.
    observe(&store, "s", "The garden needs a fence").await;
    index.refresh(&store, "s").await.unwrap();

    let read = index.counts().read;
    assert_eq!(cached(&index, &store, "and the quokka?").await.len(), 1);
    assert_eq!(index.counts().read, read, "the quokka was still cached");
}

/// After a memory change, the refresh off the send path also reads words the memory holds
/// that no message has asked about yet: the first message that does is answered without a
/// read on the send path, and finds what the memory holds.
#[tokio::test]
async fn words_the_memory_holds_are_cached_before_a_message_first_asks_about_them() {
    let (_d, store, index) = session_with_note("The quokka lives on Rottnest Island").await;
    // The conversation has asked something (a session never searched is not refreshed).
    cached(&index, &store, "hello there").await;
    observe(&store, "s", "The wombat digs burrows near the creek").await;
    index.refresh(&store, "s").await.unwrap();

    let read = index.counts().read;
    let found = cached(&index, &store, "what about the wombat and the quokka?").await;
    assert_eq!(index.counts().read, read, "nothing read on the send path");
    let texts: Vec<&str> = found.iter().map(|c| c.content.as_str()).collect();
    assert!(texts.iter().any(|t| t.contains("wombat")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("quokka")), "{texts:?}");
}

/// Chinese through the cache as context assembly reads it: a word inside a note's run is
/// found, found again from the cache, and once the engine refreshed after a new note, found
/// in it without reading the database; a pair the memory never held costs no read.
#[tokio::test]
async fn a_chinese_word_inside_a_run_is_found_through_the_cache_and_its_refresh() {
    let (_d, store, index) = session_with_note("用户在屋顶上养蜜蜂").await;
    let ask = |query: &'static str| cached(&index, &store, query);
    let texts = |found: Vec<lango_core::memory::knowledge::Candidate>| -> Vec<String> {
        found.into_iter().map(|c| c.content).collect()
    };
    assert_eq!(texts(ask("蜜蜂最近怎么样").await), ["用户在屋顶上养蜜蜂"]);
    let read = index.counts().read;
    assert_eq!(texts(ask("蜜蜂最近怎么样").await), ["用户在屋顶上养蜜蜂"]);
    assert_eq!(
        index.counts().read,
        read,
        "the second call read no keyword again"
    );

    observe(&store, "s", "用户在市场上卖蜂蜜").await;
    index.refresh(&store, "s").await.unwrap();
    let read = index.counts().read;
    let found = texts(ask("蜂蜜卖得好吗").await);
    assert_eq!(found, ["用户在市场上卖蜂蜜"]);
    assert_eq!(index.counts().read, read, "nothing was read on the call");
}
