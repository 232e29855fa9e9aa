/**
 * The sidebar's search across every conversation: what was typed, the hits shown (pages
 * appended by "Show more"), the count and whether messages are still waiting for the index.
 * Typing never queues more than one query: while one is on its way only the latest text
 * waits to go next, and answers for an older text are dropped.
 */

import { search } from '../../lib/api/commands';
import type { SearchHit } from '../../lib/api/types';
import { toAppError, type AppError } from '../../lib/errors';
import { LatestOnly } from '../../lib/latestOnly';
import { appendPage } from '../../lib/searchResults';

const DEBOUNCE_MS = 150;
export const PAGE_SIZE = 50;

export class GlobalSearch {
  query = $state('');
  hits: SearchHit[] = $state.raw([]);
  total = $state(0);
  totalIsLowerBound = $state(false);
  more = $state(false);
  unindexed = $state(0);
  searching = $state(false);
  loadingMore = $state(false);
  /** Why the last search failed: a plain headline, the technical text as its detail. */
  error: AppError | null = $state(null);

  #lookup = new LatestOnly(DEBOUNCE_MS, () => this.#run(), () => (this.searching = false));
  /** Bumped by every new text: pages and answers of an older text are dropped. */
  #generation = 0;

  get active(): boolean {
    return this.query.trim() !== '';
  }

  /** The text changed (typing, clearing): search again shortly. */
  changed(query: string) {
    this.query = query;
    this.#generation += 1;
    this.#lookup.cancel();
    if (!this.active) {
      this.hits = [];
      this.total = 0;
      this.more = false;
      this.unindexed = 0;
      this.searching = false;
      this.error = null;
      return;
    }
    this.searching = true;
    this.#lookup.schedule();
  }

  /** The same text again (a conversation changed): refreshes the first page. */
  refresh() {
    if (this.active) this.changed(this.query);
  }

  async #run() {
    const generation = this.#generation;
    const query = this.query.trim();
    if (!query) return;
    try {
      const page = await search(query, null, PAGE_SIZE, 0);
      if (generation !== this.#generation) return;
      this.hits = page.hits;
      this.total = page.total;
      this.totalIsLowerBound = page.totalIsLowerBound;
      this.more = page.more;
      this.unindexed = page.unindexed;
      this.error = null;
    } catch (e) {
      if (generation !== this.#generation) return;
      this.hits = [];
      this.more = false;
      this.error = toAppError(e);
    }
  }

  /** The next page of hits, after those shown. */
  async showMore() {
    if (!this.more || this.loadingMore || this.searching) return;
    const generation = this.#generation;
    this.loadingMore = true;
    try {
      const page = await search(this.query.trim(), null, PAGE_SIZE, this.hits.length);
      if (generation !== this.#generation) return;
      this.hits = appendPage(this.hits, page.hits);
      this.more = page.more && page.hits.length > 0;
      this.total = page.total;
      this.totalIsLowerBound = page.totalIsLowerBound;
      this.unindexed = page.unindexed;
    } catch (e) {
      if (generation === this.#generation) this.error = toAppError(e);
    } finally {
      if (generation === this.#generation) this.loadingMore = false;
    }
  }

  /** Drops a deleted conversation's hits. */
  forget(sessionKey: string) {
    this.hits = this.hits.filter((h) => h.sessionKey !== sessionKey);
  }
}
