//! The `mcpServers` section, in Claude Desktop's format so a user can paste theirs:
//! `{"name": {"command", "args", "env", "cwd"}}` (a local server over stdio) or
//! `{"name": {"url", "headers"}}` (a remote one over Streamable HTTP), plus Lango's own
//! optional keys per server: `disabled`, `timeout` (seconds per call), `autoApprove` and
//! `disabledTools` (tool names as the server calls them).
//!
//! Owns the per-server fields, their defaults and rules. It must not start anything
//! (`crate::tools::mcp` does) nor resolve `keychain:` references (`crate::tools::mcp::env`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::fields::{describe, report_unknown_key, Fields, Report};
use super::url_check::check_base_url;

const KNOWN: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "type",
    "disabled",
    "timeout",
    "autoApprove",
    "disabledTools",
];

/// Seconds one tool call may take when a server sets no `timeout`.
pub const DEFAULT_MCP_CALL_TIMEOUT_SECS: u64 = 60;

/// Configured MCP servers by name. A `BTreeMap` so saved files are stable.
pub type McpServers = BTreeMap<String, McpServerSettings>;

/// How Lango reaches a server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Added to the child's minimal environment. A value `keychain:NAME` is read from
        /// the OS keychain entry NAME (`lango config set-key NAME`) when the server starts.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// A remote server over Streamable HTTP.
    Http {
        url: String,
        /// Sent with every request; `keychain:NAME` values as for `env`.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
}

impl McpTransport {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerSettings {
    #[serde(flatten)]
    pub transport: McpTransport,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// Seconds per tool call (> 0).
    #[serde(skip_serializing_if = "is_default_timeout")]
    pub timeout: u64,
    /// Tools that run without asking.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auto_approve: Vec<String>,
    /// Tools never offered to the model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
}

fn is_default_timeout(t: &u64) -> bool {
    *t == DEFAULT_MCP_CALL_TIMEOUT_SECS
}

impl McpServerSettings {
    /// A stdio server with no arguments and every optional key at its default.
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self::with_transport(McpTransport::Stdio {
            command: command.into(),
            args,
            env: BTreeMap::new(),
            cwd: None,
        })
    }

    pub fn with_transport(transport: McpTransport) -> Self {
        Self {
            transport,
            disabled: false,
            timeout: DEFAULT_MCP_CALL_TIMEOUT_SECS,
            auto_approve: Vec::new(),
            disabled_tools: Vec::new(),
        }
    }
}

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> McpServers {
    let mut servers = McpServers::new();
    let Some(section) = Fields::open_any_keys(value, "mcpServers", report) else {
        return servers;
    };
    for (raw_name, entry) in section.map() {
        let path = section.path(raw_name);
        let name = raw_name.trim();
        if name.is_empty() {
            report.problem(&path, format!("{path}: a server name must not be empty"));
            continue;
        }
        if let Some(server) = server(&path, entry, report) {
            servers.insert(name.to_owned(), server);
        }
    }
    servers
}

fn server(path: &str, entry: &Value, report: &mut Report) -> Option<McpServerSettings> {
    let Some(map) = entry.as_object() else {
        report.problem(
            path,
            format!(
                "{path} must be an object with \"command\" (a local server) or \"url\" (a remote one), got {}",
                describe(entry)
            ),
        );
        return None;
    };
    for key in map.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        report_unknown_key(&format!("{path}.{key}"), key, KNOWN, report);
    }
    let f = Fields::open_any_keys(Some(entry), path, report)?;
    let transport = transport(path, &f, map, report)?;
    let mut server = McpServerSettings::with_transport(transport);
    if let Some(d) = f.boolean("disabled", report) {
        server.disabled = d;
    }
    if let Some(t) = f.integer("timeout", report) {
        if t > 0 {
            server.timeout = u64::try_from(t).unwrap_or(DEFAULT_MCP_CALL_TIMEOUT_SECS);
        } else {
            let at = f.path("timeout");
            report.problem(&at, format!("{at} must be > 0 seconds, got {t}"));
        }
    }
    server.auto_approve = string_list(&f, "autoApprove", report);
    server.disabled_tools = string_list(&f, "disabledTools", report);
    Some(server)
}

