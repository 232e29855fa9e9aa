// Mounted (npm run test:dom): the time under each message is in the user's locale, comes
// after the first frame that shows the messages, and every message shares one formatter
// (the first use of the locale's date formatting took ~10 ms before the first conversation's
// messages could be painted, and a formatter per message ~0.1 ms each).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { MessageRow } from '../../lib/chatStream';

const { default: MessageItem } = await import('./MessageItem.svelte');

const mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = '';
  vi.restoreAllMocks();
});

const at = (i: number) => 1_700_000_000_000 + i * 61_000;
const row = (i: number): MessageRow => ({
  key: `m-${i}`,
  seq: i,
  role: i % 2 ? 'assistant' : 'user',
  content: `message ${i}`,
  status: 'complete',
  archived: false,
  createdAt: at(i),
  author: i % 2 ? 'assistant' : 'user',
  tools: [],
  merged: false,
  reply: null,
});
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));

describe('the time under a message', () => {
  it('appears after the first frame, in the user locale, with one formatter for every message', async () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    for (let i = 1; i <= 20; i++) mounted.push(mount(MessageItem, { target: document.body, props: { row: row(i) } }));
    flushSync();
    const times = () => [...document.querySelectorAll('time.time')];
    // Before the messages are painted: no time yet, and the locale's formatting not touched.
    expect(times()).toHaveLength(0);
    expect(made).not.toHaveBeenCalled();

    await twoFrames();
    flushSync();
    expect(times()).toHaveLength(20);
    times().forEach((t, i) => {
      expect(t.textContent).toBe(new Date(at(i + 1)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
      expect(t.getAttribute('datetime')).toBe(new Date(at(i + 1)).toISOString());
    });
    expect(made).toHaveBeenCalledTimes(1);

    // A message rendered later shows its time at once, with the same formatter.
    mounted.push(mount(MessageItem, { target: document.body, props: { row: row(21) } }));
    flushSync();
    expect(times()).toHaveLength(21);
    expect(made).toHaveBeenCalledTimes(1);
  });
});
