import { describe, expect, it, vi } from 'vitest';
import { render } from 'svelte/server';
import type { ConversationView } from '../../lib/api/types';

vi.mock('../../lib/api/commands', () => ({}));

const { default: ConversationSettings } = await import('./ConversationSettings.svelte');

const view = (over: Partial<ConversationView> = {}): ConversationView => ({
  settings: {},
  effective: { provider: 'openai', model: 'gpt-4o', temperature: 0.7, maxTokens: 4096, systemPrompt: 'Be brief.' },
  providers: [
    { id: 'openai', kind: 'openai', defaultModel: 'gpt-4o-mini' },
    { id: 'local', kind: 'ollama', defaultModel: '' },
  ],
  usage: { inputTokens: 12000, outputTokens: 800, replies: 3, cost: 0.0345, unpricedReplies: 1 },
  ...over,
});

/** The markup without classes (Svelte adds scoped ones). */
const plain = (body: string) => body.replace(/ class="[^"]*"/g, '');

const props = (v: ConversationView | null, extra = {}) => ({ view: v, onSave: async () => {}, onClose: () => {}, ...extra });

describe('Conversation settings panel', () => {
  it('shows the defaults of Settings as placeholders while nothing is overridden', () => {
    const { body } = render(ConversationSettings, { props: props(view()) });
    expect(body).toContain('aria-label="Conversation settings"');
    expect(body).toMatch(/<input[^>]*id="conversation-temperature"[^>]*placeholder="0.7"/);
    expect(body).toMatch(/<input[^>]*id="conversation-max-tokens"[^>]*placeholder="4096"/);
    expect(body).toMatch(/<textarea[^>]*id="conversation-system-prompt"[^>]*placeholder="Be brief."/);
    expect(body).toMatch(/<input[^>]*id="conversation-model"[^>]*placeholder="Default from Settings \(gpt-4o\)"/);
    expect(body).toContain('id="conversation-settings-reset"');
    expect(body).toContain('Reset to defaults');
  });

  it("fills in the conversation's own values", () => {
    const { body } = render(ConversationSettings, {
      props: props(view({ settings: { provider: 'local', model: 'llama3', temperature: 0.2, maxTokens: 512, systemPrompt: 'Pirate.' } })),
    });
    expect(body).toMatch(/<option value="local" selected/);
    expect(body).toMatch(/<input[^>]*id="conversation-model"[^>]*value="llama3"/);
    expect(body).toMatch(/<input[^>]*id="conversation-temperature"[^>]*value="0.2"/);
    expect(body).toMatch(/<input[^>]*id="conversation-max-tokens"[^>]*value="512"/);
    expect(body).toContain('>Pirate.</textarea>');
  });

  it("shows the conversation's tokens, replies and cost, and how many replies had no price", () => {
    const body = plain(render(ConversationSettings, { props: props(view()) }).body);
    expect(body).toContain('<dt>Tokens in</dt><dd>12,000</dd>');
    expect(body).toContain('<dt>Tokens out</dt><dd>800</dd>');
    expect(body).toContain('<dt>Replies</dt><dd>3 replies</dd>');
    expect(body).toContain('<dt>Cost</dt><dd>$0.035</dd>');
    expect(body).toContain('1 reply without a price');
  });

  it('shows a dash, not $0, when no reply had a price', () => {
    const body = plain(
      render(ConversationSettings, {
        props: props(view({ usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 } })),
      }).body,
    );
    expect(body).toContain('<dt>Cost</dt><dd>—</dd>');
    expect(body).not.toContain('without a price');
  });

  it('says plainly when the settings could not be read', () => {
    const { body } = render(ConversationSettings, {
      props: props(null, { loadError: { code: 'db', message: 'The database is busy.', detail: 'SQLITE_BUSY' } }),
    });
    expect(body).toContain("Could not read this conversation's settings: The database is busy.");
    expect(body).toContain('SQLITE_BUSY');
    expect(body).not.toContain('id="conversation-settings-save"');
  });
});