fn transport(
    path: &str,
    f: &Fields<'_>,
    map: &Map<String, Value>,
    report: &mut Report,
) -> Option<McpTransport> {
    let declared = f.string("type", report);
    let has_command = map.contains_key("command");
    let has_url = map.contains_key("url");
    match declared.as_deref().map(str::trim) {
        None | Some("stdio" | "http" | "streamable-http" | "streamableHttp") => {}
        Some("sse") => {
            report.problem(
                f.path("type"),
                format!("{path}: legacy SSE servers are not supported; most servers also speak Streamable HTTP at the same address (often ending in /mcp): set \"type\": \"http\" and that url"),
            );
            return None;
        }
        Some(other) => {
            let at = f.path("type");
            report.problem(
                &at,
                format!("{at} must be \"stdio\" or \"http\", got \"{other}\""),
            );
            return None;
        }
    }
    match (has_command, has_url) {
        (true, true) => {
            report.problem(
                path,
                format!("{path} has both \"command\" and \"url\": a server is either local (command) or remote (url)"),
            );
            None
        }
        (false, false) => {
            report.problem(
                path,
                format!("{path} needs \"command\" (a local server, e.g. \"npx\") or \"url\" (a remote one)"),
            );
            None
        }
        (true, false) => {
            for key in ["url", "headers"].iter().filter(|k| map.contains_key(**k)) {
                let at = f.path(key);
                report.problem(
                    &at,
                    format!("{at} is for remote servers (with \"url\"); this one has \"command\""),
                );
            }
            let command = f.string("command", report)?.trim().to_owned();
            if command.is_empty() {
                let at = f.path("command");
                report.problem(&at, format!("{at} must not be empty"));
                return None;
            }
            let cwd = f
                .string("cwd", report)
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty());
            Some(McpTransport::Stdio {
                command,
                args: string_list(f, "args", report),
                env: string_map(f, "env", report),
                cwd,
            })
        }
        (false, true) => {
            for key in ["args", "env", "cwd"]
                .iter()
                .filter(|k| map.contains_key(**k))
            {
                let at = f.path(key);
                report.problem(
                    &at,
                    format!("{at} is for local servers (with \"command\"); this one has \"url\""),
                );
            }
            let raw = f.string("url", report)?;
            let url = match check_base_url(raw.trim()) {
                Ok(url) => url,
                Err(why) => {
                    let at = f.path("url");
                    report.problem(&at, format!("{at} {why}, got \"{raw}\""));
                    return None;
                }
            };
            Some(McpTransport::Http {
                url,
                headers: string_map(f, "headers", report),
            })
        }
    }
}

fn string_list(f: &Fields<'_>, key: &str, report: &mut Report) -> Vec<String> {
    let Some(raw) = f.raw(key) else {
        return Vec::new();
    };
    let at = f.path(key);
    let Some(items) = raw.as_array() else {
        report.problem(
            &at,
            format!("{at} must be an array of strings, got {}", describe(raw)),
        );
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) => out.push(s.to_owned()),
            None => report.problem(
                format!("{at}[{i}]"),
                format!("{at}[{i}] must be a string, got {}", describe(item)),
            ),
        }
    }
    out
}

fn string_map(f: &Fields<'_>, key: &str, report: &mut Report) -> BTreeMap<String, String> {
    let Some(raw) = f.raw(key) else {
        return BTreeMap::new();
    };
    let at = f.path(key);
    let Some(map) = raw.as_object() else {
        report.problem(
            &at,
            format!("{at} must be an object of strings, got {}", describe(raw)),
        );
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for (k, v) in map {
        match v.as_str() {
            Some(s) => {
                out.insert(k.clone(), s.to_owned());
            }
            None => report.problem(
                format!("{at}.{k}"),
                format!("{at}.{k} must be a string, got {}", describe(v)),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_ok(v: Value) -> McpServers {
        let mut report = Report::default();
        let servers = parse(Some(&v), &mut report);
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        servers
    }

    fn problems(v: Value) -> Vec<String> {
        let mut report = Report::default();
        parse(Some(&v), &mut report);
        report.problems.into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn a_claude_desktop_config_pastes_as_is() {
        let servers = parse_ok(json!({
            "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
            "github": {"command": "docker", "args": ["run", "-i"], "env": {"GITHUB_TOKEN": "keychain:github"}},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}
        }));
        assert_eq!(servers.len(), 3);
        let fs = &servers["filesystem"];
        assert_eq!(fs.timeout, DEFAULT_MCP_CALL_TIMEOUT_SECS);
        assert!(
            matches!(&fs.transport, McpTransport::Stdio { command, args, .. } if command == "npx" && args.len() == 3)
        );
        assert_eq!(servers["remote"].transport.kind(), "http");
    }

    #[test]
    fn lango_keys_are_read_and_written_back_in_the_same_shape() {
        let v = json!({"time": {"command": "python3", "args": ["-m", "mcp_server_time"],
            "timeout": 5, "disabled": true, "autoApprove": ["get_current_time"], "disabledTools": ["convert_time"]}});
        let servers = parse_ok(v.clone());
        let t = &servers["time"];
        assert!(t.disabled);
        assert_eq!(t.timeout, 5);
        assert_eq!(t.auto_approve, vec!["get_current_time"]);
        assert_eq!(serde_json::to_value(&servers).unwrap(), v);
    }

    #[test]
    fn each_mistake_is_named_by_its_field() {
        let msgs = problems(json!({
            "a": {"command": "x", "url": "http://h"},
            "b": {},
            "c": {"command": "x", "timeout": 0, "autoApprove": "all", "env": {"K": 1}},
            "d": {"url": "ftp://nope"},
            "e": {"command": "x", "comand": "y"},
            "f": {"url": "http://h", "type": "sse"}
        }));
        let all = msgs.join("\n");
        assert!(all.contains("mcpServers.a has both"), "{all}");
        assert!(all.contains("mcpServers.b needs \"command\""), "{all}");
        assert!(all.contains("mcpServers.c.timeout must be > 0"), "{all}");
        assert!(
            all.contains("mcpServers.c.autoApprove must be an array"),
            "{all}"
        );
        assert!(all.contains("mcpServers.c.env.K must be a string"), "{all}");
        assert!(all.contains("mcpServers.d.url"), "{all}");
        assert!(
            all.contains("mcpServers.e.comand is not a known setting (did you mean command?)"),
            "{all}"
        );
        assert!(all.contains("legacy SSE"), "{all}");
    }
}
