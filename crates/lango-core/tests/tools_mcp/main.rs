//! MCP servers as agent tools, against real servers installed from the package registries
//! by `scripts/install-mcp-test-servers.sh` (npm: `@modelcontextprotocol/server-everything`,
//! `server-filesystem`; PyPI: `mcp-server-time`) plus `tests/mcp-servers/fault-server.mjs`,
//! a server on the official TypeScript SDK that misbehaves on purpose.

mod approval;
mod faults;
mod remote;
mod servers;
mod support;
