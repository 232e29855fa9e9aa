//! `lango chat` and a conversation's own model: each reply records the model that wrote it
//! and the provider's token counts (in every wire format), and `--provider` / `--model`
//! switch a conversation for good.

mod support;

use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::json;
use support::{base_url, rows, stderr};

/// Settings with provider `p` (OpenAI-compatible at `fake`) and `q` of `kind` at `other`.
fn two_providers(home: &std::path::Path, fake: &FakeProvider, other: &FakeProvider, kind: &str) {
    let settings = json!({
        "providers": {
            "p": {"type": "openai-compatible", "baseUrl": base_url(fake, "openai-compatible"), "defaultModel": "fake-model"},
            "q": {"type": kind, "baseUrl": base_url(other, kind), "defaultModel": "q-default"}
        },
        "agent": {"provider": "p"}
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn each_reply_records_its_model_and_the_providers_token_counts_in_every_wire_format() {
    for kind in ["openai-compatible", "ollama", "anthropic", "gemini"] {
        let fake = FakeProvider::start(Script::new([Turn::text(["unused"])])).await;
        let other = FakeProvider::start(Script::new([Turn::text(["Bonjour ", "!"])])).await;
        let home = tempfile::tempdir().unwrap();
        two_providers(home.path(), &fake, &other, kind);
        let out = lango_with_q_key(
            home.path(),
            &[
                "chat",
                "--session",
                "s",
                "--provider",
                "q",
                "--model",
                "q-large",
                "hi",
            ],
        )
        .await;
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert_eq!(fake.generate_requests().len(), 0, "{kind}");
        assert_eq!(other.generate_requests().len(), 1, "{kind}");
        let reply = rows(home.path(), "s").await[1].reply.clone();
        let reply = reply.unwrap_or_else(|| panic!("{kind}: the reply names its model"));
        assert_eq!(
            (reply.provider.as_str(), reply.model.as_str()),
            ("q", "q-large"),
            "{kind}"
        );
        assert!(
            reply.input_tokens.is_some() && reply.output_tokens.is_some_and(|t| t > 0),
            "{kind}: {reply:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_switched_conversation_stays_switched_and_others_keep_the_default() {
    let fake = FakeProvider::start(Script::new([Turn::text(["default"])])).await;
    let other = FakeProvider::start(Script::new([Turn::text(["other"])])).await;
    let home = tempfile::tempdir().unwrap();
    two_providers(home.path(), &fake, &other, "openai-compatible");
    let switched = lango_with_q_key(
        home.path(),
        &["chat", "--session", "a", "--provider", "q", "one"],
    )
    .await;
    assert!(switched.status.success(), "{}", stderr(&switched));
    // No flag on the next turn: the conversation keeps its provider, with q's default model.
    lango_with_q_key(home.path(), &["chat", "--session", "a", "two"]).await;
    lango_with_q_key(home.path(), &["chat", "--session", "b", "three"]).await;
    let models: Vec<String> = other
        .generate_requests()
        .iter()
        .map(|r| r.json()["model"].to_string())
        .collect();
    assert_eq!(models, ["\"q-default\"", "\"q-default\""]);
    assert_eq!(fake.generate_requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_provider_or_a_foreign_model_is_a_config_error_and_nothing_is_sent() {
    let fake = FakeProvider::start(Script::new([Turn::text(["never"])])).await;
    let other = FakeProvider::start(Script::new([Turn::text(["never"])])).await;
    let home = tempfile::tempdir().unwrap();
    two_providers(home.path(), &fake, &other, "anthropic");
    let unknown = lango_with_q_key(
        home.path(),
        &["chat", "--session", "a", "--provider", "nope", "hi"],
    )
    .await;
    assert_eq!(unknown.status.code(), Some(3), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains("\"nope\""),
        "{}",
        stderr(&unknown)
    );
    let foreign = lango_with_q_key(
        home.path(),
        &[
            "chat",
            "--session",
            "a",
            "--provider",
            "q",
            "--model",
            "gpt-4o",
            "hi",
        ],
    )
    .await;
    assert_eq!(foreign.status.code(), Some(3), "{}", stderr(&foreign));
    assert_eq!(
        fake.generate_requests().len() + other.generate_requests().len(),
        0
    );
}

/// `lango` with a key for `q` too (Anthropic and Gemini refuse to start without one).
async fn lango_with_q_key(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    support::lango_command(home, args)
        .env("LANGO_Q_API_KEY", support::KEY)
        .output()
        .await
        .expect("lango runs")
}
