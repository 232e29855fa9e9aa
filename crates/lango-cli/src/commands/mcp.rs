//! `lango mcp list [--json]` and `lango mcp test NAME`: the configured MCP servers, started
//! the way a chat starts them, with their state and tools.

use std::time::Duration;

use lango_core::config;
use lango_core::engine::mcp_hub;
use lango_core::tools::mcp::{McpServerInfo, ToolPolicy};

use super::Context;
use crate::args::McpCommand;
use crate::exit::{CliError, Kind};
use crate::output;
use crate::terminal::outln;

/// How long `list` and `test` wait for servers to start.
const START_WAIT: Duration = Duration::from_secs(30);

pub async fn run(ctx: &Context, command: &McpCommand) -> Result<(), CliError> {
    let settings = config::load(&ctx.paths)?.settings;
    match command {
        McpCommand::List => {
            if settings.mcp_servers.is_empty() {
                if ctx.json {
                    return output::json(&Vec::<McpServerInfo>::new());
                }
                outln!("No MCP servers are configured. Add them under \"mcpServers\" in {} (Claude Desktop's format).", ctx.paths.settings_file().display());
                return Ok(());
            }
            let hub = mcp_hub(&ctx.paths, &settings);
            hub.wait_started(START_WAIT).await;
            let servers = hub.describe();
            hub.shutdown();
            if ctx.json {
                return output::json(&servers);
            }
            for server in &servers {
                print_server(server);
            }
            Ok(())
        }
        McpCommand::Test { name } => {
            let Some(one) = settings.mcp_servers.get(name) else {
                let known: Vec<&str> = settings.mcp_servers.keys().map(String::as_str).collect();
                return Err(CliError::new(
                    Kind::Config,
                    format!(
                        "no MCP server is named \"{name}\" (configured: {})",
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            };
            let mut only = settings.clone();
            only.mcp_servers = [(name.clone(), one.clone())].into();
            let hub = mcp_hub(&ctx.paths, &only);
            hub.wait_started(START_WAIT).await;
            let servers = hub.describe();
            hub.shutdown();
            let Some(server) = servers.into_iter().next() else {
                return Err(CliError::internal("the server was not started"));
            };
            if ctx.json {
                output::json(&server)?;
            } else {
                print_server(&server);
            }
            match server.state {
                "ready" => Ok(()),
                "disabled" => Err(CliError::new(
                    Kind::Config,
                    format!("\"{name}\" is disabled in the settings"),
                )),
                _ => Err(CliError::new(
                    Kind::Provider,
                    format!(
                        "\"{name}\" did not start: {}",
                        server
                            .error
                            .unwrap_or_else(|| "it did not finish starting in time".into())
                    ),
                )),
            }
        }
    }
}

fn print_server(server: &McpServerInfo) {
    let state = match (server.state, &server.error) {
        ("ready", _) => format!("ready, {} tools", server.tools.len()),
        ("failed", Some(why)) => format!("failed: {}", why),
        (other, _) => other.to_owned(),
    };
    outln!("{} ({}) — {state}", &server.name, server.transport);
    for tool in &server.tools {
        let policy = match tool.policy {
            ToolPolicy::Ask => "asks",
            ToolPolicy::Always => "always allowed",
            ToolPolicy::Disabled => "disabled",
        };
        let description: String = tool
            .description
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(80)
            .collect();
        outln!(
            "  {} [{policy}] {}",
            if tool.exposed_name.is_empty() {
                &tool.name
            } else {
                &tool.exposed_name
            },
            &description
        );
    }
    if server.state == "failed" && !server.stderr_tail.is_empty() {
        outln!("  its last output:");
        for line in server.stderr_tail.iter().rev().take(5).rev() {
            outln!("    {}", line);
        }
    }
}
