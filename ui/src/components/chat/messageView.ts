/**
 * Loading what showing messages takes: the conversation's components (`conversationParts.ts`)
 * and the Markdown renderer, each a chunk of its own loaded once. `ChatView` shows a
 * conversation's list once `conversationParts.current` is in; opening a conversation waits
 * for both alongside its first page (`pages.svelte.ts`), so its replies never flash plain.
 */
import type { Attachment } from 'svelte/attachments';
import { LazyModule } from '../../lib/lazyModule.svelte';
import { loadMarkdown } from '../../lib/markdownLoader';

export type ConversationParts = typeof import('./conversationParts');

/** The conversation's components, once loaded (reactive). */
export const conversationParts = new LazyModule<ConversationParts>(() => import('./conversationParts'));

/** Loads both chunks (once); a failed load leaves the caller to show what it can. */
export async function loadMessageView(): Promise<void> {
  await Promise.all([conversationParts.load(), loadMarkdown()]);
}

/**
 * For where a conversation is picked (the sidebar's lists): the pointer coming over it, or
 * the keyboard moving into it, starts loading what shows messages, so the click that opens a
 * conversation usually finds both chunks in (a pointer rests on a row for a tenth of a second
 * or more before it clicks); a click with no such warning loads them with the first page.
 */
export const loadMessageViewOnIntent: Attachment<HTMLElement> = (node) => {
  const load = () => void loadMessageView().catch(() => undefined);
  node.addEventListener('pointerenter', load, { once: true });
  node.addEventListener('focusin', load, { once: true });
  return () => {
    node.removeEventListener('pointerenter', load);
    node.removeEventListener('focusin', load);
  };
};
