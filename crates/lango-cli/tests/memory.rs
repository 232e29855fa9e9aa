//! Observational memory end to end: `lango chat` over many turns against the fake provider,
//! then `lango memory …` on the result.

mod support;

use lango_core::store::Store;
use lango_core::tokens::{TiktokenCounter, TokenCounter};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use support::memory_settings::{system_text, write_memory_settings};
use support::{history_tokens, lango, stderr, SYSTEM_PROMPT as SYSTEM};

#[tokio::test(flavor = "multi_thread")]
async fn sixty_turns_build_observations_reflections_and_a_second_generation_within_budgets() {
    let fake = FakeProvider::start(Script::new([Turn::text([
        "Noted: the user keeps a running list of prices.",
    ])]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_memory_settings(home.path(), &fake);
    let turns: String = (1..=60)
        .map(|i| format!("Item {i} costs {i} euros; please remember it for the budget.\n"))
        .collect();
    let out = lango(
        home.path(),
        &["chat", "--session", "long"],
        Some(turns.as_bytes()),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    let reflections = store.list_reflections("long").await.unwrap();
    assert!(
        reflections.iter().any(|r| r.generation >= 2),
        "a generation-2 reflection: {reflections:?}"
    );
    // The memory graph (REFERENCE §3.9) was recorded as observations and reflections landed.
    let triples = store.list_triples("long").await.unwrap();
    for predicate in ["in_session", "follows", "reflects_on"] {
        assert!(
            triples.iter().any(|t| t.predicate == predicate),
            "no {predicate} triple: {triples:?}"
        );
    }
    let compacted = store.archived_messages("long", 0, i64::MAX).await.unwrap();
    assert!(
        !compacted.is_empty(),
        "observed rows were compacted into the archive"
    );
    // Nothing was lost: every message the user sent is in the history or the archive.
    let shown = lango_core::export::all_messages(&store, "long")
        .await
        .unwrap();
    let users = shown.iter().filter(|m| m.role == "user").count();
    assert_eq!(users, 60);
    store.close().await;

    let requests: Vec<Value> = fake.generate_requests().iter().map(|r| r.json()).collect();
    let chats: Vec<&Value> = requests
        .iter()
        .filter(|b| system_text(b).starts_with(SYSTEM))
        .collect();
    assert_eq!(chats.len(), 60, "one chat request per turn");
    let with_memory: Vec<String> = chats
        .iter()
        .map(|b| system_text(b))
        .filter(|s| s.contains("## Conversation Memory"))
        .collect();
    assert!(
        !with_memory.is_empty(),
        "later turns carry the memory section"
    );
    // The same memory is never sent twice (issue 16): a compaction summary whose note the
    // memory section shows is left out of the request.
    for body in &chats {
        let messages = body["messages"].as_array().unwrap();
        let prompt = messages[0]["content"].as_str().unwrap_or("");
        let Some(at) = prompt.find("## Conversation Memory") else {
            continue;
        };
        for m in &messages[1..] {
            let text = m["content"].as_str().unwrap_or("");
            if let Some(note) = text.strip_prefix(lango_core::store::SUMMARY_PREFIX) {
                assert!(!prompt[at..].contains(note), "sent twice: {note:?}");
            }
        }
    }
    for system in &with_memory {
        assert!(system.starts_with(SYSTEM), "the base prompt comes first");
        if let (Some(summary), Some(observations)) = (
            system.find("### Summary"),
            system.find("### Recent Observations"),
        ) {
            assert!(summary < observations, "reflections before observations");
        }
        let memory = &system[system.find("## Conversation Memory").unwrap()..];
        let items: usize = memory
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| TiktokenCounter.count(l.trim_start_matches("- ")))
            .sum();
        assert!(
            items <= 120,
            "memory items cost {items} tokens > the 120 budget"
        );
    }
    for body in &chats {
        let history = history_tokens(body);
        assert!(
            history <= 300,
            "history of {history} tokens > maxMessageTokenBudget 300"
        );
    }
    // The observer ran on the side: requests that are not chat turns.
    assert!(requests.len() > chats.len());

    let list = lango(
        home.path(),
        &["--json", "memory", "list", "--session", "long"],
        None,
    )
    .await;
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(!v["reflections"].as_array().unwrap().is_empty());
    let inspect = lango(
        home.path(),
        &["--json", "memory", "inspect", "--session", "long"],
        None,
    )
    .await;
    assert!(inspect.status.success(), "{}", stderr(&inspect));
    let v: Value = serde_json::from_slice(&inspect.stdout).unwrap();
    assert!(v["systemPrompt"]
        .as_str()
        .unwrap()
        .contains("## Conversation Memory"));
    assert!(v["historyTokens"].as_u64().unwrap() <= 300);
    assert_eq!(v["summariesNotRepeated"], 1, "{v}");
    assert!(v["summaryTokensSaved"].as_u64().unwrap() > 0);
    let status = lango(
        home.path(),
        &["--json", "memory", "status", "--session", "long"],
        None,
    )
    .await;
    let v: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(v["phase"], "idle");
    assert_eq!(v["messageTokenThreshold"], 60);

    let clear = lango(
        home.path(),
        &["memory", "clear", "--session", "long", "--yes"],
        None,
    )
    .await;
    assert!(clear.status.success());
    let list = lango(
        home.path(),
        &["--json", "memory", "list", "--session", "long"],
        None,
    )
    .await;
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(
        v["reflections"].as_array().unwrap().is_empty()
            && v["observations"].as_array().unwrap().is_empty()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_memory_off_the_request_is_exactly_what_it_was() {
    let fake = FakeProvider::start(Script::new([Turn::text(["ok"])])).await;
    let home = tempfile::tempdir().unwrap();
    let base = format!("{}/v1", fake.server().base_url());
    let off = json!({"providers": {"p": {"type": "openai-compatible", "baseUrl": base, "defaultModel": "m"}},
                     "agent": {"provider": "p", "systemPrompt": SYSTEM}});
    std::fs::write(home.path().join("settings.json"), off.to_string()).unwrap();
    for text in ["first", "second", "third"] {
        let out = lango(home.path(), &["chat", "--session", "s", text], None).await;
        assert!(out.status.success());
    }
    let bodies: Vec<String> = fake
        .generate_requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 3, "no observer calls with memory off");
    assert!(bodies.iter().all(|b| !b.contains("Conversation Memory")));
    let last: Value = serde_json::from_str(&bodies[2]).unwrap();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        6,
        "system + 3 user + 2 assistant: {messages:?}"
    );
    assert_eq!(
        messages[0]["content"], SYSTEM,
        "the system prompt is exactly the configured one"
    );
}

/// Two CLIs on one conversation, each triggering the memory after its turn while the other
/// does the same (issue 14 item 5: both used to store the same observation and summary).
#[tokio::test(flavor = "multi_thread")]
async fn two_clis_triggering_memory_on_one_conversation_store_no_overlapping_observations() {
    // Slow replies: both processes read the memory cursor before either records a note.
    let fake = FakeProvider::start(Script::new([Turn::slow_text(
        ["Noted: ", "the user keeps ", "a list of prices."],
        150,
    )]))
    .await;
    let base = format!("{}/v1", fake.server().base_url());
    for round in 0..3 {
        let home = tempfile::tempdir().unwrap();
        let s = json!({
            "providers": {"p": {"type": "openai-compatible", "baseUrl": base, "defaultModel": "fake-model"}},
            "agent": {"provider": "p", "systemPrompt": SYSTEM},
            // Observe after every turn; never reflect (reflections would delete observations).
            "observationalMemory": {
                "enabled": true,
                "messageTokenThreshold": 60,
                "observationTokenThreshold": 1000000,
                "maxMessageTokenBudget": 2000
            }
        });
        std::fs::write(home.path().join("settings.json"), s.to_string()).unwrap();
        // A conversation the memory has not seen yet.
        let store = Store::open(&home.path().join("lango.db")).await.unwrap();
        store.create_session("shared", "").await.unwrap();
        for i in 0..8 {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let text = format!("Item {i} costs {i} euros; please remember it for the budget.");
            store
                .append_message("shared", lango_core::store::NewMessage::new(role, text))
                .await
                .unwrap();
        }
        store.close().await;

        let (a, b) = tokio::join!(
            lango(
                home.path(),
                &["chat", "--session", "shared", "And the total?"],
                None
            ),
            lango(
                home.path(),
                &["chat", "--session", "shared", "Any discount?"],
                None
            ),
        );
        for out in [&a, &b] {
            assert!(out.status.success(), "round {round}: {}", stderr(out));
        }

        let store = Store::open(&home.path().join("lango.db")).await.unwrap();
        let observations = store.list_observations("shared").await.unwrap();
        assert!(!observations.is_empty(), "round {round}: the memory ran");
        for (i, x) in observations.iter().enumerate() {
            for y in &observations[i + 1..] {
                assert!(
                    x.seq_end < y.seq_start || y.seq_end < x.seq_start,
                    "round {round}: overlapping observations {}..={} and {}..={}",
                    x.seq_start,
                    x.seq_end,
                    y.seq_start,
                    y.seq_end
                );
            }
        }
        // One compaction summary per observation, live or archived by a later one.
        let live = store.list_messages("shared").await.unwrap();
        let archived = store
            .archived_messages("shared", i64::MIN, i64::MAX)
            .await
            .unwrap();
        let summaries = live
            .iter()
            .chain(&archived)
            .filter(|m| m.content.starts_with(lango_core::store::SUMMARY_PREFIX))
            .count();
        assert_eq!(summaries, observations.len(), "round {round}");
        store.close().await;
    }
}
