//! `run_and_collect`: the hallucinated sub-agent retry (spec 003, acceptance 20–22).

use super::support::*;

#[test]
fn acceptance_20_agent_name_extraction() {
    assert_eq!(
        extract_missing_agent("agent error: failed to find agent: browser_agent").as_deref(),
        Some("browser_agent")
    );
    assert_eq!(
        extract_missing_agent("outer: failed to find agent: exec").as_deref(),
        Some("exec")
    );
    assert_eq!(
        extract_missing_agent("failed to find agent: a_b then more").as_deref(),
        Some("a_b")
    );
    assert_eq!(extract_missing_agent("connection refused"), None);
    assert_eq!(extract_missing_agent("failed to find agent: "), None);
    assert_eq!(extract_missing_agent("failed to find agent:  spaced"), None);
    assert_eq!(
        extract_missing_agent("failed to find agent: \nx failed to find agent: second").as_deref(),
        Some("second")
    );
}

#[test]
fn correction_message_is_exact_and_escapes_the_name() {
    assert_eq!(
        correction_message("browser_agent", &["planner", "researcher"]),
        CORRECTION_21
    );
    assert_eq!(
        correction_message(r#"we"ird\name"#, &["a"]),
        r#"[System: Agent "we\"ird\\name" does not exist. Valid agents: a. Please retry using one of the valid agent names listed above.]"#
    );
}

struct Retry {
    f: Fixture,
    root: Arc<ScriptedLlm>,
    planner: Arc<ScriptedLlm>,
    runner: Runner,
}

async fn retry_fixture(root_steps: Vec<Step>, planner_steps: Vec<Step>) -> Retry {
    let f = fixture("orchestrator").await;
    let root = ScriptedLlm::new(root_steps);
    let planner = ScriptedLlm::new(planner_steps);
    let runner = f.runner(tree(root.clone(), planner.clone(), ScriptedLlm::new([])));
    Retry {
        f,
        root,
        planner,
        runner,
    }
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Hallucinated agent name triggers retry
#[tokio::test]
async fn hallucinated_agent_name_triggers_retry() {
    let r = retry_fixture(
        vec![transfer("browser_agent"), transfer("planner")],
        vec![say(["planned"])],
    )
    .await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "open the browser", false).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(text, "planned");
    let seen = r.root.seen();
    assert_eq!(seen.len(), 2, "exactly one retry");
    assert_eq!(last_user_text(&seen[1].request), CORRECTION_21);
    assert_eq!(r.planner.calls(), 1);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Retry succeeds
#[tokio::test]
async fn retry_succeeds() {
    let r = retry_fixture(vec![transfer("browser_agent"), say(["done"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert!(result.is_ok());
    assert_eq!(text, "done");
}

// Acceptance 21: the retry's input is exactly the correction, stored as a user row; the
// failed run's transfer call is closed before it.
#[tokio::test]
async fn acceptance_21_correction_is_a_persisted_user_turn() {
    let r = retry_fixture(vec![transfer("browser_agent"), say(["done"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    assert!(result.is_ok());
    assert_eq!(text, "done");
    let rows = r.f.rows().await;
    let summary: Vec<(&str, &str)> = rows
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(summary[0], ("user", "browse"));
    assert_eq!(summary[1].0, "assistant");
    assert_eq!(
        summary[2],
        (
            "tool",
            r#"{"error":"tool call was interrupted and did not complete"}"#
        )
    );
    assert_eq!(summary[3], ("user", CORRECTION_21));
    assert_eq!(summary[4], ("assistant", "done"));
    assert_eq!(rows.len(), 5);
    assert_no_dangling_calls(&rows);
    // The retry's model call saw the closed call and the correction, in that order.
    let contents = &r.root.seen()[1].request.contents;
    assert!(contents.iter().any(|c| c.parts.iter().any(|p| p
        .function_response
        .as_ref()
        .is_some_and(|fr| fr.id == "call_transfer"))));
    assert_eq!(contents.last().unwrap().text(), CORRECTION_21);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Retry also fails
#[tokio::test]
async fn retry_also_fails() {
    let r = retry_fixture(
        vec![transfer("browser_agent"), transfer("web_agent")],
        vec![],
    )
    .await;
    let (_, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    let error = result.expect_err("the retry failed");
    assert_eq!(
        error.to_string(),
        "failed to find agent: web_agent",
        "the retry's error is returned"
    );
    assert_eq!(r.root.calls(), 2, "no second retry");
}

// Acceptance 22: run 1 partial "a", run 2 partial "abc" then failure → run 2's error, "abc",
// 2 runs, dangling calls closed.
#[tokio::test]
async fn acceptance_22_retry_fails_keeps_the_longer_text() {
    let run1 = say(["a"]).with_calls(transfer("browser_agent"));
    let run2 = Step {
        chunks: vec!["ab".into(), "c".into()],
        error: Some("stream broke".into()),
        ..Step::default()
    };
    let r = retry_fixture(vec![run1, run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert_eq!(result.expect_err("fails").to_string(), "stream broke");
    assert_eq!(text, "abc");
    assert_eq!(r.root.calls(), 2);
    let rows = r.f.rows().await;
    assert_eq!(
        rows.iter().filter(|m| m.role == "user").count(),
        2,
        "2 runs: the message and the correction"
    );
    assert_no_dangling_calls(&rows);

    // The longer text wins whichever run produced it.
    let run1 = say(["a long first answer"]).with_calls(transfer("browser_agent"));
    let run2 = Step {
        chunks: vec!["x".into()],
        error: Some("stream broke".into()),
        ..Step::default()
    };
    let r = retry_fixture(vec![run1, run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", true).await;
    assert!(result.is_err());
    assert_eq!(text, "a long first answer");
}

#[tokio::test]
async fn retry_failing_with_dangling_calls_closes_them() {
    let run2 = say(["trying"]).with_calls(transfer("ghost"));
    let r = retry_fixture(vec![transfer("browser_agent"), run2], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "browse", false).await;
    assert!(result.is_err());
    assert_eq!(text, "trying");
    let rows = r.f.rows().await;
    assert_eq!(rows.iter().filter(|m| m.role == "tool").count(), 2);
    assert_no_dangling_calls(&rows);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: Non-hallucination error is not retried
#[tokio::test]
async fn non_hallucination_error_is_not_retried() {
    let r = retry_fixture(vec![fail("connection refused"), say(["never"])], vec![]).await;
    let (text, result) = run_and_collect(&r.runner, ctx(), KEY, "hi", false).await;
    assert_eq!(result.expect_err("fails").to_string(), "connection refused");
    assert_eq!(text, "");
    assert_eq!(r.root.calls(), 1);
    assert_eq!(
        r.f.rows().await.iter().filter(|m| m.role == "user").count(),
        1
    );
}

#[tokio::test]
async fn max_turns_error_is_not_retried() {
    let model =
        ScriptedLlm::forever(say(["again "]).with_calls(call("c", "echo", json!({"text": "x"}))));
    let f = fixture("lango-agent").await;
    let runner = f
        .runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(Arc::default())))
        .with_max_turns(2);
    let (text, result) = run_and_collect(&runner, ctx(), KEY, "loop", false).await;
    assert!(matches!(result, Err(AgentError::MaxTurns(2))));
    assert_eq!(text, "again again ");
    assert_eq!(model.calls(), 2);
    assert_no_dangling_calls(&f.rows().await);
}

// A failed run that left a call without response (cancelled mid-tool) is cleaned up (§2.6).
#[tokio::test]
async fn failed_run_closes_its_dangling_calls() {
    let hang = FnTool::arc("hang", json!({}), |_, _| Box::pin(std::future::pending()));
    let model = ScriptedLlm::new([say(["working "]).with_calls(call("c-open", "hang", json!({})))]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()).with_tool(hang));
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let (text, result) = run_and_collect(&runner, ctx, KEY, "go", true).await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    assert_eq!(text, "working ");
    assert_eq!(model.calls(), 1);
    let rows = f.rows().await;
    let closing = rows.last().unwrap();
    assert_eq!(closing.role, "tool");
    assert_eq!(closing.author, "lango-agent");
    assert_eq!(closing.tool_calls[0].id, "c-open");
    assert_eq!(
        closing.content,
        r#"{"error":"tool call was interrupted and did not complete"}"#
    );
    assert_no_dangling_calls(&rows);
}

// spec 003, Requirement: Agent hallucination retry in RunAndCollect — Scenario: No sub-agents means no retry
#[tokio::test]
async fn no_sub_agents_means_no_retry() {
    let model = ScriptedLlm::new([transfer("browser_agent"), say(["never"])]);
    let f = fixture("lango-agent").await;
    let runner = f.runner(Agent::new("lango-agent", model.clone()));
    let (_, result) = run_and_collect(&runner, ctx(), KEY, "browse", false).await;
    assert_eq!(
        result.expect_err("fails").to_string(),
        "failed to find agent: browser_agent"
    );
    assert_eq!(model.calls(), 1);
    let rows = f.rows().await;
    assert_eq!(rows.iter().filter(|m| m.role == "user").count(), 1);
    assert_no_dangling_calls(&rows);
}
