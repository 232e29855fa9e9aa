//! Observational memory end to end: `lango chat` over many turns against the fake provider,
//! then `lango memory …` on the result.

use std::path::Path;
use std::process::{Output, Stdio};

use lango_core::store::Store;
use lango_core::tokens::{MessageParts, TiktokenCounter, TokenCounter};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

const SYSTEM: &str = "You are a test assistant.";

fn settings(home: &Path, base_url: &str) {
    let s = json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "p", "systemPrompt": SYSTEM},
        "observationalMemory": {
            "enabled": true,
            "messageTokenThreshold": 60,
            "observationTokenThreshold": 40,
            "maxMessageTokenBudget": 300,
            "memoryTokenBudget": 120,
            "reflectionConsolidationThreshold": 2
        }
    });
    std::fs::write(home.join("settings.json"), s.to_string()).unwrap();
}

async fn lango(home: &Path, args: &[&str], stdin: Option<String>) -> Output {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"))
        .arg("--data-dir")
        .arg(home)
        .args(args)
        .env("LANGO_P_API_KEY", "sk-test")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.unwrap();
    }
    drop(input);
    child.wait_with_output().await.unwrap()
}

fn system_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn sixty_turns_build_observations_reflections_and_a_second_generation_within_budgets() {
    let fake = FakeProvider::start(Script::new([Turn::text([
        "Noted: the user keeps a running list of prices.",
    ])]))
    .await;
    let home = tempfile::tempdir().unwrap();
    settings(home.path(), &format!("{}/v1", fake.server().base_url()));
    let turns: String = (1..=60)
        .map(|i| format!("Item {i} costs {i} euros; please remember it for the budget.\n"))
        .collect();
    let out = lango(home.path(), &["chat", "--session", "long"], Some(turns)).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

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
        let history: usize = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] != "system")
            .map(|m| {
                TiktokenCounter.message_cost(&MessageParts {
                    content: m["content"].as_str().unwrap_or(""),
                    tool_calls: vec![],
                })
            })
            .sum();
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
    assert!(
        inspect.status.success(),
        "{}",
        String::from_utf8_lossy(&inspect.stderr)
    );
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
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
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
    settings(home.path(), &format!("{}/v1", fake.server().base_url()));
    // Long enough to pass messageTokenThreshold (60) on its own.
    let long = "Item 1 costs 10 euros; remember it for the budget please. ".repeat(8);
    let first = lango(home.path(), &["chat", "--session", "s", &long], None).await;
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    // The first exchange is now observable: this turn's memory cycle calls the hung model.
    let started = std::time::Instant::now();
    let second = lango(
        home.path(),
        &["chat", "--session", "s", "And item 2?"],
        None,
    )
    .await;
    let took = started.elapsed();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(String::from_utf8_lossy(&second.stdout).contains("Second answer."));
    assert_eq!(fake.turns_served(), 3, "the observer was called");
    assert!(
        took < std::time::Duration::from_secs(15),
        "chat exited {took:?} after starting (the memory model hangs for 120 s)"
    );

    let status = lango(home.path(), &["memory", "status", "--session", "s"], None).await;
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
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
    assert!(
        chat.status.success(),
        "{}",
        String::from_utf8_lossy(&chat.stderr)
    );
    assert!(String::from_utf8_lossy(&chat.stdout).contains("Still here."));

    let status = lango(home.path(), &["memory", "status", "--session", "s"], None).await;
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
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
    settings(home.path(), &format!("{}/v1", fake.server().base_url()));
    let long = "Item 1 costs 10 euros; remember it for the budget please. ".repeat(8);
    for message in [long.as_str(), "And item 2?"] {
        let out = lango(home.path(), &["chat", "--session", "s", message], None).await;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = Store::open(&home.path().join("lango.db")).await.unwrap();
    assert!(
        store.list_observations("s").await.unwrap().is_empty(),
        "cancelled at exit"
    );
    store.close().await;

    let update = lango(home.path(), &["memory", "update", "--session", "s"], None).await;
    let text = String::from_utf8_lossy(&update.stdout);
    assert!(
        update.status.success(),
        "{}",
        String::from_utf8_lossy(&update.stderr)
    );
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
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        !text.contains("last error"),
        "a good cycle clears the failure: {text}"
    );

    // Nothing left to do: a second update makes no model call.
    let served = fake.turns_served();
    let again = lango(home.path(), &["memory", "update", "--session", "s"], None).await;
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 new observations"));
    assert_eq!(fake.turns_served(), served);
}
