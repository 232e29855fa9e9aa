//! Token counting (REFERENCE §3.2, acceptance 44) and model-family budgets (spec 004).

use lango_core::tokens::{
    model_token_budget, FixedCostCounter, MessageParts, TiktokenCounter, TokenCounter,
    ToolCallParts, DEFAULT_TOKEN_BUDGET,
};

// spec 004 — Scenario: Claude models
#[test]
fn claude_models() {
    assert_eq!(model_token_budget("claude-sonnet-4-5"), 100_000);
    assert_eq!(model_token_budget("Claude-3-Opus"), 100_000);
}

// spec 004 — Scenario: Gemini models
#[test]
fn gemini_models() {
    assert_eq!(model_token_budget("gemini-2.0-flash"), 200_000);
    assert_eq!(model_token_budget("models/GEMINI-1.5-pro"), 200_000);
}

// spec 004 — Scenario: GPT-4o and GPT-4-turbo models
#[test]
fn gpt_4o_and_gpt_4_turbo_models() {
    assert_eq!(model_token_budget("GPT-4o-mini"), 64_000);
    assert_eq!(model_token_budget("gpt-4o"), 64_000);
    assert_eq!(model_token_budget("gpt-4-turbo-preview"), 64_000);
}

// spec 004 — Scenario: GPT-4 base models
#[test]
fn gpt_4_base_models() {
    assert_eq!(model_token_budget("gpt-4"), 32_000);
    assert_eq!(model_token_budget("gpt-4-0613"), 32_000);
}

// spec 004 — Scenario: GPT-3.5 models
#[test]
fn gpt_3_5_models() {
    assert_eq!(model_token_budget("gpt-3.5-turbo"), 8_000);
}

// spec 004 — Scenario: Unknown model fallback
#[test]
fn unknown_model_fallback() {
    assert_eq!(DEFAULT_TOKEN_BUDGET, 32_000);
    assert_eq!(model_token_budget("llama3.1"), DEFAULT_TOKEN_BUDGET);
    assert_eq!(model_token_budget(""), DEFAULT_TOKEN_BUDGET);
}

// REFERENCE acceptance 44: exact o200k counts.
#[test]
fn o200k_counts_texts_and_messages_as_the_reference_does() {
    let c = TiktokenCounter;
    assert_eq!(c.count(""), 0);
    assert_eq!(c.count("Hello world"), 2);
    assert_eq!(
        c.message_cost(&MessageParts {
            content: "Hello world",
            tool_calls: vec![]
        }),
        6
    );
    let with_call = MessageParts {
        content: "result",
        tool_calls: vec![ToolCallParts {
            id: "tc01",
            name: "search",
            input: r#"{"query":"test"}"#,
            output: r#"{"results":[]}"#,
        }],
    };
    assert_eq!(c.message_cost(&with_call), 17);
    let two: usize = ["Hello world", "Hi there!!"]
        .iter()
        .map(|t| {
            c.message_cost(&MessageParts {
                content: t,
                tool_calls: vec![],
            })
        })
        .sum();
    assert_eq!(two, 13);
}

#[test]
fn a_fixed_cost_counter_charges_the_same_for_every_message() {
    let c = FixedCostCounter { cost: 14 };
    assert_eq!(
        c.message_cost(&MessageParts {
            content: "a much longer message than fourteen tokens",
            tool_calls: vec![]
        }),
        14
    );
}
