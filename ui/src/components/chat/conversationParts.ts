/**
 * What a conversation's messages are shown with — the virtualised list, a message and its
 * tool cards, the live reply, the find bar — as one chunk, outside the start-up bundle: the
 * first screen (sidebar, welcome or first-run view, composer) shows no message, so a cold
 * start does not parse or run this code. `loadMessageView` (`messageView.ts`) loads it with
 * the Markdown renderer when a conversation's first page or a first turn is on its way.
 */
export { default as MessageList } from './MessageList.svelte';
export { default as MessageItem } from './MessageItem.svelte';
export { default as LiveMessage } from './LiveMessage.svelte';
export { default as PendingMessage } from './PendingMessage.svelte';
export { default as TurnError } from './TurnError.svelte';
export { default as ConversationStart } from './ConversationStart.svelte';
export { default as FindBar } from './FindBar.svelte';
export { default as ListOverlays } from './ListOverlays.svelte';
