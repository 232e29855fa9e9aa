//! A conversation's own provider, model and settings; the model and tokens of each reply;
//! what replies cost.

use super::*;
use lango_core::agent::ModelRef;
use lango_core::conversation::ConversationSettings;

/// An app with two providers on two fake servers: `fake` (the default) and `other`, plus
/// `prices` in the settings.
async fn app_with_two_providers(
    prices: Value,
) -> (tempfile::TempDir, FakeProvider, FakeProvider, App) {
    let home = tempfile::tempdir().unwrap();
    let fake = FakeProvider::start(Script::new([Turn::text(["From the default."])])).await;
    let other = FakeProvider::start(Script::new([Turn::text(["From the other one."])])).await;
    let mut doc = settings_with_provider(&format!("{}/v1", fake.base_url()));
    doc["providers"]["other"] = json!({
        "type": "openai-compatible",
        "baseUrl": format!("{}/v1", other.base_url()),
        "defaultModel": "other-default"
    });
    doc["prices"] = prices;
    std::fs::write(home.path().join("settings.json"), doc.to_string()).unwrap();
    let app = open_app(home.path()).await;
    (home, fake, other, app)
}

fn on(provider: &str, model: Option<&str>) -> ConversationSettings {
    ConversationSettings {
        provider: Some(provider.into()),
        model: model.map(str::to_owned),
        ..ConversationSettings::default()
    }
}

#[tokio::test]
async fn a_conversation_on_another_provider_is_answered_there_and_each_reply_names_its_model() {
    let (_home, fake, other, app) = app_with_two_providers(json!({})).await;
    let view = app
        .set_conversation_settings("travel", on("other", Some("other-large")))
        .await
        .unwrap();
    assert_eq!(view.effective.provider, "other");
    assert_eq!(view.effective.model, "other-large");
    send(&app, "travel", "Where to in May?").await;
    send(&app, "plain", "Hello").await;

    let sent = other.generate_requests();
    assert_eq!(
        sent.len(),
        1,
        "the conversation's turn went to its own provider"
    );
    assert_eq!(sent[0].json()["model"], "other-large");
    assert_eq!(
        fake.generate_requests().len(),
        1,
        "the other conversation kept the default"
    );
    assert_eq!(fake.generate_requests()[0].json()["model"], "fake-model");

    let reply = |key: &'static str| {
        let app = app.clone();
        async move {
            let messages = app.page_messages(key, None, 10).await.unwrap();
            messages
                .last()
                .unwrap()
                .reply
                .clone()
                .expect("the reply names its model")
        }
    };
    let travel = reply("travel").await;
    assert_eq!(
        (travel.provider.as_str(), travel.model.as_str()),
        ("other", "other-large")
    );
    assert!(travel.input_tokens.is_some_and(|t| t > 0), "{travel:?}");
    assert!(travel.output_tokens.is_some_and(|t| t > 0), "{travel:?}");
    let plain = reply("plain").await;
    assert_eq!(
        (plain.provider.as_str(), plain.model.as_str()),
        ("fake", "fake-model")
    );
    // The user's own message names no model.
    let first = app.page_messages("travel", None, 10).await.unwrap();
    assert!(first[0].reply.is_none());
}

#[tokio::test]
async fn another_provider_without_a_model_uses_that_providers_default() {
    let (_home, _fake, other, app) = app_with_two_providers(json!({})).await;
    app.set_conversation_settings("c", on("Other", None))
        .await
        .unwrap();
    send(&app, "c", "hi").await;
    assert_eq!(
        other.generate_requests()[0].json()["model"],
        "other-default"
    );
}

#[tokio::test]
async fn a_conversations_temperature_length_and_system_prompt_reach_its_requests_only() {
    let (_home, fake, _other, app) = app_with_two_providers(json!({})).await;
    let own = ConversationSettings {
        temperature: Some(0.1),
        max_tokens: Some(77),
        system_prompt: Some("Answer like a pirate.".into()),
        ..ConversationSettings::default()
    };
    app.set_conversation_settings("pirate", own).await.unwrap();
    send(&app, "pirate", "hi").await;
    send(&app, "plain", "hi").await;
    let sent = fake.generate_requests();
    let (pirate, plain) = (sent[0].json(), sent[1].json());
    assert!((pirate["temperature"].as_f64().unwrap() - 0.1).abs() < 1e-6);
    assert_eq!(pirate["max_tokens"], 77);
    assert_eq!(pirate["messages"][0]["content"], "Answer like a pirate.");
    assert_eq!(plain["messages"][0]["content"], "You are a test assistant.");
    assert_ne!(plain["max_tokens"], 77);
}

