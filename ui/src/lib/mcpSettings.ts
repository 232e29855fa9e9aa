/**
 * Settings → Tools as pure functions (unit-tested): the `mcpServers` object of the settings
 * document (Claude Desktop's format plus Lango's keys), parsing a pasted Claude Desktop
 * snippet or the add-server form into it, and the rows the section lists (each configured
 * server with what the backend says of it). Values such as `keychain:NAME` in env/headers
 * are passed through: the backend resolves them.
 */

import type { McpServerInfo, SettingsDocument } from './api/types';

/** One server in settings.json, as Claude Desktop writes it, plus Lango's optional keys. */
export interface McpServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  /** Seconds per call (default 60). */
  timeout?: number;
  autoApprove?: string[];
  disabledTools?: string[];
  [other: string]: unknown;
}

export type McpServers = Record<string, McpServerConfig>;

export type ParseResult = { ok: true; servers: McpServers } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isStringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringMap = (v: unknown) => isObject(v) && Object.values(v).every((x) => typeof x === 'string');

/** The servers of a settings document ({} when it has none or the value is not an object). */
export function serversOf(doc: SettingsDocument): McpServers {
  return isObject(doc.mcpServers) ? (doc.mcpServers as McpServers) : {};
}

/** A problem with a server name, or null. */
export function nameProblem(name: string, existing: readonly string[] = []): string | null {
  const n = name.trim();
  if (!n) return 'Give the server a name.';
  if (n.length > 64) return 'A server name can have at most 64 characters.';
  if (/[\u0000-\u001f]/.test(n)) return 'A server name cannot contain control characters.';
  if (existing.includes(n)) return `A server named “${n}” exists already.`;
  return null;
}

/** What is wrong with one server's entry ('' when nothing). */
export function configProblem(name: string, value: unknown): string {
  const at = `Server “${name}”`;
  if (!isObject(value)) return `${at}: expected an object with "command" or "url".`;
  const hasCommand = typeof value.command === 'string' && value.command.trim() !== '';
  const hasUrl = typeof value.url === 'string' && value.url.trim() !== '';
  if (!hasCommand && !hasUrl) return `${at} needs a "command" (a program to start) or a "url".`;
  if (hasCommand && hasUrl) return `${at} has both "command" and "url": keep one.`;
  if (hasUrl && !/^https?:\/\/\S+$/i.test(String(value.url).trim())) return `${at}: "url" must start with http:// or https://.`;
  if (value.args !== undefined && !isStringList(value.args)) return `${at}: "args" must be a list of strings.`;
  if (value.env !== undefined && !isStringMap(value.env)) return `${at}: "env" must map names to string values.`;
  if (value.headers !== undefined && !isStringMap(value.headers)) return `${at}: "headers" must map names to string values.`;
  if (value.cwd !== undefined && typeof value.cwd !== 'string') return `${at}: "cwd" must be a folder path.`;
  if (value.disabled !== undefined && typeof value.disabled !== 'boolean') return `${at}: "disabled" must be true or false.`;
  if (value.timeout !== undefined && !(typeof value.timeout === 'number' && value.timeout > 0))
    return `${at}: "timeout" must be a number of seconds above 0.`;
  for (const key of ['autoApprove', 'disabledTools'])
    if (value[key] !== undefined && !isStringList(value[key])) return `${at}: "${key}" must be a list of tool names.`;
  return '';
}

/**
 * Servers from a pasted snippet: Claude Desktop's `{"mcpServers": {...}}` or the inner
 * object `{"name": {...}}`. Bad JSON, a lone server without a name, or a server without
 * `command`/`url` is an error in plain words.
 */
