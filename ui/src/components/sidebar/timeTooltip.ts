/**
 * The tooltip of a `<time>` in the sidebar: the full local date and time, formatted when the
 * pointer first comes over it. Formatting a date in the user's locale loads ICU's formatting
 * data into the web process (1.3–2.8 MB resident at idle, measured; the lower figure when the
 * local calendar's time-zone data is loaded anyway); a list of rows formatting every tooltip
 * as it renders paid that at start-up for tooltips nobody had opened.
 */

import type { Attachment } from 'svelte/attachments';
import { fullTime } from '../../lib/sessions';

export function fullTimeTooltip(timestamp: number): Attachment<HTMLElement> {
  return (node) => {
    const fill = () => {
      node.title = fullTime(timestamp);
    };
    node.addEventListener('pointerenter', fill, { once: true });
    return () => node.removeEventListener('pointerenter', fill);
  };
}
