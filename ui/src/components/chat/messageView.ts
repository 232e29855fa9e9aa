/**
 * Loading what showing messages takes: the conversation's components (`conversationParts.ts`)
 * and the Markdown renderer, each a chunk of its own loaded once. `ChatView` shows a
 * conversation's list once `conversationParts.current` is in; opening a conversation waits
 * for both alongside its first page (`pages.svelte.ts`), so its replies never flash plain.
 */
import { LazyModule } from '../../lib/lazyModule.svelte';
import { loadMarkdown } from '../../lib/markdownLoader';

export type ConversationParts = typeof import('./conversationParts');

/** The conversation's components, once loaded (reactive). */
export const conversationParts = new LazyModule<ConversationParts>(() => import('./conversationParts'));

/** Loads both chunks (once); a failed load leaves the caller to show what it can. */
export async function loadMessageView(): Promise<void> {
  await Promise.all([conversationParts.load(), loadMarkdown()]);
}
