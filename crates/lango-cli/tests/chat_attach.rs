//! `lango chat --attach FILE`: the file goes with the message in the provider's wire format
//! and stays with the stored message; a file that cannot be attached stops before anything
//! is sent, with its reason.

mod support;

use lango_testkit::fake::{FakeProvider, Script, Turn};
use support::{lango, rows, stderr, write_settings};

#[tokio::test(flavor = "multi_thread")]
async fn an_attached_text_file_reaches_the_model_framed_with_its_name() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Noted."])])).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let file = home.path().join("todo.txt");
    std::fs::write(&file, "buy milk\ncall Ana").unwrap();
    let out = lango(
        home.path(),
        &[
            "chat",
            "--session",
            "s",
            "--attach",
            file.to_str().unwrap(),
            "What is on my list?",
        ],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = fake.generate_requests()[0].json();
    let user = sent["messages"][1]["content"].as_str().unwrap().to_owned();
    assert!(user.starts_with("What is on my list?"), "{user}");
    assert!(
        user.contains("[Attached file: todo.txt (text/plain"),
        "{user}"
    );
    assert!(user.contains("buy milk\ncall Ana"), "{user}");
    let stored = rows(home.path(), "s").await;
    assert_eq!(stored[0].content, "What is on my list?");
    assert_eq!(stored[0].attachments[0].name, "todo.txt");

    // A Markdown export to a file writes the attached file beside it and links it.
    let out_dir = home.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let md = out_dir.join("list.md");
    let exported = lango(
        home.path(),
        &[
            "sessions",
            "export",
            "s",
            "--format",
            "md",
            "--output",
            md.to_str().unwrap(),
        ],
        None,
    )
    .await;
    assert!(exported.status.success(), "{}", stderr(&exported));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("[todo.txt](<list files/01 todo.txt>)"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("list files").join("01 todo.txt")).unwrap(),
        "buy milk\ncall Ana"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_that_cannot_be_attached_stops_before_anything_is_sent() {
    let fake = FakeProvider::start(Script::new([Turn::text(["never"])])).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(home.path(), &fake);
    let binary = home.path().join("tool.bin");
    std::fs::write(&binary, [0u8, 1, 2, 3, 0, 0, 255]).unwrap();
    let refused = lango(
        home.path(),
        &[
            "chat",
            "--session",
            "s",
            "--attach",
            binary.to_str().unwrap(),
            "hi",
        ],
        None,
    )
    .await;
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("\"tool.bin\" cannot be attached"),
        "{}",
        stderr(&refused)
    );
    let missing = home.path().join("nowhere.txt");
    let absent = lango(
        home.path(),
        &[
            "chat",
            "--session",
            "s",
            "--attach",
            missing.to_str().unwrap(),
            "hi",
        ],
        None,
    )
    .await;
    assert_eq!(absent.status.code(), Some(6), "{}", stderr(&absent));
    assert!(fake.generate_requests().is_empty());
}
