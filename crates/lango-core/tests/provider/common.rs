//! What every provider client does the same way, asserted once per wire format: each recorded
//! fixture has a test, a client needs an http(s) base URL (and a model, where the format names
//! one in every request), an empty base URL means
//! the service's own, the key never prints and is not sent when there is none, an unset
//! temperature is left out and a zero one is sent, an empty HTTP 200 body is an interruption,
//! never a complete (empty) reply, and the model list is read (or a wrong key reported) in
//! every format.

use std::collections::BTreeSet;

use lango_core::provider::{GenerateParams, ProviderConfig, ProviderError};
use lango_core::secrets::ApiKey;
use lango_testkit::{FakeProvider, Reply, Script, TestServer, Turn};
use serde_json::json;

use super::harness::{collect, fixture_files, no_retries, user_says, Wire, WIRES};

#[test]
fn every_fixture_file_has_a_test() {
    for wire in WIRES {
        let (folders, covered) = wire.fixtures();
        let on_disk: BTreeSet<String> = folders.iter().flat_map(|f| fixture_files(f)).collect();
        let covered: BTreeSet<String> = covered.iter().map(|s| s.to_string()).collect();
        let untested: Vec<_> = on_disk.difference(&covered).collect();
        let missing: Vec<_> = covered.difference(&on_disk).collect();
        assert!(
            untested.is_empty(),
            "{wire:?}: fixtures without a test: {untested:?}"
        );
        assert!(
            missing.is_empty(),
            "{wire:?}: tests of fixtures that no longer exist: {missing:?}"
        );
    }
}

/// Anthropic and Gemini name the model in every request; an OpenAI-compatible or Ollama server
/// is sent the request as it is (a local server may serve one model whatever is asked).
#[tokio::test]
async fn without_any_model_the_anthropic_and_gemini_streams_are_a_config_error() {
    for wire in [Wire::Anthropic, Wire::Gemini] {
        let provider = wire.build(ProviderConfig::new("p", wire.base("http://127.0.0.1:9")));
        let out = collect(provider.as_ref(), user_says("hi")).await;
        assert!(
            matches!(out.error(), ProviderError::Config { .. }),
            "{wire:?}: {:?}",
            out.terminal
        );
    }
}

#[test]
fn a_base_url_that_is_not_http_is_a_config_error() {
    for wire in WIRES {
        for base in ["localhost:1234/v1", "ftp://x"] {
            let result = wire.try_build(ProviderConfig::new("p", base));
            assert!(
                matches!(result, Err(ProviderError::Config { .. })),
                "{wire:?} {base}: {result:?}"
            );
        }
    }
}

