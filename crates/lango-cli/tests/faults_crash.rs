//! The fault suite (issue 14 "Prove it"), crashes and a full disk: `lango chat` killed with
//! SIGKILL at points spread over a reply (before it starts, while it streams, just after it),
//! and a data folder on a small filesystem that fills up mid-conversation. Each case checks
//! that nothing stored before is lost and that no reply is stored as complete that was not.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use lango_core::store::{MessageStatus, Store};
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;

const CHUNKS: usize = 20;
const CHUNK_DELAY_MS: u64 = 60;

fn write_settings(home: &Path, base_url: &str) {
    let settings = json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": format!("{base_url}/v1"), "defaultModel": "fake-model"}},
        "agent": {"provider": "p"}
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

fn lango(home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"));
    cmd.arg("--data-dir")
        .arg(home)
        .args(args)
        .env("LANGO_P_API_KEY", "sk-test")
        .env_remove("LANGO_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// A line in the test's output (the crate forbids print macros, so output stays sanitised).
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// `lango chat --session s MESSAGE`, which must succeed.
async fn chat_ok(home: &Path, message: &str) {
    let out = lango(home, &["chat", "--session", "s", message])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{message:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn reply_chunks(round: usize) -> Vec<String> {
    (0..CHUNKS).map(|i| format!("r{round}c{i} ")).collect()
}

/// SIGKILL at points spread over a streamed reply (seeded, printed): the conversation so far
/// is intact, and the reply being written is either absent or stored complete and whole —
/// never a part of it marked complete.
#[tokio::test(flavor = "multi_thread")]
async fn sigkill_at_any_point_of_a_reply_loses_nothing_stored_and_stores_no_part_as_complete() {
    let seed = 0x5eed_u64;
    say(&format!("kill points from seed {seed:#x}"));
    let home = tempfile::tempdir().unwrap();
    // A first, finished exchange that every kill must leave intact.
    let first = FakeProvider::start(Script::new([Turn::text(["The first answer."])])).await;
    write_settings(home.path(), &first.server().base_url());
    chat_ok(home.path(), "first question").await;

    let stream_ms = CHUNKS as u64 * CHUNK_DELAY_MS;
    let mut rng = seed;
    let mut complete_seen = 0;
    for round in 0..8usize {
        // Before the reply, while it streams, or just after it: 0..stream_ms + 600 ms.
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let kill_after = 150 + (rng >> 33) % (stream_ms + 600);
        let fake = FakeProvider::start(Script::new([Turn::Text {
            chunks: reply_chunks(round),
            delay_ms: CHUNK_DELAY_MS,
        }]))
        .await;
        write_settings(home.path(), &fake.server().base_url());
        let mut child = lango(
            home.path(),
            &["chat", "--session", "s", &format!("question {round}")],
        )
        .spawn()
        .unwrap();
        tokio::time::sleep(Duration::from_millis(kill_after)).await;
        let _ = child.start_kill();
        let _ = child.wait().await;

        let store = Store::open(&home.path().join("lango.db"))
            .await
            .expect("reopens after SIGKILL");
        let rows = store.list_messages("s").await.unwrap();
        store.close().await;
        assert_eq!(rows[0].content, "first question", "round {round}");
        assert_eq!(rows[1].content, "The first answer.", "round {round}");
        let whole = reply_chunks(round).concat();
        for row in rows
            .iter()
            .filter(|r| r.role == "assistant" && r.content.starts_with(&format!("r{round}c")))
        {
            if row.status == MessageStatus::Complete {
                assert_eq!(
                    row.content, whole,
                    "round {round} (killed after {kill_after} ms): a part stored as complete"
                );
                complete_seen += 1;
            }
        }
    }
    say(&format!(
        "{complete_seen} of 8 kills came after the reply was stored"
    ));
}

/// A data folder on a 4 MiB filesystem that fills up: the reply that cannot be stored fails
/// with the database's exit code and a message saying the disk is full; once space is freed
/// the conversation before it is intact and chat works again.
#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_fails_clearly_and_loses_nothing_stored_before() {
    let mount = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(mount.path())
        .status();
    if !mounted.is_ok_and(|s| s.success()) {
        say("skipped: cannot mount a small tmpfs here (needs root and mount rights)");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(mount.path());
    let home = mount.path();

    let fake = FakeProvider::start(Script::new([Turn::text(["A short answer."])])).await;
    write_settings(home, &fake.server().base_url());
    chat_ok(home, "before the disk fills").await;

    // Fill the disk, leaving less than the next reply needs.
    let filler = home.join("filler");
    let free = fs_free(home);
    std::fs::write(&filler, vec![0u8; free.saturating_sub(24 * 1024) as usize]).ok();
    // Within the reply caps (4096 max tokens → 128 KiB), so only the disk stops it.
    let big = FakeProvider::start(Script::new([Turn::text(["x".repeat(100 * 1024)])])).await;
    write_settings(home, &big.server().base_url());
    let out = lango(home, &["chat", "--session", "s", "a long answer please"])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(5),
        "the database's exit code: {stderr}"
    );
    assert!(
        stderr.to_lowercase().contains("full"),
        "says the disk is full: {stderr}"
    );

    std::fs::remove_file(&filler).unwrap();
    let store = Store::open(&home.join("lango.db"))
        .await
        .expect("opens once space is back");
    let rows = store.list_messages("s").await.unwrap();
    store.close().await;
    assert_eq!(rows[0].content, "before the disk fills");
    assert_eq!(rows[1].content, "A short answer.");
    assert!(
        !rows.iter().any(|r| r.status == MessageStatus::Complete
            && r.content.starts_with('x')
            && r.content.len() < 100 * 1024),
        "a cut reply stored as complete"
    );
    write_settings(home, &fake.server().base_url());
    chat_ok(home, "and now?").await;
}

/// Free bytes on the filesystem holding `dir` (`df` in 1K blocks).
fn fs_free(dir: &Path) -> u64 {
    let out = std::process::Command::new("df")
        .args(["-k", "--output=avail"])
        .arg(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}
