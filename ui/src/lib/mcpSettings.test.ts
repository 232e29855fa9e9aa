import { describe, expect, it } from 'vitest';
import type { McpServerInfo, SettingsDocument } from './api/types';
import {
  addServers,
  emptyServerForm,
  parsePairs,
  parseServersJson,
  removeServer,
  serverFromForm,
  serverRows,
  serverTarget,
  setServerDisabled,
  splitCommandLine,
} from './mcpSettings';

const doc = (mcpServers?: unknown): SettingsDocument =>
  ({ agent: {}, providers: {}, observationalMemory: {}, secrets: { allowFileStore: false }, appearance: { theme: 'system' }, ...(mcpServers === undefined ? {} : { mcpServers }) }) as unknown as SettingsDocument;

describe('pasting a Claude Desktop snippet', () => {
  const claude = {
    mcpServers: {
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'keychain:remote-token' } },
    },
  };

  it('takes the whole Claude Desktop config or just its inner object', () => {
    for (const text of [JSON.stringify(claude), JSON.stringify(claude.mcpServers)]) {
      const r = parseServersJson(text);
      expect(r).toEqual({ ok: true, servers: claude.mcpServers });
    }
  });

  it('keeps keychain references and Lango keys as written', () => {
    const r = parseServersJson(JSON.stringify({ s: { command: 'x', env: { TOKEN: 'keychain:tok' }, timeout: 5, autoApprove: ['echo'] } }));
    expect(r.ok && r.servers.s).toEqual({ command: 'x', env: { TOKEN: 'keychain:tok' }, timeout: 5, autoApprove: ['echo'] });
  });

  it('says bad JSON is bad JSON', () => {
    const r = parseServersJson('{"mcpServers": {');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^This is not valid JSON: /);
  });

  it('asks for command or url, naming the server', () => {
    const r = parseServersJson('{"broken": {"args": ["x"]}}');
    expect(r).toEqual({ ok: false, error: 'Server “broken” needs a "command" (a program to start) or a "url".' });
  });

  it('refuses a lone server without a name, both command and url, and wrong types', () => {
    expect(parseServersJson('{"command": "npx"}')).toMatchObject({ ok: false, error: expect.stringMatching(/without a name/) });
    expect(parseServersJson('{"a": {"command": "x", "url": "http://h"}}')).toMatchObject({ ok: false, error: expect.stringMatching(/keep one/) });
    expect(parseServersJson('{"a": {"command": "x", "args": "-y"}}')).toMatchObject({ ok: false, error: expect.stringMatching(/"args" must be a list/) });
    expect(parseServersJson('{"a": {"url": "ftp://h"}}')).toMatchObject({ ok: false, error: expect.stringMatching(/http/) });
    expect(parseServersJson('{"a": {"command": "x", "env": {"N": 1}}}')).toMatchObject({ ok: false, error: expect.stringMatching(/"env"/) });
    expect(parseServersJson('{"a": {"command": "x", "timeout": 0}}')).toMatchObject({ ok: false, error: expect.stringMatching(/"timeout"/) });
    expect(parseServersJson('[]')).toMatchObject({ ok: false });
    expect(parseServersJson('{}')).toEqual({ ok: false, error: 'The snippet has no servers.' });
    expect(parseServersJson('')).toMatchObject({ ok: false });
  });
});

describe('the add-server form', () => {
  it('splits the command line into command and args, quotes kept together', () => {
    expect(splitCommandLine(`npx -y @scope/pkg "/My Files" 'a b' ""`)).toEqual(['npx', '-y', '@scope/pkg', '/My Files', 'a b', '']);
    expect(splitCommandLine('  ')).toEqual([]);
    expect(splitCommandLine('say "a \\"q\\""')).toEqual(['say', 'a "q"']);
  });

  it('reads env as KEY=VALUE lines and headers as Name: value lines', () => {
    expect(parsePairs('A=1\n# note\n\nB = x=y\nC=keychain:c')).toEqual({ values: { A: '1', B: 'x=y', C: 'keychain:c' }, error: null });
    expect(parsePairs('Authorization: Bearer keychain:t', ':')).toEqual({ values: { Authorization: 'Bearer keychain:t' }, error: null });
    expect(parsePairs('A=1\noops').error).toBe('Line 2 should look like NAME=value.');
    expect(parsePairs('=x').error).toBe('Line 1 should look like NAME=value.');
  });

  it('builds a stdio server entry', () => {
    const r = serverFromForm({ ...emptyServerForm(), name: ' every ', commandLine: 'npx -y @modelcontextprotocol/server-everything', env: 'K=v' }, []);
    expect(r).toEqual({ ok: true, name: 'every', config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { K: 'v' } } });
  });

  it('builds an HTTP server entry', () => {
    const r = serverFromForm({ ...emptyServerForm(), name: 'r', kind: 'url', url: 'http://127.0.0.1:8080/mcp', headers: 'X-Key: keychain:k' }, []);
    expect(r).toEqual({ ok: true, name: 'r', config: { url: 'http://127.0.0.1:8080/mcp', headers: { 'X-Key': 'keychain:k' } } });
  });

  it('names every missing or bad field', () => {
    const r = serverFromForm({ ...emptyServerForm(), name: 'taken', env: 'nope' }, ['taken']);
    expect(r.ok).toBe(false);
    expect(!r.ok && Object.keys(r.errors).sort()).toEqual(['commandLine', 'env', 'name']);
    const u = serverFromForm({ ...emptyServerForm(), name: 'x', kind: 'url', url: 'example.com' }, []);
    expect(!u.ok && Object.keys(u.errors)).toEqual(['url']);
  });
});

