// Mounted and clicked (npm run test:dom): "Test connection" in the provider form — the models
// the provider lists become buttons that set the default model; a failure says why, with the
// technical detail folded away — against mocked commands.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { SettingsView } from '../../lib/api/types';

const commands = vi.hoisted(() => ({
  testConnection: vi.fn(),
  deleteApiKey: vi.fn(),
  getSettings: vi.fn(),
  saveSettings: vi.fn(),
  setApiKey: vi.fn(),
  validateSettings: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const { default: ProviderForm } = await import('./ProviderForm.svelte');

const view = {
  settings: {
    providers: { local: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1' } },
    agent: { provider: 'local' },
  },
  keys: [{ provider: 'local', location: { kind: 'missing' }, description: 'not set' }],
  keychain: { available: true, reason: null, fileFallbackAllowed: false },
  loadError: null,
} as unknown as SettingsView;

let target: HTMLElement;
let form: ReturnType<typeof mount> | null = null;
const onModels = vi.fn();
const q = <T extends Element>(css: string) => target.querySelector<T>(css);

beforeEach(() => {
  vi.clearAllMocks();
  target = document.createElement('div');
  document.body.append(target);
  form = mount(ProviderForm, {
    target,
    props: { view, initialId: 'local', onApplied: vi.fn(), onModels, onDone: vi.fn(), onCancel: vi.fn() },
  });
  flushSync();
});

afterEach(() => {
  if (form) unmount(form);
  form = null;
  target.remove();
});

describe('testing a provider connection', () => {
  it('lists the models; clicking one makes it the default model, shown as chosen', async () => {
    commands.testConnection.mockResolvedValue([
      { id: 'qwen2.5-7b', displayName: 'Qwen 2.5 7B' },
      { id: 'llama3.1-8b', displayName: 'llama3.1-8b' },
    ]);
    q<HTMLButtonElement>('#test-connection')!.click();
    await settle();
    expect(commands.testConnection).toHaveBeenCalledWith(expect.anything(), 'local', null);
    expect(onModels).toHaveBeenCalledWith('local', expect.any(Array));
    expect(q('#test-connection-ok')!.textContent).toContain('2 models available');
    const picks = [...target.querySelectorAll<HTMLButtonElement>('.model-pick')];
    expect(picks.map((b) => b.textContent)).toEqual(['qwen2.5-7b', 'llama3.1-8b']);
    expect(picks[0].title).toBe('Qwen 2.5 7B');
    picks[1].click();
    flushSync();
    expect(q<HTMLInputElement>('#provider-default-model')!.value).toBe('llama3.1-8b');
    expect(picks[1].getAttribute('aria-pressed')).toBe('true');
    expect(picks[0].getAttribute('aria-pressed')).toBe('false');
  });

  it('says why the connection failed, the technical detail folded away', async () => {
    commands.testConnection.mockRejectedValue({
      code: 'provider_unreachable',
      message: "Nothing answered at the provider's address.",
      detail: 'error sending request for url (http://127.0.0.1:8080/v1/models): connection refused',
    });
    q<HTMLButtonElement>('#test-connection')!.click();
    await settle();
    const error = q('#test-connection-error')!;
    expect(error.textContent).toContain("Connection failed. Nothing answered at the provider's address.");
    expect(error.textContent).not.toContain('connection refused');
    const details = q<HTMLDetailsElement>('#test-connection-detail');
    expect(details?.open).toBe(false);
    expect(details?.textContent).toContain('connection refused');
  });
});
