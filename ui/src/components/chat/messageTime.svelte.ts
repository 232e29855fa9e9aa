/**
 * The date and time under each message ("Dec 1, 2026, 9:20 PM", shown on hover), in the
 * user's locale. One formatter serves every message, and it is made only once messages have
 * been painted: in the window, the locale's date formatting takes 7–10 ms to load on first
 * use (ICU), which the first conversation opened paid before its messages could paint; and a
 * formatter made per message costs ~0.1 ms where a shared one takes a few microseconds. Until
 * that frame a message's time is empty; it is invisible until the pointer comes over it
 * anyway.
 */

import { afterNextPaint } from '../../lib/firstFrame';

const clock = $state({ ready: false });
let formatter: Intl.DateTimeFormat | null = null;
let scheduled = false;

/** Sets the clock going after the next frame has been painted (once). */
function startAfterPaint(): void {
  if (scheduled) return;
  scheduled = true;
  afterNextPaint(() => (clock.ready = true));
}

/** `createdAt` (ms since the epoch) as the message footer shows it; '' before the first paint. */
export function messageTime(createdAt: number | null | undefined): string {
  if (!createdAt) return '';
  if (!clock.ready) {
    startAfterPaint();
    return '';
  }
  formatter ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return formatter.format(createdAt);
}
