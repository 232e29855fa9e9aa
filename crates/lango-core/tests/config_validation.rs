//! Validation messages: every problem at once, by dotted path (REFERENCE §4, acceptance 62).

use lango_core::config::{self, ConfigError, Problem};
use serde_json::json;

fn problems(value: serde_json::Value) -> Vec<Problem> {
    match config::validate_value(&value) {
        Ok((s, _)) => panic!("expected problems, got valid settings {s:?}"),
        Err(problems) => problems,
    }
}

fn messages(value: serde_json::Value) -> Vec<String> {
    problems(value).into_iter().map(|p| p.message).collect()
}

#[test]
fn negative_threshold_reports_the_exact_message() {
    let p = problems(json!({ "observationalMemory": { "messageTokenThreshold": -5 } }));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].field, "observationalMemory.messageTokenThreshold");
    assert_eq!(
        p[0].message,
        "observationalMemory.messageTokenThreshold must be > 0, got -5"
    );
}

#[test]
fn negative_in_context_limit_is_an_error() {
    let m = messages(json!({ "observationalMemory": { "maxObservationsInContext": -1 } }));
    assert_eq!(m.len(), 1);
    assert!(
        m[0].starts_with("observationalMemory.maxObservationsInContext must be >= 0"),
        "{m:?}"
    );
}

#[test]
fn several_problems_are_reported_at_once() {
    let p = problems(json!({
        "agent": { "temperature": "hot", "maxTokens": 0, "colour": 1 },
        "observationalMemory": { "memoryTokenBudget": -1, "enabled": "yes" },
        "appearance": { "theme": "neon" },
        "extra": true
    }));
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    for expected in [
        "agent.temperature",
        "agent.maxTokens",
        "agent.colour",
        "observationalMemory.memoryTokenBudget",
        "observationalMemory.enabled",
        "appearance.theme",
        "extra",
    ] {
        assert!(
            fields.contains(&expected),
            "missing {expected} in {fields:?}"
        );
    }
    assert_eq!(p.len(), 7, "{p:?}");
}

#[test]
fn unknown_key_is_reported_with_its_full_path() {
    let m = messages(json!({ "observationalMemory": { "messageTokenTreshold": 10 } }));
    assert_eq!(m.len(), 1);
    assert!(
        m[0].starts_with("observationalMemory.messageTokenTreshold is not a known setting"),
        "{m:?}"
    );
    // A one-letter typo gets a hint.
    assert!(
        m[0].contains("did you mean messageTokenThreshold?"),
        "{m:?}"
    );
}

#[test]
fn unknown_top_level_section_is_reported() {
    assert_eq!(
        messages(json!({ "agnet": {} }))[0],
        "agnet is not a known setting (did you mean agent?)"
    );
}

#[test]
fn wrong_type_names_the_field_and_the_value() {
    assert_eq!(
        messages(json!({ "agent": { "temperature": "hot" } })),
        vec![r#"agent.temperature must be a number, got "hot""#.to_owned()]
    );
    assert_eq!(
        messages(json!({ "agent": { "maxTokens": 1.5 } })),
        vec!["agent.maxTokens must be a whole number, got 1.5".to_owned()]
    );
    assert_eq!(
        messages(json!({ "agent": [] })),
        vec!["agent must be an object, got []".to_owned()]
    );
}

#[test]
fn temperature_outside_zero_to_two_is_rejected() {
    assert_eq!(
        messages(json!({ "agent": { "temperature": 2.5 } })),
        vec!["agent.temperature must be between 0 and 2, got 2.5".to_owned()]
    );
}

#[test]
fn max_reply_bytes_defaults_to_4_mib_and_must_be_positive() {
    let (settings, _) = config::validate_value(&json!({})).unwrap();
    assert_eq!(settings.agent.max_reply_bytes, 4 * 1024 * 1024);
    let (settings, _) =
        config::validate_value(&json!({ "agent": { "maxReplyBytes": 65536 } })).unwrap();
    assert_eq!(settings.agent.max_reply_bytes, 65536);
    assert_eq!(
        messages(json!({ "agent": { "maxReplyBytes": 0 } })),
        vec!["agent.maxReplyBytes must be > 0, got 0".to_owned()]
    );
}

#[test]
fn invalid_json_reports_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, "{\n  \"agent\": {\n    \"model\": \"x\",\n  }\n}\n").unwrap();
    match config::load_from(&path) {
        Err(ConfigError::Parse { line, column, .. }) => {
            assert_eq!((line, column), (4, 3));
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    let text = config::load_from(&path).unwrap_err().to_string();
    assert!(text.contains("line 4, column 3"), "{text}");
}

#[test]
fn invalid_error_display_lists_one_problem_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let doc = json!({ "agent": { "maxTokens": -1, "temperature": 9 } });
    std::fs::write(&path, doc.to_string()).unwrap();
    let err = config::load_from(&path).unwrap_err();
    let ConfigError::Invalid { problems, .. } = &err else {
        panic!("expected Invalid, got {err:?}");
    };
    assert_eq!(problems.len(), 2);
    let text = err.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for expected in [
        "agent.maxTokens must be > 0, got -1",
        "agent.temperature must be between 0 and 2, got 9",
    ] {
        assert!(lines[1..].iter().any(|l| l.ends_with(expected)), "{text}");
    }
}

