//! The update check against a real HTTP server on 127.0.0.1 (`lango-testkit`): what each
//! kind of feed — and each way a feed can fail — tells the user. Nothing is ever installed.

use std::time::{Duration, Instant};

use lango_core::update::{
    check, check_with, parse_version, FetchLimits, UpdateError, UpdateStatus,
};
use lango_testkit::server::{Action, Reply, TestServer};
use semver::Version;

fn v(s: &str) -> Version {
    parse_version(s).unwrap()
}

fn limits() -> FetchLimits {
    FetchLimits {
        timeout: Duration::from_secs(2),
        max_bytes: 64 * 1024,
    }
}

/// A server answering every request with `reply`, and the feed URL on it.
async fn serving(reply: Reply) -> (TestServer, String) {
    let server = TestServer::start(move |_, _| reply.clone()).await;
    let url = format!("{}/lango/latest.json", server.base_url());
    (server, url)
}

async fn feed(body: &str) -> (TestServer, String) {
    serving(Reply::full(
        200,
        "application/json",
        body.as_bytes().to_vec(),
    ))
    .await
}

async fn check_as(current: &str, url: &str) -> Result<UpdateStatus, UpdateError> {
    check_with(Some(url), &v(current), limits()).await
}

#[tokio::test]
async fn a_newer_release_is_reported_with_its_link_and_notes() {
    let (server, url) = feed(
        r#"{"version":"v0.2.0","url":"https://example.com/lango/releases/tag/v0.2.0",
            "notes":"Faster start.\nFixes.","pubDate":"2026-11-20"}"#,
    )
    .await;
    let UpdateStatus::Available(release) = check_as("0.1.0", &url).await.unwrap() else {
        panic!("0.2.0 is newer than 0.1.0");
    };
    assert_eq!(release.version, v("0.2.0"));
    assert_eq!(
        release.url.as_deref(),
        Some("https://example.com/lango/releases/tag/v0.2.0")
    );
    assert_eq!(release.notes, "Faster start.\nFixes.");
    assert_eq!(release.published.as_deref(), Some("2026-11-20"));
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one request per check");
    assert_eq!(requests[0].method, "GET");
    assert!(requests[0]
        .header("user-agent")
        .is_some_and(|ua| ua.starts_with("lango/")));
}

#[tokio::test]
async fn the_same_or_an_older_release_is_up_to_date() {
    let (_s, url) = feed(r#"{"version":"0.2.0"}"#).await;
    assert_eq!(
        check_as("0.2.0", &url).await.unwrap(),
        UpdateStatus::UpToDate { latest: v("0.2.0") }
    );
    assert_eq!(
        check_as("0.10.0", &url).await.unwrap(),
        UpdateStatus::UpToDate { latest: v("0.2.0") },
        "0.10.0 is newer than 0.2.0 (numbers, not text)"
    );
}

#[tokio::test]
async fn a_pre_release_is_offered_only_to_a_pre_release_build() {
    let (_s, url) = feed(r#"{"version":"0.3.0-beta.1"}"#).await;
    assert!(matches!(
        check_as("0.2.0", &url).await.unwrap(),
        UpdateStatus::UpToDate { .. }
    ));
    assert!(matches!(
        check_as("0.3.0-alpha.2", &url).await.unwrap(),
        UpdateStatus::Available(_)
    ));
}

#[tokio::test]
async fn tauri_s_latest_json_is_understood() {
    let (_s, url) = feed(
        r#"{"version":"1.0.0","notes":"First stable.","pub_date":"2026-12-01T10:00:00Z",
            "platforms":{"windows-x86_64":{"signature":"x","url":"https://example.com/Lango.msi"}}}"#,
    )
    .await;
    let UpdateStatus::Available(release) = check_as("0.9.0", &url).await.unwrap() else {
        panic!("1.0.0 is newer");
    };
    assert_eq!(release.notes, "First stable.");
    assert_eq!(release.published.as_deref(), Some("2026-12-01T10:00:00Z"));
}

#[tokio::test]
async fn a_feed_that_is_not_json_says_so() {
    let (_s, url) = serving(Reply::full(
        200,
        "text/html",
        b"<html>Not here</html>".to_vec(),
    ))
    .await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::BadJson { .. }), "{e:?}");
    assert_eq!(e.code(), "update_bad_json");
}

#[tokio::test]
async fn a_feed_without_a_version_number_says_so() {
    let (_s, url) = feed(r#"{"version":"latest"}"#).await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::BadVersion { .. }), "{e:?}");
}

#[tokio::test]
async fn an_endless_body_is_cut_at_the_size_cap_and_the_connection_dropped() {
    let head = Reply::head(200, "application/json", &[]);
    let (server, url) = serving(head.then(Action::Repeat(vec![b' '; 8192]))).await;
    let started = Instant::now();
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::TooLarge { limit: 65536 }), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    for _ in 0..50 {
        if server.closed_early() == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the client kept the oversized download open");
}

#[tokio::test]
async fn a_feed_over_the_size_cap_is_refused() {
    let big = format!(r#"{{"version":"9.9.9","notes":"{}"}}"#, "x".repeat(100_000));
    let (_s, url) = feed(&big).await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::TooLarge { .. }), "{e:?}");
}

#[tokio::test]
async fn a_missing_feed_and_a_server_error_are_told_apart() {
    let (_s, url) = serving(Reply::full(404, "text/plain", b"nope".to_vec())).await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(
        matches!(e, UpdateError::Status { status: 404, .. }),
        "{e:?}"
    );
    assert!(e.summary().contains("not found"), "{}", e.summary());

    let (_s, url) = serving(Reply::full(500, "text/plain", b"boom".to_vec())).await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(
        matches!(e, UpdateError::Status { status: 500, .. }),
        "{e:?}"
    );
    assert!(e.summary().contains("HTTP 500"), "{}", e.summary());
}

#[tokio::test]
async fn a_feed_that_never_answers_times_out() {
    let (_s, url) = serving(Reply {
        actions: vec![Action::Stall(Duration::from_secs(30))],
    })
    .await;
    let started = Instant::now();
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::Timeout { .. }), "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let (server, url) = feed("{}").await;
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let e = check_as("0.1.0", &url).await.unwrap_err();
    assert!(matches!(e, UpdateError::Unreachable { .. }), "{e:?}");
    assert!(e.summary().starts_with("Could not reach"));
}

#[tokio::test]
async fn a_link_that_is_not_a_web_address_is_refused() {
    for link in [
        "javascript:alert(document.cookie)",
        "file:///C:/Windows/calc.exe",
    ] {
        let (_s, url) = feed(&format!(r#"{{"version":"9.0.0","url":"{link}"}}"#)).await;
        let e = check_as("0.1.0", &url).await.unwrap_err();
        assert!(matches!(e, UpdateError::BadLink { .. }), "{link}: {e:?}");
    }
}

#[tokio::test]
async fn with_no_feed_nothing_is_fetched() {
    assert!(matches!(check(None).await, Err(UpdateError::NotConfigured)));
    assert!(matches!(
        check(Some("  ")).await,
        Err(UpdateError::NotConfigured)
    ));
}

#[tokio::test]
async fn a_plain_http_feed_on_another_machine_is_refused_before_any_request() {
    let e = check(Some("http://example.com/latest.json"))
        .await
        .unwrap_err();
    assert!(matches!(e, UpdateError::BadFeedUrl { .. }), "{e:?}");
}
