use lango_core::store::{MessageStatus, NewMessage, Observation, ReadOn, SearchHitKind};

use crate::{append_n, temp_store};

#[tokio::test]
async fn full_text_search_finds_messages_across_sessions_ranked_and_filtered() {
    let (_d, store) = temp_store().await;
    store
        .create_session("rust", "Rust questions")
        .await
        .unwrap();
    store.create_session("cooking", "Dinner").await.unwrap();
    store
        .append_message(
            "rust",
            NewMessage::new("user", "How does the borrow checker work?"),
        )
        .await
        .unwrap();
    store
        .append_message(
            "rust",
            NewMessage::new("assistant", "The borrow checker enforces ownership."),
        )
        .await
        .unwrap();
    store
        .append_message(
            "cooking",
            NewMessage::new("user", "Can I borrow your pan recipe?"),
        )
        .await
        .unwrap();

    let hits = store.search("borrow", None, 10).await.unwrap();
    assert_eq!(hits.len(), 3);
    assert!(hits.iter().all(|h| h.kind == SearchHitKind::Message));
    assert!(
        hits[0].snippet.contains("[borrow]"),
        "{:?}",
        hits[0].snippet
    );

    let only_rust = store.search("borrow", Some("rust"), 10).await.unwrap();
    assert_eq!(only_rust.len(), 2);
    assert!(only_rust
        .iter()
        .all(|h| h.session_key == "rust" && h.session_title == "Rust questions"));

    // Prefix of the last word, words in any order, punctuation harmless.
    assert_eq!(
        store.search("checker bor", None, 10).await.unwrap().len(),
        2
    );
    assert!(store.search("\"(*", None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn archived_messages_and_memory_stay_searchable() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    store
        .append_message("s", NewMessage::new("user", "my cat is called Zorro"))
        .await
        .unwrap();
    append_n(&store, "s", 3).await;
    store
        .compact_messages("s", 2, "user has a cat")
        .await
        .unwrap();
    crate::memory::save_obs(&store, "s", "The user owns a cat named Zorro").await;
    crate::memory::save_refl(&store, "s", "Zorro the cat matters to the user", 1).await;

    let hits = store.search("zorro", None, 10).await.unwrap();
    let mut kinds: Vec<(SearchHitKind, bool)> = hits.iter().map(|h| (h.kind, h.archived)).collect();
    kinds.sort_by_key(|(k, _)| *k as u8);
    assert_eq!(
        kinds,
        [
            (SearchHitKind::Message, true),
            (SearchHitKind::Observation, false),
            (SearchHitKind::Reflection, false)
        ]
    );
    let message = hits
        .iter()
        .find(|h| h.kind == SearchHitKind::Message)
        .unwrap();
    assert_eq!(message.seq, Some(1));
    // The summary row itself is not a search result.
    assert!(store
        .search("Compacted", None, 10)
        .await
        .unwrap()
        .is_empty());
}

/// Appends and edits queue messages for indexing (migration 0005); a search indexes the
/// queue first, so it never misses a new text nor finds a replaced or deleted one.
#[tokio::test]
async fn search_sees_edits_and_deletions_made_since_the_last_search() {
    let (_d, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let a = store
        .append_message("s", NewMessage::new("user", "the quokka smiles"))
        .await
        .unwrap();
    let b = store
        .append_message("s", NewMessage::new("assistant", "plain words"))
        .await
        .unwrap();
    assert_eq!(store.search("quokka", None, 10).await.unwrap().len(), 1);

    // An indexed message edited: the old words are gone at once, the new ones found.
    store
        .update_message(a.id, "the wombat digs", &[], MessageStatus::Complete)
        .await
        .unwrap();
    assert!(store.search("quokka", None, 10).await.unwrap().is_empty());
    assert_eq!(store.search("wombat", None, 10).await.unwrap().len(), 1);

    // A queued message edited twice before any search: only its last text is indexed.
    for text in ["another wombat", "a koala naps"] {
        store
            .update_message(b.id, text, &[], MessageStatus::Complete)
            .await
            .unwrap();
    }
    assert_eq!(store.search("wombat", None, 10).await.unwrap().len(), 1);
    let koala = store.search("koala", None, 10).await.unwrap();
    assert_eq!(koala.len(), 1);
    assert_eq!(koala[0].seq, Some(b.seq));

    // Deleted (rewound) messages leave the index, queued or not.
    let c = store
        .append_message("s", NewMessage::new("user", "koala facts please"))
        .await
        .unwrap();
    store.delete_messages_from("s", b.seq).await.unwrap();
    assert!(store.search("koala", None, 10).await.unwrap().is_empty());
    assert_eq!(store.index_pending_messages().await.unwrap(), 0);
    assert!(c.seq > b.seq);
}

/// The queue lives in the database: what another process (the CLI next to the desktop app)
/// appended is found by this one's next search.
#[tokio::test]
async fn messages_appended_by_another_process_are_searchable() {
    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    let other = lango_core::store::Store::open(&dir.path().join("lango.db"))
        .await
        .unwrap();
    other
        .append_message("s", NewMessage::new("user", "a note about platypus eggs"))
        .await
        .unwrap();
    let hits = store.search("platypus", Some("s"), 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    other.close().await;
}

/// The indexes hold each row's session id (migration 0006) so retrieval can be scoped to a
/// session inside the match; a number typed in a search must still only match text.
#[tokio::test]
async fn a_number_in_a_search_never_matches_a_session_id() {
    let (_d, store) = temp_store().await;
    for key in ["a", "b", "c"] {
        store.create_session(key, "").await.unwrap();
        store
            .append_message(key, NewMessage::new("user", "plain words only"))
            .await
            .unwrap();
    }
    store
        .append_message("c", NewMessage::new("user", "room 2 is booked"))
        .await
        .unwrap();
    // Knowledge retrieval finds a session's memory through the index, scoped to it.
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: "c".into(),
            content: "User booked room 2".into(),
            token_count: 4,
            seq_start: 1,
            seq_end: 2,
            created_at: 0,
        })
        .await
        .unwrap();
    for number in ["1", "2", "3"] {
        let hits = store.search(number, None, 10).await.unwrap();
        let expected = usize::from(number == "2");
        assert_eq!(hits.len(), 2 * expected, "search {number:?}: {hits:?}");
        let words = [number.to_string()];
        let scoped = store
            .knowledge_matches(&words, "c", 10, ReadOn::SendPath)
            .await
            .unwrap();
        assert_eq!(scoped.len(), expected, "knowledge {number:?}: {scoped:?}");
    }
}

/// Retrieval reads each keyword's newest matches up to a cap: a word held by every note
/// fills its own cap, and a rare word asked about in the same sentence still brings its one
/// old note (a shared cap would have cut it).
#[tokio::test]
async fn a_common_word_never_crowds_a_rare_words_old_note_out_of_retrieval() {
    let (_d, store) = temp_store().await;
    store.create_session("c", "").await.unwrap();
    let note = |content: &str, seq: i64| Observation {
        id: String::new(),
        session_key: "c".into(),
        content: content.into(),
        token_count: 4,
        seq_start: seq,
        seq_end: seq,
        created_at: 0,
    };
    store
        .save_observation(note(
            "The kitchen budget is set; the plumber is called Okonkwo",
            1,
        ))
        .await
        .unwrap();
    for seq in 2..12 {
        store
            .save_observation(note(&format!("The kitchen tiles, note {seq}"), seq))
            .await
            .unwrap();
    }
    let words = ["kitchen".to_string(), "okonkwo".to_string()];
    let hits = store
        .knowledge_matches(&words, "c", 3, ReadOn::SendPath)
        .await
        .unwrap();
    let texts: Vec<&str> = hits.iter().map(|h| h.text.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.contains("Okonkwo")),
        "the rare word's note: {texts:?}"
    );
    assert_eq!(
        hits.len(),
        4,
        "three newest for the common word + the rare one: {texts:?}"
    );
    assert!(texts.contains(&"The kitchen tiles, note 11"), "{texts:?}");
}

/// Retrieval's reads run inline on one dedicated read connection; calls that find it in use
/// (other sessions' model calls at the same moment) wait on a blocking thread and still get
/// their own session's answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_retrievals_each_get_their_own_sessions_hits() {
    let (_d, store) = temp_store().await;
    for i in 0..8 {
        let key = format!("s{i}");
        store.create_session(&key, "").await.unwrap();
        store
            .append_message(
                &key,
                NewMessage::new("user", format!("the lantern number {i}")),
            )
            .await
            .unwrap();
    }
    store.index_pending_messages().await.unwrap();
    let words = ["lantern".to_string()];
    let calls = (0..64).map(|n| {
        let (store, words) = (store.clone(), words.clone());
        tokio::spawn(async move {
            let key = format!("s{}", n % 8);
            let state = store
                .memory_state(&key)
                .await
                .unwrap()
                .expect("known session");
            let history = store.history_texts(&key, 10).await.unwrap();
            let hits = store
                .knowledge_matches(&words, &key, 10, ReadOn::SendPath)
                .await
                .unwrap();
            assert!(hits.is_empty(), "no memory yet: {hits:?}");
            (n % 8, state.live_messages, history)
        })
    });
    for call in calls.collect::<Vec<_>>() {
        let (i, live, hits) = call.await.unwrap();
        assert_eq!(live, 1, "session s{i}");
        assert_eq!(hits.len(), 1, "session s{i}: {hits:?}");
        assert_eq!(hits[0].text, format!("the lantern number {i}"));
    }
}
