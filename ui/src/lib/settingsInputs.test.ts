import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import MemorySection from '../components/settings/MemorySection.svelte';
import ProvidersSection from '../components/settings/ProvidersSection.svelte';
import { MEMORY_FIELDS, memoryFieldHint } from './settingsForm';
import {
  connectionTestSignature,
  isLocalUrl,
  keyStatus,
  parseMemoryCount,
  parseTemperature,
} from './settingsInputs';
import type { SettingsView } from './api/types';

const threshold = MEMORY_FIELDS.find((f) => f.name === 'messageTokenThreshold')!;
const observations = MEMORY_FIELDS.find((f) => f.name === 'maxObservationsInContext')!;

describe('number fields', () => {
  it('flag letters instead of dropping them', () => {
    expect(parseMemoryCount('12a', threshold)).toEqual({ ok: false, message: expect.stringContaining('not a whole number') });
    expect(parseMemoryCount('abc', threshold).ok).toBe(false);
    expect(parseMemoryCount('1e3', threshold).ok).toBe(false);
    expect(parseTemperature('warm').ok).toBe(false);
    expect(parseMemoryCount(' 1500 ', threshold)).toEqual({ ok: true, value: 1500 });
    expect(parseTemperature('0,5')).toEqual({ ok: true, value: 0.5 });
  });

  it('say about a negative number what the hint says about 0', () => {
    const negative = parseMemoryCount('-5', threshold);
    expect(negative.ok).toBe(false);
    if (negative.ok) return;
    expect(negative.message).not.toContain('> 0');
    expect(negative.message).toContain('0 = default (1000)');
    expect(memoryFieldHint(threshold)).toContain('0 = default (1000)');
    expect(parseMemoryCount('0', threshold)).toEqual({ ok: true, value: 0 });
    const unlimited = parseMemoryCount('-1', observations);
    expect(!unlimited.ok && unlimited.message).toContain('0 = unlimited');
  });

  it('show the flag in the memory section, never the backend’s contradicting "> 0"', () => {
    const memory = { enabled: true, provider: '', model: '', messageTokenThreshold: '12a', observationTokenThreshold: -5 };
    const problems = [
      { field: 'observationalMemory.messageTokenThreshold', message: 'observationalMemory.messageTokenThreshold must be an integer, got "12a"' },
      { field: 'observationalMemory.observationTokenThreshold', message: 'observationalMemory.observationTokenThreshold must be > 0, got -5' },
    ];
    const { body } = render(MemorySection, { props: { memory: memory as never, problems, providerIds: [], models: undefined } });
    expect(body).toMatch(/id="om-messageTokenThreshold"[^>]*value="12a"/);
    expect(body).toContain('“12a” is not a whole number');
    expect(body).toContain('Cannot be negative; 0 = default (2000).');
    expect(body).not.toContain('Must be &gt; 0');
    expect(body).not.toContain('Must be > 0');
  });
});

describe('providers that need no key', () => {
  it('knows local addresses', () => {
    for (const url of ['http://localhost:8080/v1', 'http://127.0.0.1:1234/v1', 'http://[::1]:8000', 'http://192.168.1.20:11434/v1', 'http://gpu.local:8000/v1']) {
      expect(isLocalUrl(url), url).toBe(true);
    }
    for (const url of ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'not a url', 'http://172.32.0.1/v1']) {
      expect(isLocalUrl(url), url).toBe(false);
    }
  });

  it('show a neutral note for a local server, and a problem for a hosted one', () => {
    const missing = { provider: 'x', location: { kind: 'missing' as const }, description: 'not set' };
    expect(keyStatus({ type: 'ollama', baseUrl: 'http://localhost:11434/v1', key: missing }, 'No API key set').tone).toBe('neutral');
    expect(keyStatus({ type: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', key: missing }, 'No API key set').tone).toBe('neutral');
    expect(keyStatus({ type: 'openai-compatible', baseUrl: 'https://api.together.xyz/v1', key: missing }, 'No API key set').tone).toBe('missing');
    expect(keyStatus({ type: 'openai', baseUrl: 'https://api.openai.com/v1', key: null }, 'No API key set').tone).toBe('missing');
  });

  it('render so in the provider list', () => {
    const view = {
      settings: {
        providers: {
          local: { type: 'ollama' },
          lms: { type: 'openai-compatible', baseUrl: 'http://localhost:1234/v1' },
          openai: { type: 'openai' },
        },
        agent: { provider: 'local' },
      },
      keys: ['local', 'lms', 'openai'].map((provider) => ({ provider, location: { kind: 'missing' }, description: 'not set' })),
      keychain: { available: true, reason: null, fileFallbackAllowed: false },
      loadError: null,
    } as unknown as SettingsView;
    const { body } = render(ProvidersSection, { props: { view, onApplied: () => {}, onModels: () => {} } });
    const line = (id: string) => body.match(new RegExp(`data-id="${id}"[\\s\\S]*?class="key-line[^"]*" data-tone="(\\w+)"[^>]*>[\\s\\S]*?key-location[^>]*>([^<]*)<`))!;
    expect(line('local')[1]).toBe('neutral');
    expect(line('lms')[1]).toBe('neutral');
    expect(line('lms')[2]).not.toContain('No API key set');
    expect(line('openai')[1]).toBe('missing');
  });
});

describe('an old "Test connection" result', () => {
  it('no longer applies once the URL, type, id or key changed', () => {
    const draft = { type: 'openai-compatible', id: 'lms', baseUrl: 'http://localhost:1234/v1' };
    const tested = connectionTestSignature(draft, 0);
    expect(connectionTestSignature({ ...draft }, 0)).toBe(tested);
    expect(connectionTestSignature({ ...draft, baseUrl: 'http://localhost:1235/v1' }, 0)).not.toBe(tested);
    expect(connectionTestSignature({ ...draft, type: 'ollama' }, 0)).not.toBe(tested);
    expect(connectionTestSignature(draft, 1)).not.toBe(tested);
  });
});
