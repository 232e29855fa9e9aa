//! Sub-agents: `transfer_to_agent` switches the active agent; an unknown name fails the turn.

use super::support::*;

#[tokio::test]
async fn transfer_switches_to_the_sub_agent() {
    let root = ScriptedLlm::new([transfer("planner")]);
    let planner = ScriptedLlm::new([say(["Here is the plan."])]);
    let researcher = ScriptedLlm::new([]);
    let f = fixture("orchestrator").await;
    let runner = f.runner(tree(root.clone(), planner.clone(), researcher.clone()));
    let (events, error) = run_all(&runner, "plan my week", false).await;
    assert!(error.is_none(), "{error:?}");

    // The root was offered the transfer tool listing its sub-agents.
    let root_tools = &root.seen()[0].request.config.tools;
    let spec = root_tools
        .iter()
        .find(|t| t.name == TRANSFER_TO_AGENT)
        .expect("transfer tool declared");
    assert!(spec.description.contains("planner, researcher"));
    assert_eq!(spec.parameters["required"], json!(["agent_name"]));

    // The transfer was answered and marked, then the planner ran with its own instruction.
    assert_eq!(
        events[1].actions.transfer_to_agent.as_deref(),
        Some("planner")
    );
    let seen = planner.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].agent_name, "planner");
    assert_eq!(seen[0].session_key.as_deref(), Some(KEY));
    assert_eq!(
        seen[0]
            .request
            .config
            .system_instruction
            .as_ref()
            .unwrap()
            .text(),
        "Plan."
    );
    assert_eq!(last_user_text(&seen[0].request), "plan my week");
    assert_eq!(events.last().unwrap().author, "planner");
    assert_eq!(researcher.calls(), 0);

    let rows = f.rows().await;
    assert_no_dangling_calls(&rows);
    assert_eq!(rows.last().unwrap().author, "planner");
}

#[tokio::test]
async fn transfer_to_a_missing_agent_fails_with_failed_to_find_agent() {
    let root = ScriptedLlm::new([transfer("browser_agent")]);
    let f = fixture("orchestrator").await;
    let runner = f.runner(tree(root, ScriptedLlm::new([]), ScriptedLlm::new([])));
    let (_, error) = run_all(&runner, "browse", false).await;
    let error = error.expect("the turn fails");
    assert!(matches!(&error, AgentError::AgentNotFound(name) if name == "browser_agent"));
    assert_eq!(error.to_string(), "failed to find agent: browser_agent");
}
