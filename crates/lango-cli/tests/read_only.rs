//! A data folder Lango cannot write (a read-only mount, another user's folder, a backup
//! copy): commands that only read still work, and the others say which file and what to do.
//!
//! Tests usually run as root, whom `chmod 555` does not stop. Then lango runs as the user
//! `nobody` (setpriv), for whom the folder really is read-only; where that is not possible
//! the tests are skipped with the reason printed.
#![cfg(unix)]
// Skip reasons are printed for whoever runs the tests, not by lango.
#![allow(clippy::disallowed_macros)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lango_core::store::{NewMessage, Store};
use support::{stderr, stdout};

/// How lango is run so that the folder is read-only for it.
enum As {
    /// Not root: `chmod 555` is enough.
    Myself,
    /// Root: as `nobody` through setpriv.
    Nobody,
}

const SETPRIV: [&str; 4] = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"];

fn runner() -> Option<As> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some(As::Myself);
    }
    let works = Command::new("setpriv")
        .args(SETPRIV)
        .arg(env!("CARGO_BIN_EXE_lango"))
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        Some(As::Nobody)
    } else {
        eprintln!(
            "skipped: running as root, where chmod does not make a folder read-only, and \
             setpriv cannot run lango as nobody here"
        );
        None
    }
}

/// A data folder holding one conversation, made read-only; side files as Lango left them,
/// or removed (`clean`: the state after a checkpoint, read as an immutable file).
struct ReadOnlyHome {
    _root: tempfile::TempDir,
    data: PathBuf,
    how: As,
}

impl ReadOnlyHome {
    async fn new(clean: bool) -> Option<Self> {
        let how = runner()?;
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let data = root.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let store = Store::open(&data.join("lango.db")).await.unwrap();
        store.create_session("trip", "Lisbon trip").await.unwrap();
        for (role, text) in [
            ("user", "Plan three days"),
            ("assistant", "Day one: Alfama"),
        ] {
            store
                .append_message("trip", NewMessage::new(role, text))
                .await
                .unwrap();
        }
        store.close().await;
        if clean {
            for side in ["lango.db-wal", "lango.db-shm"] {
                let _ = std::fs::remove_file(data.join(side));
            }
        }
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
        Some(Self {
            _root: root,
            data,
            how,
        })
    }

    fn lango(&self, args: &[&str]) -> Output {
        let mut command = match self.how {
            As::Myself => Command::new(env!("CARGO_BIN_EXE_lango")),
            As::Nobody => {
                let mut c = Command::new("setpriv");
                c.args(SETPRIV).arg(env!("CARGO_BIN_EXE_lango"));
                c
            }
        };
        command
            .arg("--data-dir")
            .arg(&self.data)
            .args(args)
            .env_remove("LANGO_HOME")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run lango")
    }

    /// Every file in the folder with its contents.
    fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&self.data)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p: PathBuf| (name(&p), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    }
}

impl Drop for ReadOnlyHome {
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(&self.data, std::fs::Permissions::from_mode(0o755));
    }
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn reading_commands_work_in_a_read_only_data_folder_and_change_nothing() {
    for clean in [false, true] {
        let Some(home) = ReadOnlyHome::new(clean).await else {
            return;
        };
        let before = home.snapshot();
        for (args, expected) in [
            (&["sessions", "list"][..], "Lisbon trip"),
            (&["sessions", "show", "trip"], "Day one: Alfama"),
            (
                &["sessions", "export", "trip", "--format", "md"],
                "Plan three days",
            ),
            (
                &["--json", "sessions", "export", "trip", "--format", "json"],
                "Alfama",
            ),
            (
                &["memory", "list", "--session", "trip"],
                "Nothing in memory",
            ),
            (&["config", "path"], "lango.db"),
            (&["config", "show"], "providers"),
        ] {
            let out = home.lango(args);
            assert!(
                out.status.success(),
                "{args:?} (side files kept: {}): {}",
                !clean,
                stderr(&out)
            );
            assert!(
                stdout(&out).contains(expected),
                "{args:?}: {}",
                stdout(&out)
            );
        }
        assert!(home.snapshot() == before, "the folder changed");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_in_a_read_only_data_folder_names_the_file_and_what_to_do() {
    let Some(home) = ReadOnlyHome::new(true).await else {
        return;
    };
    let out = home.lango(&["sessions", "rename", "trip", "Porto"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let err = stderr(&out);
    let file = home.data.join("lango.db");
    assert!(
        err.contains(&format!("Lango cannot write to {}", file.display())),
        "{err}"
    );
    assert!(
        err.contains("read-only") && err.contains("permissions"),
        "{err}"
    );
    assert!(!err.contains("code: 14"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_conversation_in_a_read_only_folder_is_not_found() {
    let Some(home) = ReadOnlyHome::new(true).await else {
        return;
    };
    let out = home.lango(&["sessions", "show", "nope"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not found") && err.contains("lango sessions list"),
        "{err}"
    );
}
