// Mounted and clicked (npm run test:dom): a very long message (a pasted log, an imported
// message of megabytes) shows its start; "Show more" draws up to 200,000 characters, saying
// how much that is of the whole; a jump to it (search, Find) opens it; Copy takes it all.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { MessageRow } from '../../lib/chatStream';

const clipboard = vi.hoisted(() => ({ copyText: vi.fn(async () => true) }));
vi.mock('./clipboard', () => clipboard);

const { default: MessageItem } = await import('./MessageItem.svelte');

let mounted: Record<string, unknown> | null = null;
afterEach(() => {
  if (mounted) unmount(mounted);
  mounted = null;
  document.body.innerHTML = '';
});

const log = Array.from({ length: 40_000 }, (_, i) => `2026-11-29 line ${i} of a pasted log`).join('\n');
const row = (key: string): MessageRow => ({
  key,
  seq: 3,
  role: 'user',
  content: log,
  status: 'complete',
  archived: false,
  createdAt: 1_700_000_000_000,
  author: 'user',
  tools: [],
  merged: false,
  reply: null,
});

const bubble = () => document.querySelector('.bubble')?.textContent ?? '';
const note = () => document.querySelector('[data-testid="long-message"]')?.textContent ?? '';
const button = (text: string) =>
  [...document.querySelectorAll('button')].find((b) => b.textContent?.includes(text)) as HTMLButtonElement;

describe('a very long message', () => {
  it('shows its start, then up to 200,000 characters on "Show more", then its start again', async () => {
    mounted = mount(MessageItem, { target: document.body, props: { row: row('m-long-1') } });
    flushSync();
    expect(bubble().length).toBeLessThanOrEqual(20_000);
    expect(bubble()).toContain('line 0 of a pasted log');
    button('Show more').click();
    await settle();
    expect(bubble().length).toBeGreaterThan(190_000);
    expect(bubble().length).toBeLessThanOrEqual(200_000);
    expect(bubble()).not.toContain('line 39999 of');
    expect(note()).toContain(`Showing the first 195.3 KB of ${(log.length / 1024 / 1024).toFixed(1)} MB; Copy takes all of it.`);
    button('Show less').click();
    await settle();
    expect(bubble().length).toBeLessThanOrEqual(20_000);
  });

  it('Copy takes the whole message', async () => {
    mounted = mount(MessageItem, { target: document.body, props: { row: row('m-long-2') } });
    flushSync();
    (document.querySelector('button[aria-label="Copy message"]') as HTMLButtonElement).click();
    await settle();
    expect(clipboard.copyText).toHaveBeenCalledWith(log);
  });

  it('a jump to the message (search, Find) opens it', async () => {
    mounted = mount(MessageItem, { target: document.body, props: { row: row('m-long-3'), highlighted: true } });
    await settle();
    expect(bubble().length).toBeGreaterThan(190_000);
  });
});
