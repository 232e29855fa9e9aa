//! Text from outside Lango (a model, a tool, a server's stderr, a provider's error body) made
//! safe to show: `sanitize` removes terminal control sequences. Used by the CLI for everything
//! it prints and by the MCP client for the server logs it keeps.

pub mod sanitize;
