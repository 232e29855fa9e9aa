/**
 * What the sidebar's search shows, as pure functions: hits grouped by conversation (in the
 * order of each conversation's best hit, so the best match still comes first), pages merged
 * without repeats, and the count line ("500+ results", "indexing… 12 left").
 */

import type { SearchHit, SearchResults } from './api/types';
import { hitKey } from './sessions';
import { formatCount } from './numbers';

export interface HitGroup {
  sessionKey: string;
  sessionTitle: string;
  sessionUpdatedAt: number;
  hits: SearchHit[];
}

/** Hits of one conversation together, groups ordered by their best (first) hit. */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.sessionKey);
    if (!group) {
      group = {
        sessionKey: hit.sessionKey,
        sessionTitle: hit.sessionTitle,
        sessionUpdatedAt: hit.sessionUpdatedAt,
        hits: [],
      };
      groups.set(hit.sessionKey, group);
    }
    group.hits.push(hit);
  }
  return Array.from(groups.values());
}

/** A next page appended to what is shown; a hit already shown is not shown twice. */
export function appendPage(shown: readonly SearchHit[], page: readonly SearchHit[]): SearchHit[] {
  const seen = new Set(shown.map(hitKey));
  return [...shown, ...page.filter((h) => !seen.has(hitKey(h)))];
}

/** "3 results", "500+ results", with "indexing… n left" while messages wait for the index. */
export function countLine(results: Pick<SearchResults, 'total' | 'totalIsLowerBound' | 'unindexed'>): string {
  const n = formatCount(results.total);
  const count = `${n}${results.totalIsLowerBound ? '+' : ''} ${results.total === 1 && !results.totalIsLowerBound ? 'result' : 'results'}`;
  if (results.unindexed > 0) return `${count} · indexing… ${formatCount(results.unindexed)} left`;
  return count;
}
