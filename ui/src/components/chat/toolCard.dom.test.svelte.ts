// Mounted and clicked (npm run test:dom): a large tool result whose page carried only its
// start — "Show all" reads the whole one from the engine, shows it, and says so in plain
// words when it cannot.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';

const commands = vi.hoisted(() => ({ toolResult: vi.fn() }));
vi.mock('../../lib/api/commands', () => commands);

const { default: ToolCard } = await import('./ToolCard.svelte');
const { newToolCard } = await import('../../lib/toolCards');

let mounted: Record<string, unknown> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
  vi.clearAllMocks();
});

function largeCard(id: string) {
  return newToolCard(id, 'files__read_text_file', {
    status: 'done',
    result: '{"content":"line 1\\nline 2',
    resultRest: { sessionKey: 'chat-1', seq: 4, callId: id, bytes: 3 * 1024 * 1024 },
  });
}

function showAllButton(): HTMLButtonElement {
  const button = [...document.querySelectorAll('button')].find((b) => /Show all|Show less|Reading/.test(b.textContent ?? ''));
  if (!button) throw new Error('no Show all button');
  return button as HTMLButtonElement;
}

describe('a large tool result on the card', () => {
  it('"Show all" reads the whole result and shows it pretty-printed', async () => {
    commands.toolResult.mockResolvedValue('{"content":"line 1\\nline 2\\nline 3 at the very end"}');
    mounted = mount(ToolCard, { target: document.body, props: { card: largeCard('big1'), cardKey: 'k-big1' } });
    flushSync();
    expect(document.querySelector('pre.json:last-of-type')?.textContent).not.toContain('very end');
    expect(showAllButton().textContent).toContain('Show all (3.0 MB)');
    showAllButton().click();
    await settle();
    expect(commands.toolResult).toHaveBeenCalledWith('chat-1', 4, 'big1');
    const shown = [...document.querySelectorAll('pre.json')].map((p) => p.textContent).join('\n');
    expect(shown).toContain('"content": "line 1\\nline 2\\nline 3 at the very end"');
    expect(showAllButton().textContent).toContain('Show less');
  });

  it('a result that cannot be read says so and keeps the start shown', async () => {
    commands.toolResult.mockRejectedValue({ code: 'not_found', message: 'the result of tool call big2 is not in this conversation' });
    mounted = mount(ToolCard, { target: document.body, props: { card: largeCard('big2'), cardKey: 'k-big2' } });
    flushSync();
    showAllButton().click();
    await settle();
    expect(document.querySelector('[role="alert"]')?.textContent).toBe(
      'The whole result could not be read: the result of tool call big2 is not in this conversation',
    );
    expect(showAllButton().textContent).toContain('Show all (3.0 MB)');
  });
});
