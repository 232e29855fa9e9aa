import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SearchHit, SearchResults } from '../../lib/api/types';

type Call = { query: string; offset: number; resolve: (r: SearchResults) => void };
const calls: Call[] = [];
vi.mock('../../lib/api/commands', () => ({
  search: (query: string, _key: string | null, _limit: number, offset: number) =>
    new Promise((resolve) => calls.push({ query, offset, resolve })),
}));

const { GlobalSearch } = await import('./search.svelte');

const hit = (id: number): SearchHit => ({
  sessionKey: `s${id % 3}`,
  sessionTitle: 't',
  kind: 'message',
  itemId: String(id),
  seq: id,
  snippet: '[w]',
  archived: false,
  at: 0,
  sessionUpdatedAt: 0,
});
const page = (ids: number[], more: boolean): SearchResults => ({
  hits: ids.map(hit),
  total: 120,
  totalIsLowerBound: false,
  more,
  unindexed: 0,
});

describe('the sidebar search', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    calls.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('never has more than one query on its way while typing', async () => {
    const s = new GlobalSearch();
    s.changed('r');
    await vi.advanceTimersByTimeAsync(200);
    for (const q of ['ru', 'rus', 'rust']) {
      s.changed(q);
      await vi.advanceTimersByTimeAsync(200);
    }
    expect(calls.map((c) => c.query)).toEqual(['r']);
    calls[0].resolve(page([1], false));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.query)).toEqual(['r', 'rust']);
    expect(s.hits).toEqual([]); // the answer for "r" is not shown for "rust"
    calls[1].resolve(page([2, 3], true));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.hits.map((h) => h.itemId)).toEqual(['2', '3']);
    expect(s.searching).toBe(false);
  });

  it('shows more by asking for the page after the hits shown', async () => {
    const s = new GlobalSearch();
    s.changed('word');
    await vi.advanceTimersByTimeAsync(200);
    calls[0].resolve(page([1, 2], true));
    await vi.advanceTimersByTimeAsync(0);
    const more = s.showMore();
    expect(calls[1]).toMatchObject({ query: 'word', offset: 2 });
    calls[1].resolve(page([3], false));
    await more;
    expect(s.hits.map((h) => h.itemId)).toEqual(['1', '2', '3']);
    expect(s.more).toBe(false);
  });

  it('clearing the box clears the results at once', async () => {
    const s = new GlobalSearch();
    s.changed('word');
    await vi.advanceTimersByTimeAsync(200);
    calls[0].resolve(page([1], true));
    await vi.advanceTimersByTimeAsync(0);
    s.changed('');
    expect(s.hits).toEqual([]);
    expect(s.active).toBe(false);
  });
});