#[test]
fn an_empty_base_url_means_the_services_own_and_the_key_never_prints() {
    let defaults = [
        (Wire::Anthropic, "https://api.anthropic.com"),
        (
            Wire::Gemini,
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        (Wire::Ollama, "http://localhost:11434"),
    ];
    for (wire, url) in defaults {
        let provider = wire.build(ProviderConfig::new("p", ""));
        assert!(
            format!("{provider:?}").contains(url),
            "{wire:?}: {provider:?}"
        );
    }
    for wire in WIRES {
        let key = "sk-never-printed-7d1e";
        let provider = wire.build(ProviderConfig::new("p", "http://x").with_key(ApiKey::new(key)));
        assert!(
            !format!("{provider:?}").contains(key),
            "{wire:?}: the key never prints"
        );
    }
}

/// The one request `params` sent to the fake, the client built from `config(base)`.
async fn sent(
    wire: Wire,
    params: GenerateParams,
    config: impl FnOnce(String) -> ProviderConfig,
) -> lango_testkit::RecordedRequest {
    let fake = FakeProvider::start(Script::new([Turn::text(["Fine."])])).await;
    let provider = wire.build(config(wire.base(&fake.base_url())).with_http(no_retries()));
    let out = collect(provider.as_ref(), params).await;
    assert_eq!(out.text, "Fine.", "{wire:?}");
    let mut requests = fake.generate_requests();
    assert_eq!(requests.len(), 1, "{wire:?}");
    requests.remove(0)
}

fn with_key(base: String) -> ProviderConfig {
    ProviderConfig::new("p", base)
        .with_key(ApiKey::new("sk-test-key"))
        .with_default_model("fake-model")
}

#[tokio::test]
async fn temperature_is_omitted_when_unset_and_sent_when_zero() {
    // Where each format puts the temperature, and the object holding the options (when the
    // format has one, it is left out when nothing is set).
    let places: [(Wire, Option<&str>, &str); 4] = [
        (Wire::OpenAi, None, "temperature"),
        (Wire::Anthropic, None, "temperature"),
        (Wire::Gemini, Some("generationConfig"), "temperature"),
        (Wire::Ollama, Some("options"), "temperature"),
    ];
    for (wire, options, field) in places {
        let body = sent(wire, user_says("hi"), with_key).await.json();
        let holder = options.map_or(&body, |o| &body[o]);
        assert!(holder.get(field).is_none(), "{wire:?}: {body}");
        if let Some(options) = options {
            assert!(
                body.get(options).is_none(),
                "{wire:?}: no {options}: {body}"
            );
        }

        let zero = GenerateParams {
            temperature: Some(0.0),
            ..user_says("hi")
        };
        let body = sent(wire, zero, with_key).await.json();
        match options {
            Some(options) => assert_eq!(body[options], json!({field: 0.0}), "{wire:?}"),
            None => assert_eq!(body[field], json!(0.0), "{wire:?}"),
        }
    }
}

#[tokio::test]
async fn without_a_key_no_key_is_sent() {
    for wire in WIRES {
        let request = sent(wire, user_says("hi"), |base| ProviderConfig {
            api_key: None,
            ..with_key(base)
        })
        .await;
        for header in ["authorization", "x-api-key", "x-goog-api-key"] {
            assert_eq!(request.header(header), None, "{wire:?}: {header}");
        }
        assert!(!request.path.contains("key="), "{wire:?}: {}", request.path);
    }
}

#[tokio::test]
async fn an_empty_http_200_body_is_an_interruption_not_an_empty_reply() {
    for wire in WIRES {
        let content_type = match wire {
            Wire::Ollama => "application/x-ndjson",
            _ => "text/event-stream",
        };
        let server = TestServer::start(move |_, _| Reply::full(200, content_type, "")).await;
        let provider = wire.client(&server.base_url(), no_retries());
        let out = collect(provider.as_ref(), user_says("hi")).await;
        assert_eq!(out.text, "", "{wire:?}");
        assert!(
            matches!(out.error(), ProviderError::Interrupted { .. }),
            "{wire:?}: {:?}",
            out.terminal
        );
        if matches!(wire, Wire::OpenAi | Wire::Ollama) {
            out.assert_interrupted("empty response");
        }
    }
}

#[tokio::test]
async fn list_models_reads_the_services_list_in_every_format() {
    let fake =
        FakeProvider::start(Script::new([Turn::text(["-"])]).with_models(["m-one", "m-two"])).await;
    for wire in WIRES {
        let models = wire
            .client(&fake.base_url(), no_retries())
            .list_models()
            .await
            .unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["m-one", "m-two"], "{wire:?}");
    }
}

#[tokio::test]
async fn a_wrong_key_on_list_models_is_unauthorized_with_the_services_message() {
    let fake =
        FakeProvider::start(Script::new([Turn::text(["-"])]).with_required_key("sk-right")).await;
    for wire in WIRES {
        let error = wire
            .client(&fake.base_url(), no_retries())
            .list_models()
            .await
            .expect_err("a wrong key");
        assert!(
            matches!(&error, ProviderError::Unauthorized { message } if message.contains("Incorrect API key")),
            "{wire:?}: {error:?}"
        );
    }
}
