//! The fault suite (issue 14 "Prove it"), crashes and a full disk: `lango chat` killed with
//! SIGKILL at points spread over a reply (before it starts, while it streams, just after it)
//! and over the memory cycle after it (the observer's call in flight, the observation's
//! write), and a data folder on a small filesystem that fills up mid-conversation. Each case
//! checks that nothing stored before is lost and that nothing is stored as complete that was
//! not.

mod support;

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

const OBSERVER_CHUNKS: usize = 8;
const OBSERVER_DELAY_MS: u64 = 50;

/// What the observer answers in `round`, streamed in [`OBSERVER_CHUNKS`] parts.
fn observer_chunks(round: usize) -> Vec<String> {
    (0..OBSERVER_CHUNKS)
        .map(|i| format!("note{round}.{i} "))
        .collect()
}

/// A question long enough that every turn reaches the observation threshold on its own.
fn memory_question(round: usize) -> String {
    format!(
        "Question {round}: {}",
        "the price list grows every week and the budget must follow it, so remember each item. "
            .repeat(6)
    )
}

/// Memory on, observing (and compacting) after every turn, never reflecting: the cycle the
/// kills land in is one observation.
fn write_memory_settings(home: &Path, base_url: &str) {
    let settings = json!({
        "providers": {"p": {"type": "openai-compatible", "baseUrl": format!("{base_url}/v1"), "defaultModel": "fake-model"}},
        "agent": {"provider": "p"},
        "observationalMemory": {
            "enabled": true,
            "messageTokenThreshold": 60,
            "observationTokenThreshold": 1000000,
            "maxMessageTokenBudget": 4000,
            "memoryTokenBudget": 4000
        }
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

/// SIGKILL at seeded points of the memory cycle that follows a reply: from the moment the
/// observer's request reaches the provider, through its streamed answer, to a little after
/// it (the observation's write and compaction). After each kill the database is whole, every
/// question and reply is stored once and complete, observations never overlap and each holds
/// the observer's whole answer, the cursor never points past what they cover — and the next
/// memory cycle observes everything left.
#[tokio::test(flavor = "multi_thread")]
async fn sigkill_during_an_observation_loses_nothing_and_the_next_cycle_completes_the_work() {
    let seed = 0x0b5e_u64;
    say(&format!("kill points from seed {seed:#x}"));
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("lango.db");
    let stream_ms = OBSERVER_CHUNKS as u64 * OBSERVER_DELAY_MS;
    let mut rng = seed;
    let mut notes: Vec<String> = Vec::new();
    let rounds = 8usize;
    let mut kills = 0;
    // The memory never observes the newest exchange: each round's cycle observes the one
    // before it, so a first exchange comes before the kills.
    let first = FakeProvider::start(Script::new([Turn::text(["The first answer."])])).await;
    write_memory_settings(home.path(), &first.server().base_url());
    chat_ok(home.path(), &memory_question(usize::MAX)).await;
    for round in 0..rounds {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // One point in each of `rounds` equal slices of the call and a little after it, so
        // the kills cover its start, its middle, its end and the write that follows.
        let slice = (stream_ms + 300) / rounds as u64;
        let kill_after = round as u64 * slice + (rng >> 33) % slice;
        notes.push(observer_chunks(round).concat().trim().to_string());
        let fake = FakeProvider::start(Script::new([
            Turn::text([format!("Reply {round}.")]),
            Turn::slow_text(observer_chunks(round), OBSERVER_DELAY_MS),
        ]))
        .await;
        write_memory_settings(home.path(), &fake.server().base_url());
        let mut child = lango(
            home.path(),
            &["chat", "--session", "s", &memory_question(round)],
        )
        .spawn()
        .unwrap();
        // Counted from the observer's request reaching the provider, not from the start: a
        // loaded machine can take longer than the whole delay to start a process.
        let started = std::time::Instant::now();
        let mut exited = None;
        while fake.generate_requests().len() < 2 {
            // A machine so loaded that the cycle outlived the shutdown grace: nothing to kill
            // this round, but the checks below still hold.
            if let Some(status) = child.try_wait().unwrap() {
                exited = Some(status);
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "round {round}: the observer was never called"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        match exited {
            Some(status) => say(&format!(
                "round {round}: lango exited ({status}) before the observer was called"
            )),
            None => {
                tokio::time::sleep(Duration::from_millis(kill_after)).await;
                let _ = child.start_kill();
                let _ = child.wait().await;
                kills += 1;
            }
        }

        let memory = support::memory_db::check_session(&db, "s");
        let exchanges =
            std::iter::once((memory_question(usize::MAX), "The first answer.".to_string()))
                .chain((0..=round).map(|r| (memory_question(r), format!("Reply {r}."))));
        for (r, (question, reply)) in exchanges.enumerate() {
            for (role, text) in [("user", question), ("assistant", reply)] {
                let found: Vec<_> = memory
                    .messages
                    .iter()
                    .filter(|m| m.role == role && m.content == text)
                    .collect();
                assert_eq!(found.len(), 1, "round {round} (killed {kill_after} ms into the observer's call): {role} of exchange {r} stored once");
                assert_eq!(
                    found[0].status, "complete",
                    "round {round}: {role} of exchange {r}"
                );
            }
        }
        for (start, end, content) in &memory.observations {
            assert!(
                notes.contains(content),
                "round {round}: observation {start}..={end} is not a whole answer: {content:?}"
            );
        }
        assert_eq!(
            memory.summaries,
            memory.observations.len(),
            "round {round}: one summary per observation"
        );
        say(&format!(
            "round {round}: killed {kill_after} ms into the observer's call; {} observations, cursor {}",
            memory.observations.len(),
            memory.cursor
        ));
    }

    assert!(kills > 0, "no kill landed in an observation");
    // A restart with a working observer: the next cycle observes everything left.
    let fake = FakeProvider::start(Script::new([
        Turn::text(["The last reply."]),
        Turn::text(["final note"]),
    ]))
    .await;
    write_memory_settings(home.path(), &fake.server().base_url());
    let out = lango(
        home.path(),
        &["chat", "--session", "s", &memory_question(rounds)],
    )
    .output()
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let memory = support::memory_db::check_session(&db, "s");
    assert_eq!(memory.messages.len(), 2 * (rounds + 2), "no message lost");
    // Everything before the newest exchange is observed.
    let newest = &memory.messages[memory.messages.len() - 2];
    assert_eq!(newest.content, memory_question(rounds));
    assert_eq!(
        memory.cursor,
        newest.seq - 1,
        "the next memory cycle observed every message the killed ones left"
    );
    assert!(memory.observations.iter().any(|o| o.2 == "final note"));
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
