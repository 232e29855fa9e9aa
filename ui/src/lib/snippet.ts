/**
 * Search snippets. The backend wraps each match in `[` `]` (SQLite FTS5 `snippet()`), and the
 * text is plain text, never HTML: the sidebar turns the parts below into text nodes and
 * `<mark>` elements, so nothing in a message can ever become markup.
 */

export interface SnippetPart {
  text: string;
  /** A search match (shown highlighted). */
  match: boolean;
}

/** A match: `[`, at least one character that is not a bracket, `]`. */
const MATCH = /\[([^[\]]+)\]/g;

/**
 * Splits a snippet into plain and matching parts, in order, without the brackets. A bracket
 * that does not enclose a match (`[`, `]`, `[]`, `a[b`) is kept as text. Adjacent parts of
 * the same kind are merged; empty parts are dropped.
 */
export function splitSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const push = (text: string, match: boolean) => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last && last.match === match) last.text += text;
    else parts.push({ text, match });
  };
  let at = 0;
  for (const m of snippet.matchAll(MATCH)) {
    const index = m.index ?? 0;
    push(snippet.slice(at, index), false);
    push(m[1], true);
    at = index + m[0].length;
  }
  push(snippet.slice(at), false);
  return parts;
}

/** The snippet as it reads, without the match markers (for titles and screen readers). */
export function snippetText(snippet: string): string {
  return splitSnippet(snippet)
    .map((p) => p.text)
    .join('');
}
