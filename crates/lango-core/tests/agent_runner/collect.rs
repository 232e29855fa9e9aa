//! `run_and_collect`: text collection (spec 003 "Agent text collection avoids duplication",
//! acceptance 19).

use super::support::*;

async fn collect(steps: Vec<Step>, stream: bool) -> (String, Result<(), AgentError>) {
    let model = ScriptedLlm::new(steps);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model).with_tool(echo_tool(Arc::default())));
    run_and_collect(&runner, ctx(), KEY, "hi", stream).await
}

// spec 003, Requirement: Agent text collection avoids duplication — Scenario: Streaming mode collects from partial events only
#[tokio::test]
async fn streaming_mode_collects_from_partial_events_only() {
    let (text, result) = collect(vec![say(["Hello ", "world"])], true).await;
    assert!(result.is_ok());
    assert_eq!(text, "Hello world");
}

// spec 003, Requirement: Agent text collection avoids duplication — Scenario: Non-streaming mode collects from final event
#[tokio::test]
async fn non_streaming_mode_collects_from_final_event() {
    let (text, result) = collect(vec![say(["Complete ", "response"])], false).await;
    assert!(result.is_ok());
    assert_eq!(text, "Complete response");
}

#[tokio::test]
async fn acceptance_19_text_collection() {
    assert_eq!(
        collect(vec![say(["Hello ", "world"])], true).await.0,
        "Hello world"
    );
    assert_eq!(
        collect(vec![say(["A", "B", "C", "D"])], true).await.0,
        "ABCD"
    );
    let final_only = Step {
        final_only: true,
        ..say(["Complete response"])
    };
    assert_eq!(collect(vec![final_only], true).await.0, "Complete response");
}

#[tokio::test]
async fn thought_text_is_never_collected() {
    let step = Step {
        thought: Some("hmm, secret reasoning".into()),
        ..say(["Answer"])
    };
    assert_eq!(collect(vec![step.clone()], true).await.0, "Answer");
    assert_eq!(collect(vec![step], false).await.0, "Answer");
}

// [FIX] saw_partial resets after each non-partial model response: a later non-streamed
// step's text is kept.
#[tokio::test]
async fn later_non_streamed_step_is_not_lost() {
    let steps = vec![
        say(["Checking. "]).with_calls(call("c1", "echo", json!({"text": "x"}))),
        Step {
            final_only: true,
            ..say(["Done."])
        },
    ];
    let (text, result) = collect(steps, true).await;
    assert!(result.is_ok());
    assert_eq!(text, "Checking. Done.");
}

#[tokio::test]
async fn multi_step_text_is_collected_once_in_both_modes() {
    let steps = || {
        vec![
            say(["Step one. "]).with_calls(call("c1", "echo", json!({"text": "x"}))),
            say(["Step ", "two."]),
        ]
    };
    assert_eq!(collect(steps(), true).await.0, "Step one. Step two.");
    assert_eq!(collect(steps(), false).await.0, "Step one. Step two.");
}
