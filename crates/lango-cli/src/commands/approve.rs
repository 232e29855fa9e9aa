//! `lango chat --approve ask|all|none`: who answers a tool call that needs approval.
//! `ask` (the default) asks on the terminal; without a terminal nobody can be asked, so the
//! call is denied with a message naming the flag.

use std::io::IsTerminal;
use std::sync::Arc;

use lango_core::agent::{ApprovalDecision, ApprovalRequest, FixedApproval, TurnHooks};
use lango_core::paths::AppPaths;
use lango_core::provider::BoxFuture;
use lango_core::tools::mcp::{with_policy, ToolPolicy};

use crate::args::ApproveMode;
use crate::terminal::{self, errln};

/// The hooks for a `lango chat` run.
pub fn hooks(mode: ApproveMode, paths: &AppPaths) -> Arc<dyn TurnHooks> {
    match mode {
        ApproveMode::All => Arc::new(FixedApproval(ApprovalDecision::Once)),
        ApproveMode::None => Arc::new(Announce(FixedApproval(ApprovalDecision::Deny), "denied (--approve none)")),
        ApproveMode::Ask if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
            Arc::new(AskOnTerminal {
                paths: paths.clone(),
            })
        }
        ApproveMode::Ask => Arc::new(Announce(
            FixedApproval(ApprovalDecision::Deny),
            "denied: there is no terminal to ask; run with --approve all to allow tool calls without asking, or --approve none to silence this",
        )),
    }
}

/// A fixed answer, said on stderr.
#[derive(Debug)]
struct Announce(FixedApproval, &'static str);

impl TurnHooks for Announce {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        errln!(
            "[tool {} ({} on {}): {}]",
            &request.name,
            &request.tool,
            &request.server,
            self.1
        );
        self.0.approve(request)
    }
}

/// A y/a/N question on stderr, the answer read from stdin.
#[derive(Debug)]
struct AskOnTerminal {
    paths: AppPaths,
}

impl TurnHooks for AskOnTerminal {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let paths = self.paths.clone();
        Box::pin(async move {
            let args =
                serde_json::to_string_pretty(&serde_json::Value::Object(request.args.clone()))
                    .unwrap_or_default();
            let mut hints = Vec::new();
            if request.hints.read_only == Some(true) {
                hints.push("read-only");
            }
            if request.hints.destructive == Some(true) {
                hints.push("DESTRUCTIVE");
            }
            if request.hints.open_world == Some(true) {
                hints.push("reaches outside (open world)");
            }
            let question = format!(
                "\nThe model wants to run {} on the MCP server \"{}\"{}\n  {}\nwith\n{}\nAllow? [y]es once, [a]lways for this tool, [N]o: ",
                request.tool,
                request.server,
                if hints.is_empty() { String::new() } else { format!(" ({})", hints.join(", ")) },
                request.description,
                args
            );
            let answer = tokio::task::spawn_blocking(move || {
                terminal::err(&question);
                let mut line = String::new();
                std::io::stdin().read_line(&mut line).ok().map(|_| line)
            })
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
            match answer.trim().to_lowercase().as_str() {
                "y" | "yes" => ApprovalDecision::Once,
                "a" | "always" => {
                    if let Err(e) = remember_always(&paths, &request.server, &request.tool) {
                        errln!("lango: could not save \"always allow\": {e}");
                    }
                    ApprovalDecision::Always
                }
                _ => ApprovalDecision::Deny,
            }
        })
    }
}

/// Adds the tool to its server's `autoApprove` in settings.json.
fn remember_always(paths: &AppPaths, server: &str, tool: &str) -> Result<(), String> {
    let mut settings = lango_core::config::load(paths)
        .map_err(|e| e.to_string())?
        .settings;
    let current = settings
        .mcp_servers
        .get(server)
        .cloned()
        .ok_or_else(|| format!("no server \"{server}\" in the settings"))?;
    settings.mcp_servers.insert(
        server.to_owned(),
        with_policy(current, tool, ToolPolicy::Always),
    );
    lango_core::config::save(paths, &settings).map_err(|e| e.to_string())
}
