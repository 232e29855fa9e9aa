// Opening a conversation: its first page of messages is shown once what shows messages is in
// — the conversation's components and the Markdown renderer, each a chunk of its own loaded
// alongside it — so the list appears whole and the newest replies never flash as plain text.
import { describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../lib/api/types';
import { markdownRenderer } from '../../lib/markdownLoader';
import { conversationParts } from './messageView';

const reply = { seq: 2, role: 'assistant', content: '**Bold** reply' } as unknown as StoredMessage;
vi.mock('../../lib/api/commands', () => ({ pageMessages: vi.fn(async () => [reply]) }));

const { ConversationPages } = await import('./pages.svelte');

describe('opening a conversation', () => {
  it('shows its first page only with the Markdown renderer and the message list loaded', async () => {
    expect(markdownRenderer()).toBeNull();
    expect(conversationParts.current).toBeNull();
    const pages = new ConversationPages();
    pages.open('chat-1');
    // Generous: the first import of the chunks compiles their Svelte components in the test.
    await vi.waitFor(() => expect(pages.messages).toHaveLength(1), { timeout: 15_000 });
    expect(markdownRenderer()).not.toBeNull();
    expect(conversationParts.current?.MessageList).toBeTypeOf('function');
  }, 20_000);
});
