/**
 * What the composer's context meter and memory chip show for the open conversation: the
 * latest "What the model sees" (asked for when a conversation opens, after each turn and
 * after each memory event), and whether its memory changed since the user last looked. An
 * answer for a conversation no longer open is dropped.
 */

import { inspect } from '../../lib/api/commands';
import type { InspectView } from '../../lib/api/types';

export class ContextMeter {
  view: InspectView | null = $state.raw(null);
  /** The memory changed (an observation, a reflection, a compaction) since the user looked. */
  memoryChanged = $state(false);

  /** Nothing shown: another conversation, or a new chat. */
  clear() {
    this.view = null;
    this.memoryChanged = false;
  }

  /** Asks for `key`'s view; kept only if `stillOpen()` says so when it comes. */
  async refresh(key: string, stillOpen: () => boolean) {
    try {
      const view = await inspect(key);
      if (stillOpen()) this.view = view;
    } catch {
      // The meter keeps its last value (or stays hidden).
    }
  }
}
