// Opening a conversation: its first page of messages is shown once the Markdown renderer's
// chunk is in (loaded alongside it), so the newest replies never flash as plain text first.
import { describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../lib/api/types';
import { markdownRenderer } from '../../lib/markdownLoader';

const reply = { seq: 2, role: 'assistant', content: '**Bold** reply' } as unknown as StoredMessage;
vi.mock('../../lib/api/commands', () => ({ pageMessages: vi.fn(async () => [reply]) }));

const { ConversationPages } = await import('./pages.svelte');

describe('opening a conversation', () => {
  it('shows its first page only with the Markdown renderer loaded', async () => {
    expect(markdownRenderer()).toBeNull();
    const pages = new ConversationPages();
    pages.open('chat-1');
    await vi.waitFor(() => expect(pages.messages).toHaveLength(1));
    expect(markdownRenderer()).not.toBeNull();
  });
});
