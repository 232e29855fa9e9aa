/**
 * The loaded pages of the open conversation: the newest page first, older pages as the
 * user scrolls up (or seeks a search hit), the newest page reloaded after a turn. Every
 * switch of conversation bumps `generation`, so late answers for another one are dropped.
 */

import { pageMessages } from '../../lib/api/commands';
import type { StoredMessage } from '../../lib/api/types';
import { mergeNewest, mergeOlder } from '../../lib/chatStream';
import { toAppError } from '../../lib/errors';
import { loadMessageView } from './messageView';

/** Newest page size, and the page size used when seeking a search hit. */
const PAGE = 100;
const SEEK_PAGE = 500;

export class ConversationPages {
  /** The conversation shown; null = a new chat not sent yet. */
  key: string | null = $state(null);
  messages: StoredMessage[] = $state.raw([]);
  hasOlder = $state(false);
  loading = $state(false);
  loadingOlder = $state(false);
  loadError: string | null = $state(null);
  olderError: string | null = $state(null);
  /** Bumped on every switch of conversation. */
  generation = 0;

  #initialLoad: Promise<void> = Promise.resolve();
  #olderRequest: Promise<void> | null = null;

  /** Shows conversation `key` (null: a new chat), loading its newest page. */
  open(key: string | null) {
    this.generation += 1;
    this.key = key;
    this.messages = [];
    this.hasOlder = false;
    this.loading = false;
    this.loadingOlder = false;
    this.#olderRequest = null;
    this.loadError = null;
    this.olderError = null;
    this.#initialLoad = key ? this.#loadInitial(key) : Promise.resolve();
  }

  /** Takes over a conversation just created here (nothing to load yet). */
  adopt(key: string) {
    this.generation += 1;
    this.key = key;
    this.messages = [];
    this.hasOlder = false;
  }

  async #loadInitial(key: string) {
    const gen = this.generation;
    this.loading = true;
    try {
      // The first page is shown with what shows messages: the conversation's components and
      // the Markdown renderer load alongside it (once; without the renderer the messages show
      // plain, then formatted).
      const [page] = await Promise.all([pageMessages(key, null, PAGE), loadMessageView().catch(() => null)]);
      if (gen !== this.generation) return;
      this.messages = page;
      this.hasOlder = page.length === PAGE;
      this.loadError = null;
    } catch (e) {
      if (gen === this.generation) this.loadError = toAppError(e).message;
    } finally {
      if (gen === this.generation) this.loading = false;
    }
  }

  /** The newest page again, merged over what is loaded (after a turn or a memory change). */
  async reloadNewest(key: string) {
    const gen = this.generation;
    try {
      const page = await pageMessages(key, null, PAGE);
      if (gen !== this.generation || this.key !== key) return;
      if (this.messages.length === 0) this.hasOlder = page.length === PAGE;
      else if (page.length < PAGE) this.hasOlder = false;
      this.messages = mergeNewest(this.messages, page, PAGE);
      this.loadError = null;
    } catch {
      // Keep what is shown; the next turn or reopening reloads.
    }
  }

  loadOlder(limit = PAGE): Promise<void> {
    if (this.#olderRequest) return this.#olderRequest;
    const key = this.key;
    if (!key || !this.hasOlder || this.messages.length === 0) return Promise.resolve();
    const gen = this.generation;
    const before = this.messages[0].seq;
    this.loadingOlder = true;
    this.olderError = null;
    const request = (async () => {
      try {
        const page = await pageMessages(key, before, limit);
        if (gen !== this.generation || this.messages[0]?.seq !== before) return;
        this.messages = mergeOlder(this.messages, page);
        this.hasOlder = page.length === limit;
      } catch (e) {
        if (gen === this.generation) this.olderError = toAppError(e).message;
      } finally {
        if (gen === this.generation) {
          this.loadingOlder = false;
          this.#olderRequest = null;
        }
      }
    })();
    this.#olderRequest = request;
    return request;
  }

  /** The list scrolled near its top: load the page before, unless one is on its way or failed. */
  nearTop() {
    if (this.hasOlder && !this.#olderRequest && !this.olderError && !this.loading) void this.loadOlder();
  }

  retryOlder() {
    this.olderError = null;
    void this.loadOlder();
  }

  /**
   * Pages back until the message `seq` is loaded (or nothing older is left). False when the
   * user switched away from `key` meanwhile.
   */
  async seek(key: string, seq: number): Promise<boolean> {
    const gen = this.generation;
    await this.#initialLoad;
    while (gen === this.generation && this.hasOlder && this.messages.length > 0 && this.messages[0].seq > seq) {
      const before = this.messages[0].seq;
      await this.loadOlder(SEEK_PAGE);
      if (this.olderError || this.messages[0]?.seq === before) break;
    }
    return gen === this.generation && this.key === key;
  }
}