describe('the servers in the settings document', () => {
  it('adds servers, refusing a name that is taken, and keeps other settings', () => {
    const d = doc({ a: { command: 'x' } });
    const r = addServers(d, { b: { url: 'http://h' } });
    expect(r.ok && r.doc.mcpServers).toEqual({ a: { command: 'x' }, b: { url: 'http://h' } });
    expect(r.ok && r.doc.appearance).toEqual(d.appearance);
    expect(addServers(d, { a: { command: 'y' } })).toMatchObject({ ok: false });
    expect(addServers(doc(), { a: { command: 'y' } })).toMatchObject({ ok: true, doc: { mcpServers: { a: { command: 'y' } } } });
  });

  it('disables and enables a server without touching its other keys', () => {
    const d = doc({ a: { command: 'x', autoApprove: ['t'] } });
    const off = setServerDisabled(d, 'a', true);
    expect(off.mcpServers).toEqual({ a: { command: 'x', autoApprove: ['t'], disabled: true } });
    expect(setServerDisabled(off, 'a', false).mcpServers).toEqual({ a: { command: 'x', autoApprove: ['t'] } });
    expect(d.mcpServers).toEqual({ a: { command: 'x', autoApprove: ['t'] } });
  });

  it('removes a server', () => {
    expect(removeServer(doc({ a: { command: 'x' }, b: { command: 'y' } }), 'a').mcpServers).toEqual({ b: { command: 'y' } });
  });
});

describe('server rows', () => {
  const info = (name: string, state: McpServerInfo['state'], tools = 0): McpServerInfo => ({
    name,
    transport: 'stdio',
    state,
    error: state === 'failed' ? 'command not found: npx' : null,
    tools: Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, exposedName: `${name}__t${i}`, description: '', policy: 'ask', annotations: {} })),
    stderrTail: [],
  });

  it('lists configured servers with their state, also when the backend has not answered', () => {
    const d = doc({ a: { command: 'x' }, b: { url: 'http://h', disabled: true }, c: { command: 'z' } });
    const rows = serverRows(d, [info('a', 'ready', 3), info('c', 'failed')]);
    expect(rows.map((r) => [r.name, r.state, r.stateText, r.transport])).toEqual([
      ['a', 'ready', 'Ready · 3 tools', 'stdio'],
      ['b', 'disabled', 'Disabled', 'http'],
      ['c', 'failed', 'Failed', 'stdio'],
    ]);
    expect(serverRows(d, null).map((r) => r.stateText)).toEqual(['Not started', 'Disabled', 'Not started']);
    expect(serverRows(doc({ a: { command: 'x' } }), [info('a', 'ready', 1)])[0].stateText).toBe('Ready · 1 tool');
  });

  it('shows a server the backend runs but the document lacks', () => {
    expect(serverRows(doc(), [info('z', 'starting')]).map((r) => [r.name, r.stateText])).toEqual([['z', 'Starting…']]);
  });

  it('shows the command line or URL, never env or header values', () => {
    expect(serverTarget({ command: 'npx', args: ['-y', 'a b'], env: { SECRET: 's3' } })).toBe('npx -y "a b"');
    expect(serverTarget({ url: 'https://h/mcp', headers: { A: 'secret' } })).toBe('https://h/mcp');
    expect(serverTarget(null)).toBe('');
  });
});
