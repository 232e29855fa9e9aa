/**
 * The chat's Find, as pure functions: stepping through the matching messages (older with
 * Enter, newer with Shift+Enter, wrapping), the "3 of 17" label, and the text ranges to
 * highlight in the rows on screen.
 */

import { formatCount } from './numbers';

/** Where a new find starts: the newest match (a chat is read from the bottom). */
export function startIndex(count: number): number {
  return count > 0 ? count - 1 : -1;
}

/** The match after `index` towards older (`-1`) or newer (`+1`) messages, wrapping around. */
export function stepIndex(index: number, count: number, direction: -1 | 1): number {
  if (count === 0) return -1;
  if (index < 0) return startIndex(count);
  return (index + direction + count) % count;
}

/** "3 of 17", "No matches", or "20,000+"-style counts when the backend stopped counting. */
export function findLabel(index: number, count: number, truncated: boolean): string {
  if (count === 0) return 'No matches';
  const total = `${formatCount(count)}${truncated ? '+' : ''}`;
  return index < 0 ? `${total} matches` : `${formatCount(index + 1)} of ${total}`;
}

/**
 * Ranges of every case-insensitive occurrence of `needle` in the text under `root`
 * (within one text node: a match split by markup, e.g. half in bold, is not highlighted).
 */
export function textRanges(root: Node, needle: string): Range[] {
  const wanted = needle.toLowerCase();
  if (!wanted.trim()) return [];
  const doc = root.ownerDocument ?? (root as Document);
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const ranges: Range[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase();
    // Lowercasing keeps lengths for the scripts people search in; where it does not
    // (a few special letters), offsets past the end are skipped rather than misplaced.
    if (text.length !== (node.nodeValue ?? '').length) continue;
    for (let at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + wanted.length)) {
      const range = doc.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      ranges.push(range);
    }
  }
  return ranges;
}
