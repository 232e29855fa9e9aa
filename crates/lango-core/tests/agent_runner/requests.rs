//! Agent initialization and the requests the runner sends (spec 000 "Agent Initialization").

use super::support::*;

// spec 000, Requirement: ADK Agent Abstraction — Scenario: Agent Initialization
#[tokio::test]
async fn agent_initialization() {
    let model = ScriptedLlm::named("gpt-4o", [say(["hi"])]);
    let settings = AgentSettings {
        max_turns: 7,
        tool_timeout: 3,
        ..AgentSettings::default()
    };
    let seen_tools = Arc::new(Mutex::new(Vec::new()));
    let root = Agent::from_settings("", &settings, model.clone(), vec![echo_tool(seen_tools)]);
    assert_eq!(root.name, "lango-agent");
    assert_eq!(root.model.name(), "gpt-4o");
    assert_eq!(
        root.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["echo"]
    );
    assert_eq!(root.instruction, settings.system_prompt);

    let f = fixture("lango-agent").await;
    let runner = f.runner(root).with_settings(&settings);
    assert_eq!(runner.max_turns(), 7);
    assert_eq!(runner.tool_timeout(), Duration::from_secs(3));
    assert_eq!(
        Runner::new(runner.root().clone(), f.sessions.clone()).max_turns(),
        50
    );
    assert_eq!(
        f.runner(runner.root().clone())
            .with_max_turns(0)
            .max_turns(),
        50
    );

    let (_, error) = run_all(&runner, "hello", false).await;
    assert!(error.is_none(), "{error:?}");
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    let config = &seen[0].request.config;
    assert_eq!(
        config
            .system_instruction
            .as_ref()
            .map(Content::text)
            .as_deref(),
        Some(settings.system_prompt.as_str())
    );
    assert_eq!(config.temperature, Some(0.7));
    assert_eq!(config.max_output_tokens, Some(4096));
    assert_eq!(config.tools.len(), 1);
    assert_eq!(config.tools[0].name, "echo");
    assert_eq!(
        config.tools[0].parameters["required"],
        json!(["text"]),
        "declared with the normalised schema"
    );
    assert_eq!(
        config.tools[0].parameters["additionalProperties"],
        json!(false)
    );
}

#[tokio::test]
async fn no_instruction_means_no_system_instruction_and_no_transfer_tool_without_sub_agents() {
    let model = ScriptedLlm::new([say(["ok"])]);
    let f = fixture("solo").await;
    let runner = f.runner(Agent::new("solo", model.clone()));
    run_all(&runner, "hi", false).await;
    let config = &model.seen()[0].request.config;
    assert!(config.system_instruction.is_none());
    assert!(config.tools.is_empty());
    assert_eq!(config.temperature, None);
}

#[tokio::test]
async fn runner_passes_the_session_key_in_every_model_call() {
    let model = ScriptedLlm::new([
        call("c1", "echo", json!({"text": "a"})),
        call("c2", "echo", json!({"text": "b"})),
        say(["done"]),
    ]);
    let tool_seen = Arc::new(Mutex::new(Vec::new()));
    let f = fixture("lango-agent").await;
    let runner =
        f.runner(Agent::new("lango-agent", model.clone()).with_tool(echo_tool(tool_seen.clone())));
    // The caller's context has no key: the runner sets the turn's session on every call.
    let (_, error) = run_all(&runner, "go", true).await;
    assert!(error.is_none(), "{error:?}");
    let seen = model.seen();
    assert_eq!(seen.len(), 3);
    for call in &seen {
        assert_eq!(call.session_key.as_deref(), Some(KEY));
        assert_eq!(call.agent_name, "lango-agent");
        assert!(call.stream);
    }
    let tool_seen = tool_seen.lock().unwrap();
    assert_eq!(tool_seen.len(), 2);
    assert!(tool_seen
        .iter()
        .all(|c| c.session_key.as_deref() == Some(KEY) && c.agent_name == "lango-agent"));
    assert_eq!(
        tool_seen
            .iter()
            .map(|c| c.call_id.as_str())
            .collect::<Vec<_>>(),
        ["c1", "c2"]
    );
}
