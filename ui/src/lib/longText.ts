/**
 * Long messages in the chat: how much of a message's text is drawn. A pasted log or an
 * imported message of megabytes froze the window for seconds while WebKit laid it out
 * (2.8 MB: 5 s), so a message over `COLLAPSED_CHARS` shows its start with "Show more", and
 * even shown in full it is drawn up to `EXPANDED_CHARS` (Copy and exports keep it whole).
 */

import { formatSize } from './recovery';

/** Drawn of a long message until the user asks for more (~10 ms to lay out). */
export const COLLAPSED_CHARS = 20_000;
/** The most drawn of one message (~0.4 s to lay out in the app: 500,000 characters took 0.9 s). */
export const EXPANDED_CHARS = 200_000;

export interface ShownText {
  text: string;
  /** Characters not drawn (0 = all of it). */
  hidden: number;
}

/** The part of `text` to draw: all of it, or its start cut at a line end when one is near. */
export function shownText(text: string, expanded: boolean): ShownText {
  const limit = expanded ? EXPANDED_CHARS : COLLAPSED_CHARS;
  if (text.length <= limit) return { text, hidden: 0 };
  let end = limit;
  const newline = text.lastIndexOf('\n', limit);
  if (newline > limit * 0.8) end = newline;
  // Never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), hidden: text.length - end };
}

/** "Show more (2.7 MB more)" for what is hidden (UTF-16 length as a size: near enough). */
export function showMoreLabel(hidden: number): string {
  return `Show more (${formatSize(hidden)} more)`;
}