#[test]
fn budget_not_above_threshold_is_a_warning_not_an_error() {
    let (settings, warnings) = config::validate_value(&json!({
        "observationalMemory": { "maxMessageTokenBudget": 1000, "messageTokenThreshold": 1000 }
    }))
    .unwrap();
    assert_eq!(settings.observational_memory.max_message_token_budget, 1000);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("maxMessageTokenBudget"),
        "{warnings:?}"
    );

    let (_, none) = config::validate_value(&json!({})).unwrap();
    assert!(none.is_empty(), "defaults must not warn: {none:?}");
}

#[test]
fn null_means_not_set() {
    let (s, _) =
        config::validate_value(&json!({ "agent": { "temperature": null }, "secrets": null }))
            .unwrap();
    assert_eq!(s.agent.temperature, 0.7);
}

#[test]
fn non_object_root_is_rejected() {
    assert_eq!(
        messages(json!([1, 2])),
        vec!["the settings file must be an object, got [1,2]".to_owned()]
    );
}

#[test]
fn sub_agents_need_unique_names_and_only_name_and_instruction() {
    let ok = lango_core::config::validate_value(&serde_json::json!({"agent": {"subAgents": [
        {"name": "planner", "instruction": "Plan."}, {"name": "researcher"}
    ]}}))
    .unwrap()
    .0;
    let names: Vec<&str> = ok
        .agent
        .sub_agents
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["planner", "researcher"]);

    let problems = lango_core::config::validate_value(&serde_json::json!({"agent": {"subAgents": [
        {"name": "a"}, {"name": "a"}, {"name": "has space"}, {"name": "b", "model": "x"}, 7
    ]}}))
    .unwrap_err();
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "agent.subAgents[1].name",
            "agent.subAgents[2].name",
            "agent.subAgents[3].model",
            "agent.subAgents[4]"
        ]
    );
}

#[test]
fn backups_keep_at_least_one_daily_copy_and_daily_is_a_switch() {
    let p = problems(json!({ "backups": { "keep": 0, "daily": "yes" } }));
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    assert!(fields.contains(&"backups.keep"), "{p:?}");
    assert!(fields.contains(&"backups.daily"), "{p:?}");
    let keep = p.iter().find(|p| p.field == "backups.keep").expect("keep");
    assert_eq!(
        keep.message,
        "backups.keep must be a whole number from 1 to 366, got 0"
    );

    let (settings, _) =
        config::validate_value(&json!({ "backups": { "keep": 3, "daily": false } }))
            .expect("valid");
    assert_eq!(settings.backups.keep, 3);
    assert!(!settings.backups.daily);
    let (defaults, _) = config::validate_value(&json!({})).expect("valid");
    assert_eq!((defaults.backups.daily, defaults.backups.keep), (true, 7));
}

#[test]
fn the_update_feed_is_off_by_default_and_must_be_https_or_this_machine() {
    let (defaults, _) = config::validate_value(&json!({})).unwrap();
    assert_eq!(defaults.updates.feed(), None, "no feed, no network");

    let p = problems(json!({ "updates": { "feedUrl": "http://example.com/latest.json" } }));
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].field, "updates.feedUrl");
    assert!(p[0].message.contains("https://"), "{}", p[0].message);
    let p =
        problems(json!({ "updates": { "feedUrl": "javascript:alert(1)", "checkDaily": true } }));
    let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["updates.checkDaily", "updates.feedUrl"], "{p:?}");

    for ok in [
        "https://example.com/lango/latest.json",
        "http://127.0.0.1:8000/feed.json",
        "",
    ] {
        let (s, _) = config::validate_value(&json!({ "updates": { "feedUrl": ok } })).unwrap();
        assert_eq!(s.updates.feed_url, ok);
    }
}