export function parseServersJson(text: string): ParseResult {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, error: 'Paste a JSON object such as {"mcpServers": {"name": {"command": "npx", "args": []}}}.' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (e) {
    return { ok: false, error: `This is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(value)) return { ok: false, error: 'Expected a JSON object of servers, e.g. {"mcpServers": {...}}.' };
  const servers = isObject(value.mcpServers) ? value.mcpServers : 'mcpServers' in value ? null : value;
  if (!servers) return { ok: false, error: '"mcpServers" must be an object of servers by name.' };
  if ('command' in servers || 'url' in servers)
    return { ok: false, error: 'This is one server without a name: wrap it as {"my-server": {...}}.' };
  const names = Object.keys(servers);
  if (names.length === 0) return { ok: false, error: 'The snippet has no servers.' };
  for (const name of names) {
    const bad = nameProblem(name);
    if (bad) return { ok: false, error: bad };
    const problem = configProblem(name, servers[name]);
    if (problem) return { ok: false, error: problem };
  }
  return { ok: true, servers: servers as McpServers };
}

/** Splits a command line into words: spaces separate, quotes ('…' or "…") group, \ escapes in "…". */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * `KEY=VALUE` lines (env) or `Name: value` lines (headers, `sep = ':'`) to a map. Blank
 * lines and `#` comments are skipped; a line without the separator or name is an error
 * naming its line.
 */
export function parsePairs(text: string, sep: '=' | ':' = '='): { values: Record<string, string>; error: string | null } {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    const at = line.indexOf(sep);
    const key = at > 0 ? line.slice(0, at).trim() : '';
    if (!key) {
      const shape = sep === '=' ? 'NAME=value' : 'Name: value';
      return { values, error: `Line ${i + 1} should look like ${shape}.` };
    }
    values[key] = line.slice(at + 1).trim();
  }
  return { values, error: null };
}

export interface ServerForm {
  name: string;
  kind: 'command' | 'url';
  /** The whole command line: program then arguments. */
  commandLine: string;
  cwd: string;
  /** KEY=VALUE lines. */
  env: string;
  url: string;
  /** "Name: value" lines. */
  headers: string;
}

export const emptyServerForm = (): ServerForm => ({
  name: '',
  kind: 'command',
  commandLine: '',
  cwd: '',
  env: '',
  url: '',
  headers: '',
});

export type ServerFormErrors = Partial<Record<'name' | 'commandLine' | 'env' | 'url' | 'headers', string>>;

/** The entry the form describes, or its errors by field. */
export function serverFromForm(
  form: ServerForm,
  existing: readonly string[],
): { ok: true; name: string; config: McpServerConfig } | { ok: false; errors: ServerFormErrors } {
  const errors: ServerFormErrors = {};
  const name = form.name.trim();
  const badName = nameProblem(name, existing);
  if (badName) errors.name = badName;
  const config: McpServerConfig = {};
  if (form.kind === 'command') {
    const words = splitCommandLine(form.commandLine);
    if (words.length === 0) errors.commandLine = 'Enter the program to start, e.g. npx -y @modelcontextprotocol/server-everything.';
    else {
      config.command = words[0];
      config.args = words.slice(1);
    }
    const env = parsePairs(form.env, '=');
    if (env.error) errors.env = env.error;
    else if (Object.keys(env.values).length) config.env = env.values;
    if (form.cwd.trim()) config.cwd = form.cwd.trim();
  } else {
    const url = form.url.trim();
    if (!/^https?:\/\/\S+$/i.test(url)) errors.url = 'Enter the server’s address, starting with http:// or https://.';
    else config.url = url;
    const headers = parsePairs(form.headers, ':');
    if (headers.error) errors.headers = headers.error;
    else if (Object.keys(headers.values).length) config.headers = headers.values;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, name, config };
}

/** The document with `servers` added; an error when a name is taken. */
export function addServers(
  doc: SettingsDocument,
  servers: McpServers,
): { ok: true; doc: SettingsDocument } | { ok: false; error: string } {
  const current = serversOf(doc);
  for (const name of Object.keys(servers)) {
    if (name in current) return { ok: false, error: `A server named “${name}” exists already: remove it first or pick another name.` };
  }
  return { ok: true, doc: { ...doc, mcpServers: { ...current, ...servers } } };
}

export function removeServer(doc: SettingsDocument, name: string): SettingsDocument {
  const rest = { ...serversOf(doc) };
  delete rest[name];
  return { ...doc, mcpServers: rest };
}

/** Turns a server on or off (`disabled`; the key is dropped when on, as Claude Desktop has no such key). */
export function setServerDisabled(doc: SettingsDocument, name: string, disabled: boolean): SettingsDocument {
  const current = serversOf(doc);
  if (!(name in current)) return doc;
  const entry = { ...current[name] };
  if (disabled) entry.disabled = true;
  else delete entry.disabled;
  return { ...doc, mcpServers: { ...current, [name]: entry } };
}

export interface ServerRow {
  name: string;
  config: McpServerConfig | null;
  info: McpServerInfo | null;
  disabled: boolean;
  transport: 'stdio' | 'http';
  /** "Ready · 3 tools", "Starting…", "Failed", "Disabled", "Not started". */
  stateText: string;
  state: McpServerInfo['state'] | 'unknown';
}

/** Every configured server (settings order) with the backend's view of it; servers the backend reports but the document lacks come last. */
export function serverRows(doc: SettingsDocument, infos: readonly McpServerInfo[] | null): ServerRow[] {
  const servers = serversOf(doc);
  const byName = new Map((infos ?? []).map((i) => [i.name, i]));
  const names = [...Object.keys(servers), ...(infos ?? []).map((i) => i.name).filter((n) => !(n in servers))];
  return names.map((name) => {
    const config = servers[name] ?? null;
    const info = byName.get(name) ?? null;
    const disabled = config?.disabled === true || info?.state === 'disabled';
    const state = disabled ? 'disabled' : (info?.state ?? 'unknown');
    return {
      name,
      config,
      info,
      disabled,
      transport: info?.transport ?? (config?.url ? 'http' : 'stdio'),
      state,
      stateText: stateText(state, info?.tools.length ?? 0),
    };
  });
}

function stateText(state: ServerRow['state'], tools: number): string {
  switch (state) {
    case 'ready':
      return `Ready · ${tools} tool${tools === 1 ? '' : 's'}`;
    case 'starting':
      return 'Starting…';
    case 'failed':
      return 'Failed';
    case 'disabled':
      return 'Disabled';
    default:
      return 'Not started';
  }
}

/** What the row says it runs: the command line or the URL (header/env values are never shown). */
export function serverTarget(config: McpServerConfig | null): string {
  if (!config) return '';
  if (config.url) return config.url;
  if (!config.command) return '';
  return [config.command, ...(config.args ?? [])]
    .map((w) => (/[\s"']/.test(w) || w === '' ? JSON.stringify(w) : w))
    .join(' ')
    .trim();
}
