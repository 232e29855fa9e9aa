//! A server's tool as the agent sees it: its exposed name, description and schema, its
//! call, and its approval policy (read live from the server's settings, so "Always allow"
//! takes effect on the next call).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::connection::RemoteTool;
use super::result::to_output;
use super::server::McpServer;
use crate::agent::{Tool, ToolContext, ToolOrigin, ToolOutput};
use crate::provider::BoxFuture;

#[derive(Debug)]
pub struct McpTool {
    exposed: String,
    server: Arc<McpServer>,
    remote: RemoteTool,
}

impl McpTool {
    pub fn new(exposed: String, server: Arc<McpServer>, remote: RemoteTool) -> Self {
        Self {
            exposed,
            server,
            remote,
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.exposed
    }

    fn description(&self) -> &str {
        &self.remote.description
    }

    fn input_schema(&self) -> Value {
        self.remote.input_schema.clone()
    }

    fn run(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            let output = self.run_output(ctx, args).await?;
            if output.is_error {
                Err(output.value.as_str().unwrap_or_default().to_owned())
            } else {
                Ok(output.value)
            }
        })
    }

    fn run_output(
        &self,
        ctx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'_, Result<ToolOutput, String>> {
        Box::pin(async move {
            match self
                .server
                .call(&self.remote.name, args, ctx.progress)
                .await
            {
                Ok(result) => Ok(to_output(&result)),
                Err(e) => Err(e.to_string()),
            }
        })
    }

    fn origin(&self) -> Option<ToolOrigin> {
        let settings = self.server.settings();
        Some(ToolOrigin {
            server: self.server.name().to_owned(),
            tool: self.remote.name.clone(),
            hints: self.remote.hints.clone(),
            needs_approval: !settings.auto_approve.iter().any(|t| t == &self.remote.name),
        })
    }

    fn timeout(&self) -> Option<Duration> {
        Some(Duration::from_secs(self.server.settings().timeout))
    }
}
