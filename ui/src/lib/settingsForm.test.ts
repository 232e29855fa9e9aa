import { describe, expect, it } from 'vitest';
import type { SettingsDocument } from './api/types';
import {
  applyProviderDraft,
  baseUrlPlaceholder,
  cloneDocument,
  documentsEqual,
  effectiveAgentProvider,
  emptyProviderDraft,
  envVarName,
  errorLines,
  fieldMessage,
  hasErrors,
  isHttpUrl,
  keyDescription,
  keyLocationText,
  MEMORY_FIELDS,
  memoryFieldHint,
  normalizeProviderId,
  problemsFor,
  problemsUnder,
  providerDraftFrom,
  providerRows,
  rebaseDraft,
  removeProvider,
  SHOWN_FIELDS,
  suggestProviderId,
  unplacedProblems,
  validateProviderDraft,
} from './settingsForm';

function doc(extra: Partial<SettingsDocument> = {}): SettingsDocument {
  return {
    agent: { provider: '', model: '', systemPrompt: 'Be nice.', temperature: 0.7, maxTokens: 4096, maxTurns: 50 },
    providers: {},
    observationalMemory: {
      enabled: false,
      provider: '',
      model: '',
      messageTokenThreshold: 1000,
      observationTokenThreshold: 2000,
      maxMessageTokenBudget: 8000,
      maxReflectionsInContext: 5,
      maxObservationsInContext: 20,
      memoryTokenBudget: 4000,
      reflectionConsolidationThreshold: 5,
    },
    secrets: { allowFileStore: false },
    appearance: { theme: 'system' },
    ...extra,
  };
}

