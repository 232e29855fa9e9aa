//! The agent tree: one agent's model, instruction, tools (fixed, and toolsets asked before
//! every model call), settings and the sub-agents it may transfer to.

use std::sync::Arc;

use crate::agent::traits::{Llm, Tool, Toolset};
use crate::agent::types::DEFAULT_AGENT_NAME;
use crate::config::AgentSettings;

/// One agent: a model, an instruction, tools, and the agents it may transfer to.
#[derive(Clone)]
pub struct Agent {
    pub name: String,
    /// The system instruction; empty = none.
    pub instruction: String,
    pub model: Arc<dyn Llm>,
    pub tools: Vec<Arc<dyn Tool>>,
    /// Tools asked for before every model call (MCP servers), after `tools`.
    pub toolsets: Vec<Arc<dyn Toolset>>,
    /// In registration order (the hallucination correction lists them in this order).
    pub sub_agents: Vec<Agent>,
    pub temperature: Option<f32>,
    pub max_output_tokens: Option<u32>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("name", &self.name)
            .field("instruction", &self.instruction)
            .field("model", &self.model.name())
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("sub_agents", &self.sub_agents)
            .field("temperature", &self.temperature)
            .field("max_output_tokens", &self.max_output_tokens)
            .finish()
    }
}

impl Agent {
    /// An agent with no instruction, tools or sub-agents. An empty name becomes
    /// [`DEFAULT_AGENT_NAME`].
    pub fn new(name: impl Into<String>, model: Arc<dyn Llm>) -> Self {
        let name = name.into();
        Self {
            name: if name.is_empty() {
                DEFAULT_AGENT_NAME.to_owned()
            } else {
                name
            },
            instruction: String::new(),
            model,
            tools: Vec::new(),
            toolsets: Vec::new(),
            sub_agents: Vec::new(),
            temperature: None,
            max_output_tokens: None,
        }
    }

    /// The root agent as configured (spec 000 "Agent Initialization"): the selected model,
    /// the given tools, and `agent.systemPrompt` / `temperature` / `maxTokens`.
    pub fn from_settings(
        name: impl Into<String>,
        settings: &AgentSettings,
        model: Arc<dyn Llm>,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Self {
        Self::new(name, model)
            .with_instruction(settings.system_prompt.clone())
            .with_temperature(settings.temperature as f32)
            .with_max_output_tokens(settings.max_tokens)
            .with_tools(tools)
    }

    pub fn with_instruction(mut self, instruction: impl Into<String>) -> Self {
        self.instruction = instruction.into();
        self
    }

    pub fn with_tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    pub fn with_tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    pub fn with_toolset(mut self, toolset: Arc<dyn Toolset>) -> Self {
        self.toolsets.push(toolset);
        self
    }

    /// The tools of the next model call: the fixed ones, then each toolset's current ones.
    /// A name already taken is skipped (the first one wins), so the model never sees two.
    pub fn current_tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = self.tools.clone();
        for set in &self.toolsets {
            for tool in set.tools() {
                if !tools.iter().any(|t| t.name() == tool.name()) {
                    tools.push(tool);
                }
            }
        }
        tools
    }

    pub fn with_sub_agent(mut self, agent: Agent) -> Self {
        self.sub_agents.push(agent);
        self
    }

    pub fn with_sub_agents(mut self, agents: impl IntoIterator<Item = Agent>) -> Self {
        self.sub_agents.extend(agents);
        self
    }

    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    pub fn with_max_output_tokens(mut self, max_output_tokens: u32) -> Self {
        self.max_output_tokens = Some(max_output_tokens);
        self
    }

    /// The immediate sub-agents' names, in registration order.
    pub fn sub_agent_names(&self) -> Vec<&str> {
        self.sub_agents.iter().map(|a| a.name.as_str()).collect()
    }

    /// This agent or any agent below it with that name (depth first).
    pub fn find_agent(&self, name: &str) -> Option<&Agent> {
        if self.name == name {
            return Some(self);
        }
        self.sub_agents.iter().find_map(|a| a.find_agent(name))
    }

    /// The agent whose sub-agents include `name`.
    pub(super) fn parent_of(&self, name: &str) -> Option<&Agent> {
        if self.sub_agents.iter().any(|a| a.name == name) {
            return Some(self);
        }
        self.sub_agents.iter().find_map(|a| a.parent_of(name))
    }
}
