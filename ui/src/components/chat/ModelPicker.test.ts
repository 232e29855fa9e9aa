import { describe, expect, it, vi } from 'vitest';
import { render } from 'svelte/server';
import type { ConversationView } from '../../lib/api/types';

vi.mock('../../lib/api/commands', () => ({}));

const { default: ModelPicker } = await import('./ModelPicker.svelte');
const { providerModels, providerModelErrors } = await import('./conversation.svelte');

const view = (over: Partial<ConversationView> = {}): ConversationView => ({
  settings: { provider: 'local', model: 'llama3' },
  effective: { provider: 'local', model: 'llama3', temperature: 0.7, maxTokens: 4096, systemPrompt: '' },
  providers: [
    { id: 'openai', kind: 'openai', defaultModel: 'gpt-4o-mini' },
    { id: 'local', kind: 'ollama', defaultModel: '' },
  ],
  usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
  ...over,
});

describe('ModelPicker', () => {
  it("groups every configured provider's models and selects the conversation's own", () => {
    providerModels.openai = [{ id: 'gpt-4o', displayName: 'GPT-4o' }];
    const { body } = render(ModelPicker, { props: { view: view(), onChoose: async () => {} } });
    expect(body).toMatch(/<select[^>]*id="model-picker"[^>]*aria-label="Model"/);
    expect(body).toContain('<optgroup label="openai">');
    expect(body).toContain('<optgroup label="local">');
    expect(body).toContain('Default (gpt-4o-mini)');
    expect(body).toContain('>GPT-4o<');
    expect(body).toContain('Default (vendor default)');
    // The current choice, not listed by its provider yet, is there and selected.
    expect(body).toMatch(/<option[^>]*value="llama3"[^>]*selected[^>]*>llama3<\/option>/);
    delete providerModels.openai;
  });

  it("says when a provider's models could not be listed, keeping its default", () => {
    providerModelErrors.local = { code: 'offline', message: 'Ollama is not running.' };
    const { body } = render(ModelPicker, { props: { view: view(), onChoose: async () => {} } });
    expect(body).toContain('Models unavailable: Ollama is not running.');
    expect(body).toContain('Default (vendor default)');
    delete providerModelErrors.local;
  });

  it('renders model names from a server as text, never as markup', () => {
    providerModels.openai = [{ id: 'x', displayName: '<img src=x onerror=alert(1)>' }];
    const { body } = render(ModelPicker, { props: { view: view(), onChoose: async () => {} } });
    expect(body).not.toContain('<img src=x');
    delete providerModels.openai;
  });

  it('is disabled while the settings load', () => {
    const { body } = render(ModelPicker, { props: { view: null, onChoose: async () => {} } });
    expect(body).toMatch(/<select[^>]*disabled/);
    expect(body).toContain('Loading…');
  });
});
