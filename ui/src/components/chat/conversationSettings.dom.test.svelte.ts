// Mounted and clicked (npm run test:dom): the composer's model picker, the Conversation
// settings panel, "Regenerate with…" and Settings → Prices, against mocked commands.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, tick, unmount, type Component } from 'svelte';
import type { ConversationSettings, ConversationView } from '../../lib/api/types';
import type { PricesDocument } from '../../lib/prices';

const commands = vi.hoisted(() => ({
  conversationSettings: vi.fn(),
  setConversationSettings: vi.fn(),
  listModelsOf: vi.fn(),
  getSettingsDocument: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const { default: Dock } = await import('./Dock.svelte');
const { default: Panel } = await import('./ConversationSettings.svelte');
const { default: RegenerateButton } = await import('./RegenerateButton.svelte');
const { default: PricesSection } = await import('../settings/PricesSection.svelte');
const { newChat } = await import('./conversation.svelte');
const { dockProps } = await import('./dockProps.testing');

const settle = async () => {
  await new Promise((r) => setTimeout(r, 10));
  flushSync();
};

const view = (settings: ConversationSettings): ConversationView => ({
  settings,
  effective: { provider: 'fake', model: settings.model ?? '', temperature: 0.7, maxTokens: 4096, systemPrompt: 'Be brief.' },
  providers: [{ id: 'fake', kind: 'openai-compatible', defaultModel: '' }],
  usage: { inputTokens: 5, outputTokens: 6, replies: 1, cost: null, unpricedReplies: 1 },
});

let mounted: { component: ReturnType<typeof mount>; target: HTMLElement }[] = [];

function show<P extends Record<string, any>>(component: Component<P, any, any>, props: P): HTMLElement {
  const target = document.createElement('div');
  document.body.append(target);
  mounted.push({ component: mount(component, { target, props }), target });
  flushSync(); // effects (bind:this, focus) run as they would after the first frame
  return target;
}

afterEach(() => {
  for (const m of mounted) {
    unmount(m.component);
    m.target.remove();
  }
  mounted = [];
  for (const f of Object.values(commands)) f.mockReset();
});

function type(input: HTMLInputElement | HTMLTextAreaElement, value: string) {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('the composer of a new chat', () => {
  it('lists the models when the picker is opened, and picking one creates the conversation with that model', async () => {
    commands.getSettingsDocument.mockResolvedValue({
      agent: { provider: '', model: '', systemPrompt: '', temperature: 0.7, maxTokens: 100 },
      providers: { fake: { type: 'openai-compatible' } },
    });
    commands.listModelsOf.mockResolvedValue([
      { id: 'fake-model', displayName: 'fake-model' },
      { id: 'fake-model-large', displayName: 'fake-model-large' },
    ]);
    commands.setConversationSettings.mockImplementation(async (_key: string, s: ConversationSettings) => view(s));
    const ensureKey = vi.fn(async () => 'k1');
    const target = show(Dock, dockProps(null, ensureKey));
    await settle();
    const select = target.querySelector<HTMLSelectElement>('#model-picker')!;
    expect(select.disabled).toBe(false);
    expect(commands.listModelsOf).not.toHaveBeenCalled();
    select.dispatchEvent(new Event('mousedown', { bubbles: true }));
    await settle();
    expect(commands.listModelsOf).toHaveBeenCalledWith('fake');
    expect(select.querySelector('optgroup[label="fake"] option[value="fake-model-large"]')).not.toBeNull();

    select.value = 'fake-model';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(ensureKey).toHaveBeenCalledTimes(1);
    expect(commands.setConversationSettings).toHaveBeenCalledWith('k1', { provider: 'fake', model: 'fake-model' });

    const button = target.querySelector<HTMLButtonElement>('button[aria-label="Conversation settings"]')!;
    button.click();
    flushSync();
    expect(button.getAttribute('aria-expanded')).toBe('true');
    // The panel's code loads the first time it opens.
    await vi.waitFor(() => {
      flushSync();
      expect(target.querySelector('#conversation-settings')).not.toBeNull();
    });
  });

  it("shows the default model as soon as the settings arrive, in a select made with its options", async () => {
    let answer: (doc: unknown) => void = () => {};
    commands.getSettingsDocument.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    newChat.view = null; // as at start-up: nothing read yet
    const target = show(Dock, dockProps(null));
    const loading = target.querySelector<HTMLSelectElement>('#model-picker')!;
    expect(loading.disabled).toBe(true);
    expect(loading.selectedOptions[0]?.textContent).toBe('Loading…');

    answer({
      agent: { provider: 'fake', model: 'fake-model-large', systemPrompt: '', temperature: 0.7, maxTokens: 100 },
      providers: { fake: { type: 'openai-compatible' } },
    });
    await settle();
    const select = target.querySelector<HTMLSelectElement>('#model-picker')!;
    // A new element: WebKitGTK would keep showing "Loading…" on the old one until it was
    // laid out anew, a second layout at start-up.
    expect(select).not.toBe(loading);
    expect(select.disabled).toBe(false);
    expect(select.selectedOptions[0]?.textContent).toContain('fake-model-large');
  });
});

describe('the Conversation settings panel', () => {
  it('flags letters in a number as typed, and saves what was typed (empty = default)', async () => {
    const onSave = vi.fn(async () => {});
    const target = show(Panel, { view: view({}), onSave, onClose: () => {} });
    const temperature = target.querySelector<HTMLInputElement>('#conversation-temperature')!;
    const save = target.querySelector<HTMLButtonElement>('#conversation-settings-save')!;
    type(temperature, 'warm');
    expect(temperature.getAttribute('aria-invalid')).toBe('true');
    expect(target.querySelector('#conversation-temperature-hint')!.textContent).toContain('“warm” is not a number');
    expect(save.disabled).toBe(true);

    type(temperature, '0.3');
    type(target.querySelector<HTMLTextAreaElement>('#conversation-system-prompt')!, 'Answer in French.');
    target.querySelector('form')!.requestSubmit();
    await settle();
    expect(onSave).toHaveBeenCalledWith({
      provider: null,
      model: null,
      temperature: 0.3,
      maxTokens: null,
      systemPrompt: 'Answer in French.',
    });
    expect(target.textContent).toContain('Saved');
  });

  it('shows why the backend refused, in its words', async () => {
    const onSave = vi.fn(async () => {
      throw { code: 'invalid_conversation_settings', message: 'There is no provider “gone”.' };
    });
    const target = show(Panel, { view: view({ provider: 'gone' }), onSave, onClose: () => {} });
    target.querySelector<HTMLButtonElement>('#conversation-settings-reset')!.click();
    await settle();
    expect(onSave).toHaveBeenCalledWith({ provider: null, model: null, temperature: null, maxTokens: null, systemPrompt: null });
    expect(target.querySelector('[role="alert"]')!.textContent).toContain('There is no provider “gone”.');
  });

  it('closes on Escape', () => {
    const onClose = vi.fn();
    const target = show(Panel, { view: view({}), onSave: async () => {}, onClose });
    target
      .querySelector('#conversation-temperature')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(onClose).toHaveBeenCalled();
  });
});

describe('Regenerate', () => {
  it('is one click with the conversation’s model; the menu picks another for this reply', async () => {
    const onRegenerate = vi.fn();
    const target = show(RegenerateButton, {
      choices: [{ key: 'fake\nbig', label: 'fake · big', choice: { provider: 'fake', model: 'big' } }],
      onRegenerate,
    });
    target.querySelector<HTMLButtonElement>('#regenerate-button')!.click();
    expect(onRegenerate).toHaveBeenLastCalledWith(null);

    target.querySelector<HTMLButtonElement>('#regenerate-with-button')!.click();
    await tick();
    flushSync();
    const item = target.querySelector<HTMLButtonElement>('[role="menuitem"]')!;
    expect(document.activeElement).toBe(item);
    expect(item.textContent).toBe('fake · big');
    item.click();
    flushSync();
    expect(onRegenerate).toHaveBeenLastCalledWith({ provider: 'fake', model: 'big' });
    expect(target.querySelector('[role="menu"]')).toBeNull();
  });
});

describe('Settings → Prices', () => {
  it('adds a row into the document as numbers, and removing it clears the table', () => {
    const bound = $state<{ prices: PricesDocument | undefined }>({ prices: undefined });
    const target = show(PricesSection, {
      get prices() {
        return bound.prices;
      },
      set prices(value: PricesDocument | undefined) {
        bound.prices = value;
      },
      problems: [],
    });
    target.querySelector<HTMLButtonElement>('#prices-add')!.click();
    flushSync();
    const inputs = () => target.querySelectorAll<HTMLInputElement>('tbody input');
    type(inputs()[0], 'gpt-4o');
    type(inputs()[1], '2.5');
    type(inputs()[2], '10x');
    expect(target.textContent).toContain('“10x” is not a number');
    type(inputs()[2], '10');
    expect($state.snapshot(bound.prices)).toEqual({ 'gpt-4o': { input: 2.5, output: 10 } });

    target.querySelector<HTMLButtonElement>('button[aria-label="Remove the price of gpt-4o"]')!.click();
    flushSync();
    expect(bound.prices).toBeUndefined();
    expect(inputs()).toHaveLength(0);
  });
});
