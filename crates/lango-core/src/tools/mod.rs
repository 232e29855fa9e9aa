//! Tools from outside the app: MCP servers the user configured (`mcpServers` in the
//! settings), offered to the agent as ordinary [`Tool`](crate::agent::Tool)s behind the
//! user's approval.
//!
//! Owns connecting to servers and turning their tools into agent tools. The agent's own
//! built-in tools, the tool adapter (schemas, timeouts) and the approval seam live in
//! `crate::agent`; this module depends on it, never the other way round.

pub mod mcp;
