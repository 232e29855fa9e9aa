//! The request a model call carries: the session's events, the active agent's instruction
//! and tools (with `transfer_to_agent` when it can hand over), the conversation's own model
//! and settings over the agent's, and attached files filled in. Also who a
//! `transfer_to_agent` call names. Nothing here is written.

use serde_json::{json, Map, Value};

use super::{Agent, Runner, TRANSFER_TO_AGENT};
use crate::agent::context::TurnSettings;
use crate::agent::error::AgentError;
use crate::agent::tools::{normalize_schema, ToolAdapter};
use crate::agent::traits::Session;
use crate::agent::types::{roles, Content, FunctionCall, GenerateConfig, LlmRequest, Part};
use crate::provider::ToolSpec;

impl Runner {
    /// The request the root agent's next model call in this session would carry (history
    /// within the budget, instruction, tools) — before any memory assembly. For the
    /// "what the model sees" inspector; nothing is written.
    pub async fn next_request(
        &self,
        session_key: &str,
        turn: Option<&TurnSettings>,
    ) -> Result<LlmRequest, AgentError> {
        let budget = turn.and_then(|t| t.history_budget);
        let session = self.sessions.get_with_budget(session_key, budget).await?;
        let tools = self.adapters(&self.root);
        let learned = self.learned_budget(turn);
        self.resolve(
            self.request(&self.root, session.as_ref(), &tools, turn, learned),
            turn,
        )
        .await
    }

    /// The request with its attached files filled in (their text, or their images when the
    /// model takes images; a description otherwise).
    pub(super) async fn resolve(
        &self,
        mut request: LlmRequest,
        turn: Option<&TurnSettings>,
    ) -> Result<LlmRequest, AgentError> {
        let images = turn.is_none_or(|t| t.images);
        self.sessions
            .resolve_attachments(&mut request.contents, images)
            .await?;
        Ok(request)
    }

    /// The agent's current tools, each with its timeout: an MCP tool's own (`timeout` of its
    /// server) when it has one, else `agent.toolTimeout`.
    pub(super) fn adapters(&self, agent: &Agent) -> Vec<ToolAdapter> {
        agent
            .current_tools()
            .into_iter()
            .map(|t| {
                let timeout = t.timeout().unwrap_or(self.tool_timeout);
                ToolAdapter::new(t, timeout)
            })
            .collect()
    }

    /// The request for the active agent: the session's events, its instruction and tools,
    /// with the conversation's own model and settings (`turn`) over the agent's. `history`
    /// narrows the session's history budget (a model whose context held less: fit.rs).
    pub(super) fn request(
        &self,
        agent: &Agent,
        session: &dyn Session,
        tools: &[ToolAdapter],
        turn: Option<&TurnSettings>,
        history: Option<usize>,
    ) -> LlmRequest {
        let events = match history {
            Some(budget) => session.events_within(budget).0,
            None => session.events(),
        };
        let contents = events.all().into_iter().filter_map(|e| e.content).collect();
        let specs = self.tool_specs(agent, tools);
        let instruction = match turn.and_then(|t| t.system_prompt.as_ref()) {
            Some(own) if agent.name == self.root.name => own,
            _ => &agent.instruction,
        };
        LlmRequest {
            model: turn.map(|t| t.model.clone()).unwrap_or_default(),
            contents,
            config: GenerateConfig {
                system_instruction: (!instruction.is_empty())
                    .then(|| Content::new(roles::SYSTEM, vec![Part::text(instruction.clone())])),
                temperature: turn.and_then(|t| t.temperature).or(agent.temperature),
                max_output_tokens: turn
                    .and_then(|t| t.max_output_tokens)
                    .or(agent.max_output_tokens),
                tools: specs,
            },
        }
    }

    /// The tool definitions the root agent's next model call carries (what they cost in
    /// every request is shown beside the history).
    pub fn next_tool_specs(&self) -> Vec<ToolSpec> {
        self.tool_specs(&self.root, &self.adapters(&self.root))
    }

    /// `tools` as definitions, with `transfer_to_agent` when `agent` can hand over.
    fn tool_specs(&self, agent: &Agent, tools: &[ToolAdapter]) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = tools.iter().map(|t| t.spec().clone()).collect();
        let targets = self.transfer_targets(agent);
        if !targets.is_empty() && !specs.iter().any(|s| s.name == TRANSFER_TO_AGENT) {
            specs.push(transfer_spec(&targets));
        }
        specs
    }

    /// Who `agent` may hand over to: its sub-agents, then its parent.
    fn transfer_targets<'a>(&'a self, agent: &'a Agent) -> Vec<&'a Agent> {
        let mut targets: Vec<&Agent> = agent.sub_agents.iter().collect();
        if let Some(parent) = self.root.parent_of(&agent.name) {
            targets.push(parent);
        }
        targets
    }

    /// The agent the first `transfer_to_agent` call names; an unknown name fails the turn
    /// with "failed to find agent: <name>" (what `run_and_collect` corrects).
    pub(super) fn transfer_target(
        &self,
        calls: &[FunctionCall],
    ) -> Result<Option<&Agent>, AgentError> {
        let Some(call) = calls.iter().find(|c| c.name == TRANSFER_TO_AGENT) else {
            return Ok(None);
        };
        let name = call
            .args
            .get("agent_name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.root
            .find_agent(name)
            .map(Some)
            .ok_or_else(|| AgentError::AgentNotFound(name.to_owned()))
    }
}

fn transfer_spec(targets: &[&Agent]) -> ToolSpec {
    let names: Vec<&str> = targets.iter().map(|a| a.name.as_str()).collect();
    let mut params = Map::new();
    params.insert(
        "agent_name".into(),
        json!({"type": "string", "description": "The name of the agent to transfer to.", "required": true}),
    );
    ToolSpec {
        name: TRANSFER_TO_AGENT.to_owned(),
        description: format!(
            "Transfer the conversation to another agent when it is better suited to answer. Valid agents: {}.",
            names.join(", ")
        ),
        parameters: normalize_schema(&Value::Object(params)),
    }
}
