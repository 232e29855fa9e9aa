/**
 * The Markdown renderer (lib/markdown.ts: marked and DOMPurify, ~85 KB) as a chunk of its
 * own, loaded once, when first needed: the window shows no message at start-up, so it does
 * not parse, run or keep that code (~2 MB of the web process at idle) before then. Opening a
 * conversation loads it alongside the first page of messages, and a turn as the model starts
 * (`components/chat/messageView.ts`); a message shown before it is in shows its text
 * plain, then formatted (`Markdown.svelte`).
 */
import { LazyModule } from './lazyModule.svelte';

export type MarkdownRenderer = typeof import('./markdown');

const renderer = new LazyModule<MarkdownRenderer>(() => import('./markdown'));

/** The renderer when it has loaded, else null. */
export function markdownRenderer(): MarkdownRenderer | null {
  return renderer.current;
}

/** Loads the renderer once; a failed load is asked again by the next caller. */
export function loadMarkdown(): Promise<MarkdownRenderer> {
  return renderer.load();
}
