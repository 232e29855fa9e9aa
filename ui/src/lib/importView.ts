/**
 * Settings → Data → Import, as view models: the progress bar of an import and of building
 * the memory, the summary's sentences, the cost estimate in words, the sidebar's origin
 * label and which dropped file to take. Pure functions, unit-tested; the component renders.
 */

import type { BuildProgress, ImportProgress, ImportSource, ImportSummary, MemoryEstimate, SkipCount } from './api/types';
import { formatCount } from './numbers';

export interface ProgressView {
  /** Where the bar is, of `max` (null: indeterminate). */
  value: number | null;
  max: number;
  label: string;
}

const SOURCE_LABEL: Record<ImportSource, string> = { chatgpt: 'ChatGPT', claude: 'Claude' };

/** "ChatGPT", "Claude", or null for Lango's own conversations (and unknown names). */
export function originLabel(origin: string | null | undefined): string | null {
  return origin && Object.hasOwn(SOURCE_LABEL, origin) ? SOURCE_LABEL[origin as ImportSource] : null;
}

const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);

export function importProgressView(p: ImportProgress | null): ProgressView {
  if (!p) return { value: null, max: 1, label: 'Starting…' };
  if (p.type === 'reading') {
    return {
      value: p.totalBytes > 0 ? p.bytesRead : null,
      max: Math.max(p.totalBytes, 1),
      label: `Reading the file: ${mb(p.bytesRead)} of ${mb(p.totalBytes)} MB`,
    };
  }
  return {
    value: p.done,
    max: Math.max(p.total, 1),
    label: `Saving conversations: ${p.done} of ${p.total}`,
  };
}

export function buildProgressView(p: BuildProgress | null): ProgressView {
  if (!p) return { value: null, max: 1, label: 'Starting…' };
  return {
    value: p.done,
    max: Math.max(p.total, 1),
    label: `Building memory: ${p.done} of ${p.total} conversations, ${p.notes} ${p.notes === 1 ? 'note' : 'notes'}`,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** The summary's headline. */
export function summaryHeadline(s: ImportSummary): string {
  const parts = [plural(s.created, 'new conversation')];
  if (s.updated > 0) parts.push(`${formatCount(s.updated)} updated`);
  if (s.unchanged > 0) parts.push(`${formatCount(s.unchanged)} already imported`);
  const from = SOURCE_LABEL[s.source] ?? s.source;
  const stopped = s.cancelled ? ' Stopped before the end: what was saved is kept.' : '';
  return `Imported from ${from}: ${parts.join(', ')} — ${plural(s.messagesImported, 'message')}.${stopped}`;
}

/** One line per reason something was left out, with a few titles. */
export function skipLines(counts: SkipCount[]): string[] {
  return counts.map((c) => {
    const titles = c.titles.map((t) => `“${t}”`).join(', ');
    const more = c.count > c.titles.length && c.titles.length > 0 ? ', …' : '';
    return titles ? `${c.count} × ${c.description}: ${titles}${more}` : `${c.count} × ${c.description}`;
  });
}

export function notesLine(s: ImportSummary): string | null {
  if (s.notes === 0) return null;
  return `${plural(s.notes, 'image or file', 'images or files')} kept as a note such as [image: file-…]: Lango cannot show them.`;
}

export function estimateText(e: MemoryEstimate): string {
  if (e.observerCalls === 0) return 'Nothing to build: these conversations are too short to observe yet.';
  return (
    `This sends about ${formatCount(e.tokens)} tokens to the memory model: ${formatCount(e.observerTokens)} ` +
    `to the observer in ${plural(e.observerCalls, 'call')} for ${plural(e.sessions, 'conversation')}, ` +
    `and at most ${formatCount(e.reflectorTokensAtMost)} more for reflections.`
  );
}

/** The export among dropped files: a .json first, else the first file. */
export function droppedExport(paths: string[]): string | null {
  return paths.find((p) => p.toLowerCase().endsWith('.json')) ?? paths[0] ?? null;
}
