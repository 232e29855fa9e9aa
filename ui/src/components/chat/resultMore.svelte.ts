/**
 * A tool card's "Show all" and "Save the whole result to a file": the state behind them.
 * A result small enough is on the page whole and "Show all" only unfolds it; a large one
 * (`card.resultRest`) has only its start on the page, so "Show all" reads more from the
 * engine — all of it, or its first 512 KB when larger (laying out megabytes of text froze
 * the window for seconds) — and the whole one can be saved to a file in Downloads.
 *
 * Whether a card shows all, and the few results read last, outlive the card's component
 * (the virtual list unmounts cards scrolled away).
 */

import { saveToolResult, showExport, toolResult } from '../../lib/api/commands';
import { prettyJson } from '../../lib/chatStream';
import { toAppError } from '../../lib/errors';
import { hideShownImageData, type ToolCardModel } from '../../lib/toolCards';

/** What "Show all" shows of a large result. */
export interface ShownResult {
  text: string;
  /** The whole result's size when `text` is only its start; null when whole. */
  cutFrom: number | null;
  /** The size of `text` in bytes. */
  shownBytes: number;
}

const showingAll = new Set<string>();
const readResults = new Map<string, ShownResult>();
const KEPT_RESULTS = 3;

export class ResultMore {
  whole: ShownResult | null = $state(null);
  showAll = $state(false);
  loading = $state(false);
  error = $state('');
  saving = $state(false);
  savedPath = $state('');
  saveError = $state('');

  readonly #cardKey: string;
  readonly #card: () => ToolCardModel;

  constructor(cardKey: string, card: () => ToolCardModel) {
    this.#cardKey = cardKey;
    this.#card = card;
    this.whole = readResults.get(cardKey) ?? null;
    // A large result shown before is read again only when asked.
    this.showAll = showingAll.has(cardKey) && (card().resultRest === null || this.whole !== null);
  }

  async toggle() {
    const rest = this.#card().resultRest;
    if (!this.showAll && rest && this.whole === null) {
      this.loading = true;
      this.error = '';
      try {
        const part = await toolResult(rest.sessionKey, rest.seq, rest.callId);
        const shown: ShownResult = {
          // A cut start is not JSON: shown as it is.
          text: part.complete ? prettyJson(hideShownImageData(part.text)) : part.text,
          cutFrom: part.complete ? null : part.bytes,
          shownBytes: new TextEncoder().encode(part.text).length,
        };
        readResults.set(this.#cardKey, shown);
        while (readResults.size > KEPT_RESULTS) readResults.delete(readResults.keys().next().value as string);
        this.whole = shown;
      } catch (reason) {
        this.error = `The whole result could not be read: ${toAppError(reason).message}`;
        return;
      } finally {
        this.loading = false;
      }
    }
    this.showAll = !this.showAll;
    if (this.showAll) showingAll.add(this.#cardKey);
    else showingAll.delete(this.#cardKey);
  }

  async save() {
    const rest = this.#card().resultRest;
    if (!rest) return;
    this.saving = true;
    this.saveError = '';
    try {
      this.savedPath = (await saveToolResult(rest.sessionKey, rest.seq, rest.callId)).path;
    } catch (reason) {
      this.saveError = `The result could not be saved: ${toAppError(reason).message}`;
    } finally {
      this.saving = false;
    }
  }

  async reveal() {
    try {
      await showExport(this.savedPath);
    } catch (reason) {
      this.saveError = toAppError(reason).message;
    }
  }
}
