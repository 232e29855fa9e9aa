// Mounted and clicked (npm run test:dom): a large tool result whose page carried only its
// start — "Show all" reads more from the engine (all of it, or its first 512 KB saying so),
// "Save the whole result to a file" writes it to Downloads, and failures say so in plain words.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';

const commands = vi.hoisted(() => ({ toolResult: vi.fn(), saveToolResult: vi.fn(), showExport: vi.fn() }));
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

function button(text: RegExp): HTMLButtonElement {
  const found = [...document.querySelectorAll('button')].find((b) => text.test(b.textContent ?? ''));
  if (!found) throw new Error(`no button ${text}`);
  return found as HTMLButtonElement;
}
const showAllButton = () => button(/Show all|Show less|Reading/);

describe('a large tool result on the card', () => {
  it('"Show all" reads the whole result and shows it pretty-printed', async () => {
    commands.toolResult.mockResolvedValue({
      text: '{"content":"line 1\\nline 2\\nline 3 at the very end"}',
      bytes: 48,
      complete: true,
    });
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
    expect(document.querySelector('[data-testid="tool-result-note"]')?.textContent).not.toContain('Showing the first');
  });

  it('a result too large to lay out is shown up to 512 KB, saying so, and can be saved whole', async () => {
    commands.toolResult.mockResolvedValue({ text: '{"content":"the first half kilobyte…', bytes: 3 * 1024 * 1024, complete: false });
    commands.saveToolResult.mockResolvedValue({ path: '/home/me/Downloads/Lango - read_text_file result.txt', bytes: 3 * 1024 * 1024 });
    mounted = mount(ToolCard, { target: document.body, props: { card: largeCard('big3'), cardKey: 'k-big3' } });
    flushSync();
    showAllButton().click();
    await settle();
    const note = () => document.querySelector('[data-testid="tool-result-note"]')?.textContent ?? '';
    // A cut start is not JSON: shown as it came.
    expect([...document.querySelectorAll('pre.json')].map((p) => p.textContent)).toContain('{"content":"the first half kilobyte…');
    expect(note()).toContain('Showing the first 38 bytes of 3.0 MB.');
    button(/Save the whole result/).click();
    await settle();
    expect(commands.saveToolResult).toHaveBeenCalledWith('chat-1', 4, 'big3');
    expect(note()).toContain('Saved to /home/me/Downloads/Lango - read_text_file result.txt');
    button(/Show in folder/).click();
    await settle();
    expect(commands.showExport).toHaveBeenCalledWith('/home/me/Downloads/Lango - read_text_file result.txt');
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
