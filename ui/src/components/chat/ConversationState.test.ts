import { describe, expect, it, vi } from 'vitest';
import { render } from 'svelte/server';
import type { AppStatus } from '../../lib/api/types';

vi.mock('../../lib/api/commands', () => ({}));

const { default: ConversationState } = await import('./ConversationState.svelte');
const { conversationViews } = await import('./conversation.svelte');

const status = { provider: 'openai', model: 'gpt-4o', memoryEnabled: false } as AppStatus;

describe('the welcome of an empty conversation', () => {
  it("names the app's default model until the conversation's own is known", () => {
    const { body } = render(ConversationState, { props: { kind: 'welcome', status, sessionKey: 's1' } });
    expect(body).toMatch(/<strong[^>]*>openai<\/strong>/);
    expect(body).toContain('gpt-4o');
  });

  it("names the provider and model this conversation uses when it has its own", () => {
    conversationViews.s2 = {
      settings: { provider: 'local', model: 'llama3' },
      effective: { provider: 'local', model: 'llama3', temperature: 0.7, maxTokens: 1, systemPrompt: '' },
      providers: [],
      usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
    };
    const { body } = render(ConversationState, { props: { kind: 'welcome', status, sessionKey: 's2' } });
    expect(body).toMatch(/<strong[^>]*>local<\/strong>/);
    expect(body).toContain('llama3');
    expect(body).not.toContain('gpt-4o');
  });
});
