import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const calls: Array<{ key: string; text: string; resolve: (seqs: number[]) => void }> = [];
vi.mock('../../lib/api/commands', () => ({
  findInSession: (key: string, text: string) =>
    new Promise((resolve) => calls.push({ key, text, resolve: (seqs) => resolve({ seqs, truncated: false }) })),
}));

const { ConversationFind } = await import('./find.svelte');

describe('the Find bar of a conversation', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    calls.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('asks once per pause in typing, never more than one request at a time', async () => {
    const find = new ConversationFind();
    for (const text of ['r', 'ru', 'rus']) find.changed('s', text);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls.map((c) => c.text)).toEqual(['rus']);

    // More typing while that request is on its way: only the latest text waits.
    for (const text of ['rust', 'rust b', 'rust bo']) {
      find.changed('s', text);
      await vi.advanceTimersByTimeAsync(200);
    }
    expect(calls.length).toBe(1);
    calls[0].resolve([1, 2]);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.text)).toEqual(['rus', 'rust bo']);
    calls[1].resolve([4, 8, 15]);
    await vi.advanceTimersByTimeAsync(0);
    expect(find.seqs).toEqual([4, 8, 15]);
    expect(find.searching).toBe(false);
  });

  it('starts at the newest match and steps to older ones', async () => {
    const find = new ConversationFind();
    find.changed('s', 'word');
    await vi.advanceTimersByTimeAsync(200);
    calls[0].resolve([3, 9, 27]);
    await vi.advanceTimersByTimeAsync(0);
    expect(find.current).toBe(27);
    expect(find.step(-1)).toBe(9);
    expect(find.step(1)).toBe(27);
    expect(find.step(1)).toBe(3);
  });

  it('drops an answer that arrives after the conversation changed', async () => {
    const find = new ConversationFind();
    find.changed('a', 'word');
    await vi.advanceTimersByTimeAsync(200);
    find.reset();
    calls[0].resolve([1]);
    await vi.advanceTimersByTimeAsync(0);
    expect(find.seqs).toEqual([]);
    expect(find.current).toBeNull();
  });
});
