import { describe, expect, it, vi } from 'vitest';
import { render } from 'svelte/server';
import ToolApproval from './ToolApproval.svelte';
import { newToolCard } from '../../lib/toolCards';

vi.mock('../../lib/api/commands', () => ({
  approveToolCall: vi.fn(async (_key: string, id: string) => id === 'waiting'),
}));

const { decideToolCall, turns } = await import('./turns.svelte');
const { emptyReply, applyChatEvent } = await import('../../lib/chatStream');

const request = (id: string) =>
  applyChatEvent(emptyReply(), {
    type: 'toolApproval',
    id,
    name: 'files__write',
    server: 'files',
    tool: 'write',
    description: 'Writes <b>any</b> file',
    annotations: { destructive: true, readOnly: false, title: 'Write file' },
    args: { path: '/tmp/x' },
  });

describe('ToolApproval', () => {
  it('shows server, tool, description, hints and arguments as text, with the three answers', () => {
    const reply = request('waiting');
    const card = reply.parts[0];
    if (card.kind !== 'tool') throw new Error('no card');
    const { body } = render(ToolApproval, { props: { card, onDecide: async () => {} } });
    expect(body).toContain('data-testid="tool-approval"');
    for (const id of ['approve-once', 'approve-always', 'approve-deny']) expect(body).toContain(`data-testid="${id}"`);
    expect(body).toContain('>write<');
    expect(body).toContain('>files<');
    expect(body).toContain('Writes &lt;b>any&lt;/b> file');
    expect(body).toContain('destructive');
    expect(body).not.toContain('read-only');
    expect(body).toContain('"path": "/tmp/x"');
  });
});

describe('answering an approval', () => {
  it('turns the waiting card into a running card once the backend took the answer', async () => {
    turns.s1 = { key: 's1', mode: 'send', userText: 'x', attachments: [], hideFromSeq: null, reply: request('waiting'), stopping: false, done: null };
    await decideToolCall('s1', 'waiting', 'always');
    expect(turns.s1.reply.parts[0]).toMatchObject({ status: 'running', decision: 'always' });
  });

  it('says so, and leaves the card, when nothing waits for the answer any more', async () => {
    turns.s2 = { key: 's2', mode: 'send', userText: 'x', attachments: [], hideFromSeq: null, reply: request('gone'), stopping: false, done: null };
    await expect(decideToolCall('s2', 'gone', 'once')).rejects.toMatchObject({
      message: 'This call no longer waits for an answer.',
    });
    expect(turns.s2.reply.parts[0]).toMatchObject({ status: 'approval' });
  });
});
