import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import McpServerCard from './McpServerCard.svelte';
import type { McpServerInfo, SettingsDocument } from '../../lib/api/types';
import { serverRows } from '../../lib/mcpSettings';

const doc = (mcpServers: unknown) => ({ mcpServers }) as unknown as SettingsDocument;
const noop = () => {};
const handlers = { onToggle: noop, onRestart: noop, onRemove: noop, onPolicy: noop };

describe('McpServerCard', () => {
  it('shows why a server failed and its log, as text', () => {
    const info: McpServerInfo = {
      name: 'every',
      transport: 'stdio',
      state: 'failed',
      error: 'command not found: npx <b>hint</b>',
      tools: [],
      stderrTail: ['<script>alert(1)</script>', 'exit 127'],
    };
    const [row] = serverRows(doc({ every: { command: 'npx', args: ['-y', 'x'], env: { TOKEN: 'secret-value' } } }), [info]);
    const { body } = render(McpServerCard, { props: { row, ...handlers } });
    expect(body).toContain('data-state="failed"');
    expect(body).toContain('command not found: npx &lt;b>hint&lt;/b>');
    expect(body).toContain('Server log (2 lines)');
    expect(body).toContain('&lt;script>alert(1)&lt;/script>');
    expect(body).not.toContain('<script>');
    expect(body).toContain('npx -y x');
    expect(body).not.toContain('secret-value');
  });

  it('lists a ready server’s tools with their policy', () => {
    const info: McpServerInfo = {
      name: 'files',
      transport: 'stdio',
      state: 'ready',
      error: null,
      tools: [
        { name: 'read_file', exposedName: 'files__read_file', description: 'Reads a file', policy: 'always', annotations: { readOnly: true } },
        { name: 'write_file', exposedName: 'files__write_file', description: 'Writes', policy: 'ask', annotations: { destructive: true } },
      ],
      stderrTail: [],
    };
    const [row] = serverRows(doc({ files: { command: 'x', autoApprove: ['read_file'] } }), [info]);
    const { body } = render(McpServerCard, { props: { row, ...handlers } });
    expect(body).toContain('Ready · 2 tools');
    expect(body).toContain('Policy for read_file');
    expect(body).toContain('Reads a file');
    expect(body).toMatch(/<option value="always"[^>]*selected/);
    expect(body).toContain('destructive');
  });
});