#[tokio::test]
async fn regenerate_with_another_model_is_this_once() {
    let (_home, fake, other, app) = app_with_two_providers(json!({})).await;
    send(&app, "c", "question").await;
    let (_seen, sink) = recorder();
    let choice = ModelRef {
        provider: "other".into(),
        model: "other-large".into(),
    };
    let outcome = app.regenerate("c", Some(choice), sink).await.unwrap();
    assert_eq!(outcome.status, TurnStatus::Complete);
    let messages = app.page_messages("c", None, 10).await.unwrap();
    let texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["question", "From the other one."]);
    assert_eq!(messages[1].reply.as_ref().unwrap().model, "other-large");
    // The conversation itself still uses its own model.
    let view = app.conversation_settings("c").await.unwrap();
    assert_eq!(view.effective.provider, "fake");
    send(&app, "c", "and again").await;
    assert_eq!(fake.generate_requests().len(), 2);
    assert_eq!(other.generate_requests().len(), 1);
}

#[tokio::test]
async fn replies_cost_what_the_prices_in_settings_say_and_the_total_names_what_it_misses() {
    let prices = json!({"other-large": {"input": 1000000.0, "output": 2000000.0}});
    let (_home, _fake, _other, app) = app_with_two_providers(prices).await;
    app.set_conversation_settings("c", on("other", Some("other-large")))
        .await
        .unwrap();
    send(&app, "c", "priced").await;
    app.set_conversation_settings("c", ConversationSettings::default())
        .await
        .unwrap();
    send(&app, "c", "unpriced").await;

    let messages = app.page_messages("c", None, 10).await.unwrap();
    let priced = messages[1].reply.clone().unwrap();
    let (input, output) = (priced.input_tokens.unwrap(), priced.output_tokens.unwrap());
    // $1 per input token and $2 per output token at these prices.
    assert_eq!(priced.cost, Some(input as f64 + 2.0 * output as f64));
    assert_eq!(
        messages[3].reply.as_ref().unwrap().cost,
        None,
        "no price: blank, not zero"
    );

    let usage = app.conversation_settings("c").await.unwrap().usage;
    assert_eq!((usage.replies, usage.unpriced_replies), (2, 1));
    assert_eq!(usage.cost, priced.cost);
    assert!(usage.input_tokens > input);
}

#[tokio::test]
async fn bad_conversation_settings_are_refused_in_plain_words_and_nothing_is_saved() {
    let (_home, _fake, _other, app) = app_with_two_providers(json!({})).await;
    app.set_conversation_settings("c", on("other", None))
        .await
        .unwrap();
    let bad = [
        on("nowhere", None),
        ConversationSettings {
            temperature: Some(3.0),
            ..ConversationSettings::default()
        },
        ConversationSettings {
            max_tokens: Some(0),
            ..ConversationSettings::default()
        },
    ];
    for own in bad {
        let e = app.set_conversation_settings("c", own).await.unwrap_err();
        assert_eq!(e.code, "invalid_conversation_settings");
    }
    let view = app.conversation_settings("c").await.unwrap();
    assert_eq!(view.settings.provider.as_deref(), Some("other"));
}

#[tokio::test]
async fn a_conversations_own_model_survives_a_restart() {
    let (home, _fake, _other, app) = app_with_two_providers(json!({})).await;
    app.set_conversation_settings("c", on("other", Some("other-large")))
        .await
        .unwrap();
    app.shutdown().await;
    drop(app);
    let app = open_app(home.path()).await;
    let view = app.conversation_settings("c").await.unwrap();
    assert_eq!(view.effective.model, "other-large");
    assert_eq!(
        view.providers
            .iter()
            .map(|p| p.id.as_str())
            .collect::<Vec<_>>(),
        ["fake", "other"]
    );
}

#[tokio::test]
async fn the_context_meter_and_inspector_follow_the_conversations_own_model_and_prompt() {
    let (_home, _fake, _other, app) = app_with_two_providers(json!({})).await;
    let default = app.inspect("plain").await.unwrap();
    // An 8k-token model (GPT-3.5's budget) for this conversation only.
    let own = ConversationSettings {
        model: Some("gpt-3.5-turbo".into()),
        system_prompt: Some("Be brief.".into()),
        ..ConversationSettings::default()
    };
    app.set_conversation_settings("small", own).await.unwrap();
    let small = app.inspect("small").await.unwrap();
    assert!(small.history_budget < default.history_budget);
    assert!(
        small.system_prompt.starts_with("Be brief."),
        "{}",
        small.system_prompt
    );
    assert!(default
        .system_prompt
        .starts_with("You are a test assistant."));
}
