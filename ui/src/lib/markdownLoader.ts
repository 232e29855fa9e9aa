/**
 * The Markdown renderer (lib/markdown.ts: marked and DOMPurify, ~80 KB) as a chunk of its
 * own, loaded once: the window shows no message at start-up, so it does not parse or run
 * that code before it is usable. `main.ts` asks for it once the page has loaded, so it is
 * normally in before the user opens a conversation; until then a message shows as plain
 * text (`Markdown.svelte`).
 */

export type MarkdownRenderer = typeof import('./markdown');

let renderer: MarkdownRenderer | null = null;
let load: Promise<MarkdownRenderer> | null = null;

/** The renderer when it has loaded, else null. */
export function markdownRenderer(): MarkdownRenderer | null {
  return renderer;
}

/** Loads the renderer once; a failed load is asked again by the next caller. */
export function loadMarkdown(): Promise<MarkdownRenderer> {
  load ??= import('./markdown').then(
    (module) => (renderer = module),
    (e: unknown) => {
      load = null;
      throw e;
    },
  );
  return load;
}
