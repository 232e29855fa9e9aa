//! `lango update check`: what it prints and its exit code for each answer of a release feed
//! served on 127.0.0.1 — and that feed text reaches the terminal without control sequences.

mod support;

use std::path::Path;

use lango_testkit::server::{Reply, TestServer};
use support::{lango, stderr, stdout};

async fn feed(body: &str) -> TestServer {
    let body = body.as_bytes().to_vec();
    TestServer::start(move |_, _| Reply::full(200, "application/json", body.clone())).await
}

fn set_feed(home: &Path, url: &str) {
    let settings = serde_json::json!({ "updates": { "feedUrl": url } });
    std::fs::write(home.join("settings.json"), settings.to_string()).expect("settings");
}

#[tokio::test]
async fn a_newer_version_is_printed_with_its_link_and_exits_100() {
    let server = feed(
        "{\"version\":\"99.0.0\",\"url\":\"https://example.com/releases/v99\",\
         \"notes\":\"Faster.\\u001b]0;pwned\\u0007\\u001b[2JFixed.\",\"pubDate\":\"2026-11-20\"}",
    )
    .await;
    let home = tempfile::tempdir().unwrap();
    set_feed(home.path(), &format!("{}/latest.json", server.base_url()));
    let out = lango(home.path(), &["update", "check"], None).await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(100), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("Lango 99.0.0 is available (you have "),
        "{text}"
    );
    assert!(
        text.contains("Get it from: https://example.com/releases/v99"),
        "{text}"
    );
    assert!(text.contains("Published: 2026-11-20"), "{text}");
    assert!(text.contains("Faster.Fixed."), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(
        std::fs::read_dir(home.path())
            .unwrap()
            .all(|e| e.unwrap().file_name() == "settings.json"),
        "an update check writes nothing in the data folder"
    );
}

#[tokio::test]
async fn the_same_version_is_up_to_date_and_exits_0() {
    let server = feed(&format!(
        "{{\"version\":\"v{}\"}}",
        env!("CARGO_PKG_VERSION")
    ))
    .await;
    let home = tempfile::tempdir().unwrap();
    set_feed(home.path(), &format!("{}/latest.json", server.base_url()));
    let out = lango(home.path(), &["update", "check"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("You have the latest version"));
}

#[tokio::test]
async fn no_feed_is_a_settings_error_and_a_broken_feed_exits_8() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["update", "check"], None).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("no release feed is set"),
        "{}",
        stderr(&out)
    );

    let server = feed("this is not json").await;
    set_feed(home.path(), &format!("{}/latest.json", server.base_url()));
    let out = lango(home.path(), &["update", "check"], None).await;
    assert_eq!(out.status.code(), Some(8));
    assert!(
        stderr(&out).contains("not a release feed"),
        "{}",
        stderr(&out)
    );
    let out = lango(home.path(), &["--json", "update", "check"], None).await;
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["outcome"], "failed");
    assert_eq!(json["error"]["code"], "update_bad_json");
}