describe('documents', () => {
  it('clones deeply', () => {
    const a = doc();
    const b = cloneDocument(a);
    b.agent.model = 'x';
    expect(a.agent.model).toBe('');
  });

  it('compares regardless of key order', () => {
    expect(documentsEqual({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(documentsEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(documentsEqual(doc(), doc())).toBe(true);
  });
});

describe('provider form validation', () => {
  const draft = (over: Partial<ReturnType<typeof emptyProviderDraft>>) => ({ ...emptyProviderDraft(), ...over });

  it('accepts a valid id and type', () => {
    expect(validateProviderDraft(draft({ id: 'openai' }), [], null)).toEqual({});
    expect(validateProviderDraft(draft({ id: 'my_local-2' }), ['openai'], null)).toEqual({});
  });

  it('requires an id in [a-z0-9_-]+ (after trimming and lowercasing)', () => {
    expect(validateProviderDraft(draft({ id: '' }), [], null).id).toMatch(/Enter an id/);
    expect(validateProviderDraft(draft({ id: 'my provider' }), [], null).id).toMatch(/lowercase letters/);
    expect(validateProviderDraft(draft({ id: 'a.b' }), [], null).id).toBeDefined();
    expect(validateProviderDraft(draft({ id: 'é' }), [], null).id).toBeDefined();
    expect(validateProviderDraft(draft({ id: '  OpenAI ' }), [], null)).toEqual({});
  });

  it('refuses a duplicate id, except for the provider being edited', () => {
    expect(validateProviderDraft(draft({ id: 'openai' }), ['openai'], null).id).toMatch(/already exists/);
    expect(validateProviderDraft(draft({ id: 'OPENAI' }), ['openai'], null).id).toMatch(/already exists/);
    expect(validateProviderDraft(draft({ id: 'openai' }), ['openai'], 'openai')).toEqual({});
  });

  it('requires a known type', () => {
    expect(validateProviderDraft(draft({ id: 'x', type: 'bogus' }), [], null).type).toBeDefined();
  });

  it('checks the base URL, required for openai-compatible', () => {
    expect(validateProviderDraft(draft({ id: 'x', baseUrl: 'ftp://h' }), [], null).baseUrl).toBeDefined();
    expect(validateProviderDraft(draft({ id: 'x', baseUrl: 'not a url' }), [], null).baseUrl).toBeDefined();
    expect(validateProviderDraft(draft({ id: 'x', baseUrl: 'http://localhost:8000/v1' }), [], null)).toEqual({});
    expect(validateProviderDraft(draft({ id: 'x', type: 'openai-compatible' }), [], null).baseUrl).toMatch(
      /Required/,
    );
    expect(
      validateProviderDraft(draft({ id: 'x', type: 'openai-compatible', baseUrl: 'https://h/v1' }), [], null),
    ).toEqual({});
  });

  it('hasErrors ignores empty entries', () => {
    expect(hasErrors({})).toBe(false);
    expect(hasErrors({ id: undefined })).toBe(false);
    expect(hasErrors({ id: 'bad' })).toBe(true);
  });

  it('isHttpUrl', () => {
    expect(isHttpUrl('https://api.openai.com/v1')).toBe(true);
    expect(isHttpUrl(' http://127.0.0.1:11434 ')).toBe(true);
    expect(isHttpUrl('file:///etc/passwd')).toBe(false);
    expect(isHttpUrl('localhost:8000')).toBe(false);
  });

  it('normalises ids and suggests free ones', () => {
    expect(normalizeProviderId('  My-Ollama ')).toBe('my-ollama');
    expect(suggestProviderId('openai', [])).toBe('openai');
    expect(suggestProviderId('openai', ['openai', 'openai-2'])).toBe('openai-3');
    expect(suggestProviderId('openai-compatible', [])).toBe('custom');
  });

  it('has placeholders from the type defaults', () => {
    expect(baseUrlPlaceholder('openai')).toBe('https://api.openai.com/v1');
    expect(baseUrlPlaceholder('ollama')).toBe('http://localhost:11434/v1');
    expect(baseUrlPlaceholder('openai-compatible')).toMatch(/required/);
    expect(baseUrlPlaceholder('nope')).toBe('');
  });
});

describe('applyProviderDraft', () => {
  it('adds the first provider and makes the agent use it', () => {
    const next = applyProviderDraft(doc(), { id: ' OpenAI ', type: 'openai', baseUrl: '', defaultModel: 'gpt-4o' });
    expect(next.providers).toEqual({ openai: { type: 'openai', defaultModel: 'gpt-4o' } });
    expect(next.agent.provider).toBe('openai');
  });

  it('does not modify the input document', () => {
    const d = doc();
    applyProviderDraft(d, { id: 'openai', type: 'openai', baseUrl: '', defaultModel: '' });
    expect(d.providers).toEqual({});
    expect(d.agent.provider).toBe('');
  });

  it('keeps unknown fields of the document and of the edited entry', () => {
    const d = doc({ future: { x: 1 } } as Partial<SettingsDocument>);
    (d.providers as Record<string, unknown>).local = { type: 'ollama', baseUrl: 'http://h:1/v1', extra: true };
    d.agent.provider = 'local';
    const next = applyProviderDraft(d, { id: 'local', type: 'ollama', baseUrl: '', defaultModel: 'llama3' });
    expect(next.providers.local).toEqual({ type: 'ollama', defaultModel: 'llama3', extra: true });
    expect((next as Record<string, unknown>).future).toEqual({ x: 1 });
    expect(next.agent.maxTurns).toBe(50);
    expect(next.agent.provider).toBe('local');
  });

  it('leaves an explicit agent provider alone when adding another', () => {
    const d = doc();
    d.providers.openai = { type: 'openai' };
    d.agent.provider = 'openai';
    const next = applyProviderDraft(d, { id: 'claude', type: 'anthropic', baseUrl: '', defaultModel: '' });
    expect(next.agent.provider).toBe('openai');
    expect(Object.keys(next.providers).sort()).toEqual(['claude', 'openai']);
  });

  it('makes an implicit only provider explicit when a second is added', () => {
    const d = doc();
    d.providers.openai = { type: 'openai' };
    const next = applyProviderDraft(d, { id: 'claude', type: 'anthropic', baseUrl: '', defaultModel: '' });
    expect(next.agent.provider).toBe('openai');
    // Editing the only provider keeps the implicit choice.
    const edited = applyProviderDraft(d, { id: 'openai', type: 'openai', baseUrl: 'https://x/v1', defaultModel: '' });
    expect(edited.agent.provider).toBe('');
  });

  it('repairs an agent provider that names no provider', () => {
    const d = doc();
    d.providers.openai = { type: 'openai' };
    d.agent.provider = 'gone';
    expect(applyProviderDraft(d, { id: 'x', type: 'ollama', baseUrl: '', defaultModel: '' }).agent.provider).toBe('x');
  });
});

describe('removeProvider', () => {
  it('removes it and moves references away', () => {
    const d = doc();
    d.providers = { a: { type: 'openai' }, b: { type: 'ollama' } };
    d.agent.provider = 'a';
    d.observationalMemory.provider = 'a';
    const next = removeProvider(d, 'a');
    expect(Object.keys(next.providers)).toEqual(['b']);
    expect(next.agent.provider).toBe('b');
    expect(next.observationalMemory.provider).toBe('');
    expect(d.providers.a).toBeDefined();
  });

  it('leaves the agent without a provider when the last one goes', () => {
    const d = doc();
    d.providers = { a: { type: 'openai' } };
    d.agent.provider = 'a';
    expect(removeProvider(d, 'a').agent.provider).toBe('');
  });

  it('keeps other references', () => {
    const d = doc();
    d.providers = { a: { type: 'openai' }, b: { type: 'ollama' } };
    d.agent.provider = 'b';
    d.observationalMemory.provider = 'b';
    const next = removeProvider(d, 'a');
    expect(next.agent.provider).toBe('b');
    expect(next.observationalMemory.provider).toBe('b');
  });
});

describe('rebaseDraft', () => {
  it('applies a provider change to an edited draft, taking providers as saved', () => {
    const saved = doc();
    const draft = doc();
    draft.agent.systemPrompt = 'unsaved edit';
    const draftInput = { id: 'openai', type: 'openai', baseUrl: 'https://api.openai.com/v1/', defaultModel: '' };
    const savedAfter = cloneDocument(applyProviderDraft(saved, draftInput));
    savedAfter.providers.openai.baseUrl = 'https://api.openai.com/v1'; // normalised by the backend
    const next = rebaseDraft(draft, (d) => applyProviderDraft(d, draftInput), savedAfter);
    expect(next.agent.systemPrompt).toBe('unsaved edit');
    expect(next.agent.provider).toBe('openai');
    expect(next.providers).toEqual(savedAfter.providers);
    expect(draft.providers).toEqual({});
  });

  it('takes the MCP servers as saved, so saving other edits never undoes a tool policy', () => {
    const draft = doc({ mcpServers: { a: { command: 'x' } } });
    draft.agent.systemPrompt = 'unsaved edit';
    const saved = doc({ mcpServers: { a: { command: 'x', autoApprove: ['echo'] } } });
    const next = rebaseDraft(draft, (d) => d, saved);
    expect(next.mcpServers).toEqual({ a: { command: 'x', autoApprove: ['echo'] } });
    expect(next.agent.systemPrompt).toBe('unsaved edit');
    expect(rebaseDraft(draft, (d) => d, doc()).mcpServers).toBeUndefined();
  });
});

describe('provider rows', () => {
  it('lists providers sorted, with their key and effective base URL', () => {
    const d = doc();
    d.providers = { z: { type: 'ollama' }, a: { type: 'openai-compatible', baseUrl: 'http://h/v1' } };
    d.agent.provider = 'z';
    const rows = providerRows({
      settings: d,
      keys: [{ provider: 'a', location: { kind: 'keychain' }, description: 'stored in the OS keychain' }],
    });
    expect(rows.map((r) => r.id)).toEqual(['a', 'z']);
    expect(rows[0]).toMatchObject({ baseUrl: 'http://h/v1', defaultUrl: false, active: false });
    expect(rows[0].key?.location.kind).toBe('keychain');
    expect(rows[1]).toMatchObject({ baseUrl: 'http://localhost:11434/v1', defaultUrl: true, active: true, key: null });
    expect(rows[1].typeLabel).toBe('Ollama (local)');
  });

  it('finds the effective agent provider', () => {
    const d = doc();
    expect(effectiveAgentProvider(d)).toBe('');
    d.providers = { a: { type: 'openai' } };
    expect(effectiveAgentProvider(d)).toBe('a');
    d.providers.b = { type: 'openai' };
    expect(effectiveAgentProvider(d)).toBe('');
    d.agent.provider = 'b';
    expect(effectiveAgentProvider(d)).toBe('b');
  });

  it('reads a draft back into the form', () => {
    const d = doc();
    d.providers = { a: { type: 'gemini', defaultModel: 'g' } };
    expect(providerDraftFrom(d, 'a')).toEqual({ id: 'a', type: 'gemini', baseUrl: '', defaultModel: 'g' });
  });
});

describe('keys', () => {
  it('names the environment variable like the backend', () => {
    expect(envVarName('openai')).toBe('LANGO_OPENAI_API_KEY');
    expect(envVarName('my-ollama')).toBe('LANGO_MY_OLLAMA_API_KEY');
  });

  it('describes key locations', () => {
    expect(keyLocationText({ kind: 'keychain' })).toBe('Stored in the OS keychain');
    expect(keyLocationText({ kind: 'file', path: '/x/secrets.json' })).toBe('Stored unencrypted in /x/secrets.json');
    expect(keyLocationText({ kind: 'environment', var: 'LANGO_A_API_KEY' })).toMatch(/LANGO_A_API_KEY/);
    expect(keyLocationText({ kind: 'missing' })).toBe('No API key set');
  });

  it('capitalises the backend description', () => {
    expect(
      keyDescription({ provider: 'a', location: { kind: 'keychain' }, description: 'stored in the OS keychain' }),
    ).toBe('Stored in the OS keychain');
    expect(keyDescription({ provider: 'a', location: { kind: 'missing' }, description: 'not set' })).toBe(
      'No API key set',
    );
    expect(keyDescription(null)).toBe('No API key set');
  });
});

describe('problems', () => {
  const problems = [
    { field: 'observationalMemory.messageTokenThreshold', message: 'observationalMemory.messageTokenThreshold must be > 0, got -5' },
    { field: 'providers.openai.baseUrl', message: 'providers.openai.baseUrl is bad' },
    { field: 'agent.maxTokens', message: 'agent.maxTokens must be > 0, got 0' },
  ];

  it('finds problems by field and by prefix', () => {
    expect(problemsFor(problems, 'observationalMemory.messageTokenThreshold')).toHaveLength(1);
    expect(problemsFor(problems, 'observationalMemory')).toHaveLength(0);
    expect(problemsUnder(problems, 'providers.openai')).toHaveLength(1);
    expect(problemsUnder(problems, 'providers.open')).toHaveLength(0);
  });

  it('lists problems of fields not on screen', () => {
    expect(unplacedProblems(problems, SHOWN_FIELDS).map((p) => p.field)).toEqual([
      'providers.openai.baseUrl',
      'agent.maxTokens',
    ]);
  });

  it('shortens messages shown next to their field', () => {
    expect(fieldMessage(problems[0])).toBe('Must be > 0, got -5');
    expect(fieldMessage({ field: 'a.b', message: 'a.b' })).toBe('a.b');
    expect(fieldMessage({ field: 'providers.x', message: 'providers.y and providers.x clash' })).toBe(
      'providers.y and providers.x clash',
    );
  });

  it('splits an invalid_settings message into lines', () => {
    expect(errorLines('a must be 1\n\n b is bad \n')).toEqual(['a must be 1', 'b is bad']);
  });
});

describe('memory fields', () => {
  it('covers every threshold and budget of the document once', () => {
    const names = MEMORY_FIELDS.map((f) => f.name).sort();
    const docFields = Object.keys(doc().observationalMemory)
      .filter((k) => typeof doc().observationalMemory[k] === 'number')
      .sort();
    expect(names).toEqual(docFields);
  });

  it('explains what 0 means', () => {
    const unlimited = MEMORY_FIELDS.find((f) => f.name === 'maxObservationsInContext')!;
    const defaulted = MEMORY_FIELDS.find((f) => f.name === 'messageTokenThreshold')!;
    expect(memoryFieldHint(unlimited)).toMatch(/unlimited/);
    expect(memoryFieldHint(defaulted)).toMatch(/default \(1000\)/);
  });
});
