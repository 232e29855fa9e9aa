//! `lango import FILE`: the real binary importing synthetic ChatGPT and Claude exports — the
//! summary, a re-run adding nothing, exit codes for broken and missing files, and
//! `--build-memory` (the cost shown first, asked, then the memory built through the fake
//! provider).

mod support;

use std::path::{Path, PathBuf};

use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use support::{lango, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lango-core/tests/fixtures/import")
        .join(name)
}

async fn titles(home: &Path) -> Vec<String> {
    let out = lango(home, &["--json", "sessions", "list"], None).await;
    let list: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let mut titles: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap().to_owned())
        .collect();
    titles.sort();
    titles
}

#[tokio::test]
async fn an_import_prints_its_summary_and_a_second_run_adds_nothing() {
    let home = tempfile::tempdir().unwrap();
    let file = fixture("chatgpt.json");
    let out = lango(home.path(), &["import", file.to_str().unwrap()], None).await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("Imported from ChatGPT: 2 new conversation(s), 0 updated, 0 unchanged (3 in the file); 10 message(s)."),
        "{text}"
    );
    assert!(
        text.contains("1 × empty conversation: \"Nothing said\""),
        "{text}"
    );
    assert!(text.contains("2 × hidden system message"), "{text}");
    assert!(
        text.contains("1 image(s), file(s) or other part(s) kept as a note"),
        "{text}"
    );
    assert_eq!(
        titles(home.path()).await,
        [
            "Compute the squares of 0 to 3, like in this picture.",
            "Sourdough starter"
        ]
    );

    let again = lango(home.path(), &["import", file.to_str().unwrap()], None).await;
    assert_eq!(again.status.code(), Some(0));
    assert!(
        stdout(&again).contains("0 new conversation(s), 0 updated, 2 unchanged"),
        "{}",
        stdout(&again)
    );
    assert_eq!(titles(home.path()).await.len(), 2);
}

#[tokio::test]
async fn json_output_carries_the_summary() {
    let home = tempfile::tempdir().unwrap();
    let file = fixture("claude.json");
    let out = lango(
        home.path(),
        &["--json", "import", file.to_str().unwrap()],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(summary["source"], "claude");
    assert_eq!(summary["created"], 1);
    assert_eq!(summary["messagesImported"], 3);
    assert_eq!(
        summary["skippedConversations"][0]["reason"],
        "emptyConversation"
    );
}

#[tokio::test]
async fn a_broken_file_exits_2_and_a_missing_one_6_importing_nothing() {
    let home = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("claude.json")).unwrap();
    let cut = home.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let out = lango(home.path(), &["import", cut.to_str().unwrap()], None).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ends in the middle of a conversation"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("Nothing was imported"));

    let zip = home.path().join("export.zip");
    std::fs::write(&zip, b"PK\x03\x04....").unwrap();
    let out = lango(home.path(), &["import", zip.to_str().unwrap()], None).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Unzip it"), "{}", stderr(&out));

    let missing = home.path().join("nope.json");
    let out = lango(home.path(), &["import", missing.to_str().unwrap()], None).await;
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(titles(home.path()).await.is_empty());
}

fn memory_settings(home: &Path, fake: Option<&FakeProvider>, enabled: bool) {
    let base = fake.map_or("http://127.0.0.1:9/v1".to_owned(), |f| {
        format!("{}/v1", f.server().base_url())
    });
    let settings = json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": base, "defaultModel": "fake-model"}},
        "agent": {"provider": "p"},
        "observationalMemory": {
            "enabled": enabled,
            "messageTokenThreshold": 10,
            "maxMessageTokenBudget": 40,
            "observationTokenThreshold": 100000
        }
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

#[tokio::test]
async fn build_memory_shows_the_cost_then_builds_through_the_memory_model() {
    let fake = FakeProvider::start(Script::new(
        (0..20).map(|i| Turn::text([format!("note {i}")])),
    ))
    .await;
    let home = tempfile::tempdir().unwrap();
    memory_settings(home.path(), Some(&fake), true);
    let file = fixture("chatgpt.json");
    let out = lango(
        home.path(),
        &["import", file.to_str().unwrap(), "--build-memory", "--yes"],
        None,
    )
    .await;
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    let calls: usize = err
        .split("to the observer in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no estimate in {err}"));
    assert!(err.contains("sends about"), "{err}");
    assert!(calls > 0);
    assert!(
        text.contains(&format!("Memory built: {calls} observation(s)")),
        "{text}"
    );
    assert_eq!(
        fake.turns_served(),
        calls,
        "the estimate counted the calls made"
    );
}

#[tokio::test]
async fn build_memory_asks_first_and_needs_the_memory_on() {
    let home = tempfile::tempdir().unwrap();
    memory_settings(home.path(), None, false);
    let file = fixture("chatgpt.json");
    let out = lango(
        home.path(),
        &["import", file.to_str().unwrap(), "--build-memory"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("needs the observational memory on"),
        "{}",
        stderr(&out)
    );
    assert!(titles(home.path()).await.is_empty(), "nothing imported");

    let fake = FakeProvider::start(Script::new([])).await;
    memory_settings(home.path(), Some(&fake), true);
    let out = lango(
        home.path(),
        &["import", file.to_str().unwrap(), "--build-memory"],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("pass --yes"), "{}", stderr(&out));
    assert_eq!(fake.turns_served(), 0, "nothing sent without a yes");
    assert_eq!(
        titles(home.path()).await.len(),
        2,
        "the import itself is done"
    );
}
