import { describe, expect, it } from 'vitest';
import type { SearchHit } from './api/types';
import { appendPage, countLine, groupHits } from './searchResults';

const hit = (sessionKey: string, itemId: string): SearchHit => ({
  sessionKey,
  sessionTitle: `Title ${sessionKey}`,
  kind: 'message',
  itemId,
  seq: Number(itemId),
  snippet: `[x] ${itemId}`,
  archived: false,
  at: 1000,
  sessionUpdatedAt: 2000,
});

describe('search results in the sidebar', () => {
  it('groups the hits of one conversation, ordered by each one’s best hit', () => {
    const groups = groupHits([hit('b', '1'), hit('a', '2'), hit('b', '3'), hit('c', '4'), hit('a', '5')]);
    expect(groups.map((g) => [g.sessionKey, g.hits.map((h) => h.itemId)])).toEqual([
      ['b', ['1', '3']],
      ['a', ['2', '5']],
      ['c', ['4']],
    ]);
  });

  it('appends the next page without showing a hit twice', () => {
    const shown = [hit('a', '1'), hit('a', '2')];
    expect(appendPage(shown, [hit('a', '2'), hit('b', '3')]).map((h) => h.itemId)).toEqual(['1', '2', '3']);
  });

  it('says how many match, "+" when counting stopped, and what is still being indexed', () => {
    expect(countLine({ total: 1, totalIsLowerBound: false, unindexed: 0 })).toBe('1 result');
    expect(countLine({ total: 37, totalIsLowerBound: false, unindexed: 0 })).toBe('37 results');
    expect(countLine({ total: 1000, totalIsLowerBound: true, unindexed: 0 })).toBe('1,000+ results');
    expect(countLine({ total: 2, totalIsLowerBound: false, unindexed: 1500 })).toBe('2 results · indexing… 1,500 left');
  });
});
