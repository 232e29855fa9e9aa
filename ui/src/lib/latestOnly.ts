/**
 * A lookup that follows typing: it runs a moment after the last keystroke, never twice at
 * once, and a keystroke while it runs makes it run once more afterwards (with whatever the
 * text is then) — so typing never queues more than one request. The caller's task reads the
 * current text itself and drops answers that are stale.
 */
export class LatestOnly {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #inFlight = false;
  #again = false;

  /**
   * `task` must not throw; `onSettled` runs when it finished and nothing else is waiting to
   * run (no rerun, no pending keystroke).
   */
  constructor(
    private readonly delayMs: number,
    private readonly task: () => Promise<void>,
    private readonly onSettled: () => void,
  ) {}

  /** Runs the task `delayMs` after the last call. */
  schedule(): void {
    this.cancel();
    this.#timer = setTimeout(() => void this.#run(), this.delayMs);
  }

  /** Drops a run that has not started. */
  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #run() {
    this.#timer = null;
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = true;
    try {
      await this.task();
    } finally {
      this.#inFlight = false;
      if (this.#again) {
        this.#again = false;
        void this.#run();
      } else if (!this.#timer) {
        this.onSettled();
      }
    }
  }
}
