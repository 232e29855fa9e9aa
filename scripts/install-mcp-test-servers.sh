#!/usr/bin/env bash
# Installs the real MCP servers the tests run, from the package registries, into
# tests/mcp-servers: npm's @modelcontextprotocol/server-everything and server-filesystem
# (plus the SDK our fault server uses), and PyPI's mcp-server-time in a virtualenv.
# The tests run them with node / the venv's python: nothing is fetched at run time.
# Skips what is already installed (stamps follow package-lock.json and requirements.txt).
source "$(dirname "$0")/lib.sh"
ensure_mcp_test_servers
