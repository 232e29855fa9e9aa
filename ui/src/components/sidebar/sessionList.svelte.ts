/**
 * The sidebar's conversations as loaded from the backend, a page at a time: the first page
 * with the window, the next when the rows shown reach the end of those loaded — so every
 * conversation is reachable however many there are (an import of thousands) — and a reload
 * when a conversation changed that keeps as many as were loaded. A page starts where the
 * one before ended (a `SessionCursor` of values, not an offset): a conversation moving to
 * the top between two pages neither comes twice nor pushes another out of sight.
 */

import { listSessions } from '../../lib/api/commands';
import type { SessionCursor, SessionSummary } from '../../lib/api/types';
import { toAppError, type AppError } from '../../lib/errors';

/** Conversations per page from the backend (the rows render fewer at a time). */
export const SESSION_PAGE = 500;

export class SessionList {
  sessions: SessionSummary[] = $state.raw([]);
  /** The first answer (or error) has come. */
  loaded = $state(false);
  /** Why the last load failed: a plain headline, the technical text as its detail. */
  error: AppError | null = $state(null);
  /** Where the next page starts; null once every conversation is loaded. */
  next: SessionCursor | null = $state.raw(null);
  loadingMore = $state(false);

  /** Bumped by each reload: a page asked for before it is dropped. */
  #generation = 0;

  /** The list from the top again, as many as were loaded (at least a page). */
  async reload() {
    const generation = ++this.#generation;
    try {
      const page = await listSessions(Math.max(SESSION_PAGE, this.sessions.length), null);
      if (generation !== this.#generation) return;
      this.sessions = page.sessions;
      this.next = page.next;
      this.error = null;
    } catch (e) {
      if (generation !== this.#generation) return;
      this.error = toAppError(e);
    } finally {
      if (generation === this.#generation) this.loaded = true;
    }
  }

  /**
   * The page after those loaded; nothing when all are, or while one is on its way. Throws
   * what the backend said when it fails (the caller shows it).
   */
  async loadMore() {
    const after = this.next;
    if (!after || this.loadingMore) return;
    const generation = this.#generation;
    this.loadingMore = true;
    try {
      const page = await listSessions(SESSION_PAGE, after);
      if (generation !== this.#generation) return;
      const shown = new Set(this.sessions.map((s) => s.key));
      this.sessions = [...this.sessions, ...page.sessions.filter((s) => !shown.has(s.key))];
      this.next = page.next;
    } finally {
      this.loadingMore = false;
    }
  }
}
