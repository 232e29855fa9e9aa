//! MCP servers (Model Context Protocol) as agent tools, on the official Rust SDK (`rmcp`).
//!
//! - `hub`: every configured server as one toolset; follows settings changes.
//! - `server`: one server's life (start, list, restart with backoff, status, stderr).
//! - `connection`: the SDK: stdio child or Streamable HTTP, initialize, list, call,
//!   progress, cancellation.
//! - `stdio`, `http`, `oversized`: a child's pipes, and the HTTP client, with a bound on one
//!   message; an answer over it fails its call at once, saying how large it was.
//! - `tool`: a server's tool as an agent [`Tool`](crate::agent::Tool), with its approval policy.
//! - `names`: `server__tool` names valid for every provider, unique.
//! - `result`: a call result as the model and the user's card see it.
//! - `env`, `process`: the child's minimal environment, its PATH, and that it dies with us.

mod connection;
mod env;
mod error;
mod http;
mod hub;
mod names;
mod oversized;
mod process;
mod result;
mod server;
mod stderr_log;
mod stdio;
mod tool;

pub use connection::RemoteTool;
pub use env::{resolve_command, search_path, KEYCHAIN_PREFIX};
pub use error::McpError;
pub use hub::{policy_of, with_policy, McpHub, McpServerInfo, McpToolInfo, ToolPolicy};
pub use names::{exposed_name, MAX_NAME_LEN};
pub use result::to_output;
pub use server::{McpServer, ServerOptions, ServerState};
pub use tool::McpTool;
