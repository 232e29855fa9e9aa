//! `lango chat` with replies that are not complete (issue 14): a stream cut before the
//! provider's end marker, a reply stopped at the output limit, and an endless reply. The real
//! binary, a real SQLite file, the fake provider in each wire format.

mod support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use lango_core::store::{MessageStatus, StoredMessage};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use support::{base_url, lango, rows, stderr};

const KINDS: [&str; 4] = ["openai-compatible", "ollama", "anthropic", "gemini"];

fn write_settings(home: &Path, kind: &str, base_url: &str, agent: Value) {
    let mut settings = json!({
        "providers": {"p": {"type": kind, "baseUrl": base_url, "defaultModel": "fake-model"}},
        "agent": {"provider": "p"}
    });
    if let (Some(target), Some(extra)) = (
        settings["agent"].as_object_mut(),
        agent.as_object().cloned(),
    ) {
        target.extend(extra);
    }
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

async fn chat(home: &Path, text: &str) -> Output {
    lango(home, &["chat", "--session", "s", text], None).await
}

/// The assistant rows of session `s`.
async fn replies(home: &Path) -> Vec<StoredMessage> {
    let rows = rows(home, "s").await;
    rows.into_iter().filter(|r| r.role == "assistant").collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_cut_before_its_end_marker_is_stored_interrupted_and_exits_4() {
    for kind in KINDS {
        let fake = FakeProvider::start(Script::new([Turn::cut(["The first ", "half"])])).await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        let out = chat(home.path(), "tell me").await;
        assert_eq!(out.status.code(), Some(4), "{kind}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("before the provider said the reply was complete")
                && err.contains("kept, marked interrupted"),
            "{kind}: {err}"
        );
        let rows = replies(home.path()).await;
        assert_eq!(rows.len(), 1, "{kind}");
        assert_eq!(
            (rows[0].content.as_str(), rows[0].status),
            ("The first half", MessageStatus::Interrupted),
            "{kind}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_stopped_at_the_output_limit_is_stored_truncated_and_offers_continue() {
    for kind in KINDS {
        let fake =
            FakeProvider::start(Script::new([Turn::length_stop(["The first ", "half"])])).await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        let out = chat(home.path(), "tell me").await;
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("(cut at the output limit — send \"continue\" to get the rest)"),
            "{kind}: {}",
            stderr(&out)
        );
        let rows = replies(home.path()).await;
        assert_eq!(
            (rows[0].content.as_str(), rows[0].status),
            ("The first half", MessageStatus::Truncated),
            "{kind}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_reply_is_stopped_at_max_reply_bytes_and_kept_as_cut() {
    const CAP: usize = 64 * 1024;
    for kind in KINDS {
        let fake = FakeProvider::start(Script::new([Turn::endless("all work and no play ")])).await;
        let home = tempfile::tempdir().unwrap();
        write_settings(
            home.path(),
            kind,
            &base_url(&fake, kind),
            json!({"maxReplyBytes": CAP}),
        );
        let out = tokio::time::timeout(Duration::from_secs(60), chat(home.path(), "go"))
            .await
            .unwrap_or_else(|_| panic!("{kind}: the turn did not end by itself"));
        assert_eq!(out.status.code(), Some(4), "{kind}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("64 KiB size limit (agent.maxReplyBytes)"),
            "{kind}: {}",
            stderr(&out)
        );
        let rows = replies(home.path()).await;
        assert_eq!(rows[0].status, MessageStatus::Interrupted, "{kind}");
        let kept = rows[0].content.len();
        assert!(kept <= CAP && kept > CAP - 64, "{kind}: kept {kept} bytes");
        // The server notices the closed connection on its next write.
        let mut waited = 0;
        while fake.closed_early() == 0 && waited < 50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 1;
        }
        assert_eq!(fake.closed_early(), 1, "{kind}: the connection was closed");
    }
}
