import { describe, expect, it } from 'vitest';
import {
  choiceLabel,
  choiceValue,
  currentChoice,
  defaultView,
  formText,
  modelOptionGroups,
  optionChoice,
  optionValue,
  parseChoiceValue,
  parseOptionalMaxTokens,
  regenerateChoices,
  settingsFromForm,
  withModel,
} from './conversationSettings';
import type { ConversationView, ProviderChoice, SettingsDocument } from './api/types';

const providers: ProviderChoice[] = [
  { id: 'openai', kind: 'openai', defaultModel: 'gpt-4o-mini' },
  { id: 'local', kind: 'ollama', defaultModel: '' },
];

const view = (over: Partial<ConversationView> = {}): ConversationView => ({
  settings: {},
  effective: { provider: 'openai', model: 'gpt-4o', temperature: 0.7, maxTokens: 4096, systemPrompt: 'Be brief.' },
  providers,
  usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
  ...over,
});

const labels = (groups: ReturnType<typeof modelOptionGroups>) =>
  groups.map((g) => [g.provider, g.options.map((o) => o.label)]);

describe('model picker options', () => {
  it("groups every provider's default and its listed models, each once", () => {
    const groups = modelOptionGroups(
      providers,
      {
        openai: [
          { id: 'gpt-4o', displayName: 'GPT-4o' },
          { id: 'gpt-4o', displayName: 'GPT-4o' },
          { id: 'o3', displayName: 'o3' },
        ],
      },
      null,
    );
    expect(labels(groups)).toEqual([
      ['openai', ['Default (gpt-4o-mini)', 'GPT-4o', 'o3']],
      ['local', ['Default (vendor default)']],
    ]);
    expect(groups[0].options[1].choice).toEqual({ provider: 'openai', model: 'gpt-4o' });
  });

  it('always shows the current choice, before models are listed and under a removed provider', () => {
    expect(labels(modelOptionGroups(providers, {}, { provider: 'local', model: 'llama3' }))[1]).toEqual([
      'local',
      ['Default (vendor default)', 'llama3'],
    ]);
    expect(labels(modelOptionGroups(providers, {}, { provider: 'gone', model: 'x' })).at(-1)).toEqual(['gone', ['x']]);
    // The current choice already listed is not repeated.
    expect(modelOptionGroups(providers, {}, { provider: 'openai', model: '' })[0].options).toHaveLength(1);
  });

  it('uses the plain model id as the option value unless two providers list it', () => {
    const groups = modelOptionGroups(
      providers,
      { openai: [{ id: 'gpt-4o', displayName: '' }, { id: 'shared', displayName: '' }], local: [{ id: 'shared', displayName: '' }] },
      null,
    );
    expect(groups.map((g) => g.options.map((o) => o.value))).toEqual([
      ['openai\n', 'gpt-4o', 'openai\nshared'],
      ['local\n', 'local\nshared'],
    ]);
    expect(optionChoice(groups, 'gpt-4o')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(optionChoice(groups, 'local\nshared')).toEqual({ provider: 'local', model: 'shared' });
    expect(optionChoice(groups, 'nope')).toBeNull();
    expect(optionValue(groups, { provider: 'local', model: '' })).toBe('local\n');
    expect(optionValue(groups, { provider: 'x', model: 'y' })).toBe('');
  });

  it('encodes a provider and model as one key, both ways', () => {
    const c = { provider: 'openai', model: 'ft:gpt-4o:org:x' };
    expect(parseChoiceValue(choiceValue(c))).toEqual(c);
    expect(parseChoiceValue(choiceValue({ provider: 'openai', model: '' }))).toEqual({ provider: 'openai', model: '' });
    expect(parseChoiceValue('garbage')).toBeNull();
  });

  it('selects what the conversation uses, "Default" when it chose the provider default', () => {
    expect(currentChoice(view())).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(currentChoice(view({ settings: { provider: 'openai', model: '' } }))).toEqual({ provider: 'openai', model: '' });
    expect(currentChoice(null)).toBeNull();
    expect(choiceLabel({ provider: 'openai', model: '' }, providers)).toBe('openai: Default (gpt-4o-mini)');
  });

  it('saves a chosen model with its provider, keeping the other settings', () => {
    expect(withModel({ temperature: 0.2, model: 'a' }, { provider: 'local', model: '' })).toEqual({
      temperature: 0.2,
      provider: 'local',
      model: '',
    });
  });
});

describe('regenerate choices', () => {
  it("offers each provider's default, then the models that wrote replies here, newest first, once each", () => {
    const reply = (provider: string, model: string) => ({ reply: { provider, model, inputTokens: null, outputTokens: null, cost: null } });
    const choices = regenerateChoices(providers, [
      reply('openai', 'gpt-4o'),
      { reply: null },
      reply('local', 'llama3'),
      reply('openai', 'gpt-4o-mini'),
      reply('openai', 'gpt-4o'),
    ]);
    expect(choices.map((c) => c.label)).toEqual([
      'openai · gpt-4o-mini',
      'local · default model',
      'openai · gpt-4o',
      'local · llama3',
    ]);
    expect(choices[1].choice).toEqual({ provider: 'local', model: '' });
  });
});

describe('conversation settings form', () => {
  it('keeps empty fields as "use the default"', () => {
    const form = formText({});
    expect(form).toEqual({ provider: '', model: '', temperature: '', maxTokens: '', systemPrompt: '' });
    expect(settingsFromForm(form)).toEqual({
      ok: true,
      settings: { provider: null, model: null, temperature: null, maxTokens: null, systemPrompt: null },
    });
  });

  it('reads what was typed, and round-trips', () => {
    const settings = { provider: 'local', model: 'llama3', temperature: 0.2, maxTokens: 2048, systemPrompt: '  Talk like a pirate.\n' };
    const result = settingsFromForm(formText(settings));
    expect(result).toEqual({ ok: true, settings });
    // The provider's default model stays that provider's, not the model of Settings.
    expect(settingsFromForm(formText({ provider: 'local', model: '' }))).toMatchObject({ settings: { provider: 'local', model: '' } });
    expect(settingsFromForm({ ...formText({}), temperature: '1,5', maxTokens: '8,192' })).toMatchObject({
      ok: true,
      settings: { temperature: 1.5, maxTokens: 8192 },
    });
  });

  it('flags letters and values out of range instead of dropping them', () => {
    const result = settingsFromForm({ ...formText({}), temperature: '3', maxTokens: '2k' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.temperature).toContain('from 0 to 2');
    expect(result.problems.maxTokens).toContain('not a whole number');
    expect(parseOptionalMaxTokens('0')).toMatchObject({ ok: false });
    expect(parseOptionalMaxTokens(' ')).toBeNull();
  });
});

describe('a new chat', () => {
  it('uses the defaults of Settings and has spent nothing', () => {
    const doc = {
      agent: { provider: '', model: 'gpt-4o', systemPrompt: 'Hi', temperature: 0.5, maxTokens: 1000 },
      providers: { openai: { type: 'openai', defaultModel: 'gpt-4o-mini' } },
    } as unknown as SettingsDocument;
    const v = defaultView(doc);
    expect(v.effective).toEqual({ provider: 'openai', model: 'gpt-4o', temperature: 0.5, maxTokens: 1000, systemPrompt: 'Hi' });
    expect(v.providers).toEqual([{ id: 'openai', kind: 'openai', defaultModel: 'gpt-4o-mini' }]);
    expect(v.settings).toEqual({});
    expect(v.usage.replies).toBe(0);
  });
});
