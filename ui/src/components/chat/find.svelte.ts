/**
 * The state of the chat's Find bar for the open conversation: the text, the matching
 * messages (asked from the backend, which searches every message, not only the loaded
 * pages), and which match is current. Typing never queues more than one request: while one
 * is on its way, only the latest text waits to go next.
 */

import { findInSession } from '../../lib/api/commands';
import { toAppError } from '../../lib/errors';
import { startIndex, stepIndex } from '../../lib/find';
import { LatestOnly } from '../../lib/latestOnly';

const DEBOUNCE_MS = 150;

export class ConversationFind {
  open = $state(false);
  text = $state('');
  seqs: number[] = $state.raw([]);
  truncated = $state(false);
  /** The current match (index into `seqs`); -1 = none. */
  index = $state(-1);
  searching = $state(false);
  error: string | null = $state(null);

  #key: string | null = null;
  #lookup = new LatestOnly(DEBOUNCE_MS, () => this.#run(), () => (this.searching = false));
  /** Bumped by reset(): answers for an earlier conversation or text are dropped. */
  #generation = 0;

  /** The current match's seq, or null. */
  get current(): number | null {
    return this.index >= 0 ? (this.seqs[this.index] ?? null) : null;
  }

  /** Closes the bar and forgets everything (another conversation was opened). */
  reset() {
    this.#generation += 1;
    this.#lookup.cancel();
    this.open = false;
    this.text = '';
    this.seqs = [];
    this.truncated = false;
    this.index = -1;
    this.searching = false;
    this.error = null;
  }

  /** The text changed: look it up in conversation `key` shortly. */
  changed(key: string | null, text: string) {
    this.#key = key;
    this.text = text;
    this.#lookup.cancel();
    if (!key || !text.trim()) {
      this.#generation += 1;
      this.seqs = [];
      this.index = -1;
      this.truncated = false;
      this.searching = false;
      this.error = null;
      return;
    }
    this.searching = true;
    this.#lookup.schedule();
  }

  async #run() {
    const key = this.#key;
    const text = this.text;
    if (!key || !text.trim()) return;
    const generation = this.#generation;
    try {
      const found = await findInSession(key, text);
      if (generation !== this.#generation || text !== this.text) return;
      this.seqs = found.seqs;
      this.truncated = found.truncated;
      this.index = startIndex(found.seqs.length);
      this.error = null;
    } catch (e) {
      if (generation === this.#generation) this.error = toAppError(e).message;
    }
  }

  /** Moves to the older (-1) or newer (+1) match; returns its seq. */
  step(direction: -1 | 1): number | null {
    this.index = stepIndex(this.index, this.seqs.length, direction);
    return this.current;
  }
}
