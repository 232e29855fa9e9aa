/**
 * A conversation's own provider, model and settings, as the composer shows them: the model
 * picker's options grouped by provider, the choices of "Regenerate with…", and the
 * Conversation settings form (typed text ↔ `ConversationSettings`, empty = the default from
 * Settings). Pure functions; model names from servers are plain strings, shown as text.
 */

import type {
  ConversationSettings,
  ConversationView,
  ModelChoice,
  ModelEntry,
  ProviderChoice,
  SettingsDocument,
  StoredMessage,
} from './api/types';
import { effectiveAgentProvider } from './settingsForm';
import { parseTemperature, type ParsedNumber } from './settingsInputs';

// ---------------------------------------------------------------------------------------------
// The model picker

/** A provider and model as one key (a model id never holds a newline). */
export const choiceValue = (c: ModelChoice): string => `${c.provider}\n${c.model}`;

export function parseChoiceValue(value: string): ModelChoice | null {
  const at = value.indexOf('\n');
  return at <= 0 ? null : { provider: value.slice(0, at), model: value.slice(at + 1) };
}

export const sameChoice = (a: ModelChoice | null, b: ModelChoice | null): boolean =>
  !!a && !!b && a.provider === b.provider && a.model === b.model;

export interface ModelOption {
  /** The `<option value>`: the model id when only one provider offers it, else provider + id. */
  value: string;
  label: string;
  choice: ModelChoice;
}

export interface ModelOptionGroup {
  /** The provider id (the `<optgroup>` label). */
  provider: string;
  options: ModelOption[];
}

/** The label of a provider's default entry: "Default (gpt-4o-mini)", or the vendor's. */
export const defaultLabel = (p: Pick<ProviderChoice, 'defaultModel'>): string =>
  `Default (${p.defaultModel || 'vendor default'})`;

/**
 * The picker's options: per configured provider, its default ("" model), then its models as
 * listed (once each), and the current choice wherever it is missing (also under a provider no
 * longer configured), so the select always shows what the conversation uses. An option's
 * value is the plain model id when no other provider lists that id (what a user or a test
 * script expects), else provider and id together; defaults are always provider-qualified.
 */
export function modelOptionGroups(
  providers: readonly ProviderChoice[],
  modelsOf: Readonly<Record<string, readonly ModelEntry[] | undefined>>,
  current: ModelChoice | null,
): ModelOptionGroup[] {
  const groups: ModelOptionGroup[] = providers.map((p) => {
    const options: ModelOption[] = [{ value: '', label: defaultLabel(p), choice: { provider: p.id, model: '' } }];
    const seen = new Set<string>(['']);
    for (const m of modelsOf[p.id] ?? []) {
      if (!m.id || seen.has(m.id)) continue;
      seen.add(m.id);
      options.push({ value: '', label: m.displayName && m.displayName !== m.id ? m.displayName : m.id, choice: { provider: p.id, model: m.id } });
    }
    return { provider: p.id, options };
  });
  if (current) {
    let group = groups.find((g) => g.provider === current.provider);
    if (!group) {
      group = { provider: current.provider, options: [] };
      groups.push(group);
    }
    if (!group.options.some((o) => sameChoice(o.choice, current))) {
      group.options.push({ value: '', label: current.model || 'Default', choice: { ...current } });
    }
  }
  const providersOf = new Map<string, number>();
  for (const g of groups) for (const o of g.options) providersOf.set(o.choice.model, (providersOf.get(o.choice.model) ?? 0) + 1);
  for (const g of groups) {
    for (const o of g.options) {
      const unique = o.choice.model !== '' && providersOf.get(o.choice.model) === 1 && !o.choice.model.includes('\n');
      o.value = unique ? o.choice.model : choiceValue(o.choice);
    }
  }
  return groups;
}

/** The choice behind an option value of `groups`. */
export function optionChoice(groups: readonly ModelOptionGroup[], value: string): ModelChoice | null {
  for (const g of groups) for (const o of g.options) if (o.value === value) return o.choice;
  return null;
}

/** The option value of `choice` in `groups` ("" when it is not there). */
export function optionValue(groups: readonly ModelOptionGroup[], choice: ModelChoice | null): string {
  for (const g of groups) for (const o of g.options) if (sameChoice(o.choice, choice)) return o.value;
  return '';
}

/**
 * What the conversation uses now: its provider and model ("" = that provider's default, also
 * when the conversation chose "Default" and the backend names the model it resolved to).
 */
export function currentChoice(view: ConversationView | null): ModelChoice | null {
  if (!view || !view.effective.provider) return null;
  return { provider: view.effective.provider, model: view.settings.model === '' ? '' : view.effective.model };
}

/** The short name of the model a conversation uses, for the picker's tooltip. */
export function choiceLabel(choice: ModelChoice, providers: readonly ProviderChoice[]): string {
  if (choice.model) return `${choice.model} (${choice.provider})`;
  const p = providers.find((x) => x.id === choice.provider);
  return `${choice.provider}: ${p ? defaultLabel(p) : 'Default'}`;
}

/**
 * The conversation's settings with another provider and model. Choosing a provider's default
 * saves "" (that provider's default model), not null: null would mean the model of Settings,
 * which belongs to the default provider.
 */
export function withModel(settings: ConversationSettings, choice: ModelChoice): ConversationSettings {
  return { ...settings, provider: choice.provider, model: choice.model };
}

// ---------------------------------------------------------------------------------------------
// Regenerate with another model

export interface RegenerateChoice {
  key: string;
  label: string;
  choice: ModelChoice;
}

/**
 * What "Regenerate with…" offers: each configured provider's default model, then the models
 * that wrote replies in this conversation (newest first), each once.
 */
export function regenerateChoices(
  providers: readonly ProviderChoice[],
  messages: readonly Pick<StoredMessage, 'reply'>[],
): RegenerateChoice[] {
  const out: RegenerateChoice[] = [];
  const seen = new Set<string>();
  const add = (choice: ModelChoice, label: string) => {
    const key = choiceValue(choice);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ key, label, choice });
  };
  for (const p of providers) {
    add({ provider: p.id, model: p.defaultModel }, `${p.id} · ${p.defaultModel || 'default model'}`);
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const r = messages[i].reply;
    if (r && r.provider && r.model) add({ provider: r.provider, model: r.model }, `${r.provider} · ${r.model}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The Conversation settings form

/** The form as typed; "" = the default from Settings. */
export interface SettingsFormText {
  provider: string;
  model: string;
  temperature: string;
  maxTokens: string;
  systemPrompt: string;
}

export function formText(settings: ConversationSettings): SettingsFormText {
  const num = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) ? String(n) : '');
  return {
    provider: settings.provider ?? '',
    model: settings.model ?? '',
    temperature: num(settings.temperature),
    maxTokens: num(settings.maxTokens),
    systemPrompt: settings.systemPrompt ?? '',
  };
}

/** An optional temperature: empty = the default, else 0 to 2. */
export function parseOptionalTemperature(text: string): ParsedNumber | null {
  return text.trim() === '' ? null : parseTemperature(text);
}

/** An optional output limit: empty = the default, else a whole number above 0. */
export function parseOptionalMaxTokens(text: string): ParsedNumber | null {
  const t = text.trim().replace(/[,_\s]/g, '');
  if (t === '') return null;
  if (!/^-?\d+$/.test(t)) return { ok: false, message: `“${text.trim()}” is not a whole number: use digits only, or leave it empty for the default.` };
  const value = Number(t);
  if (value <= 0) return { ok: false, message: 'Must be at least 1 (empty = the default).' };
  if (value > 4294967295) return { ok: false, message: 'Too large.' };
  return { ok: true, value };
}

export type FormResult =
  | { ok: true; settings: ConversationSettings }
  | { ok: false; problems: Partial<Record<keyof SettingsFormText, string>> };

/**
 * The settings to save from the form. Empty fields are null (the default from Settings),
 * except the model of a chosen provider: empty = that provider's default ("").
 */
export function settingsFromForm(form: SettingsFormText): FormResult {
  const problems: Partial<Record<keyof SettingsFormText, string>> = {};
  const temperature = parseOptionalTemperature(form.temperature);
  const maxTokens = parseOptionalMaxTokens(form.maxTokens);
  if (temperature && !temperature.ok) problems.temperature = temperature.message;
  if (maxTokens && !maxTokens.ok) problems.maxTokens = maxTokens.message;
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  const text = (s: string) => (s.trim() === '' ? null : s.trim());
  return {
    ok: true,
    settings: {
      provider: text(form.provider),
      // A provider with no model typed: that provider's default (""), not the model of Settings.
      model: text(form.model) ?? (text(form.provider) ? '' : null),
      temperature: temperature?.ok ? temperature.value : null,
      maxTokens: maxTokens?.ok ? maxTokens.value : null,
      systemPrompt: form.systemPrompt.trim() === '' ? null : form.systemPrompt,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A new chat, before its conversation exists

/** What a conversation not created yet uses: the defaults of Settings, nothing spent. */
export function defaultView(doc: SettingsDocument): ConversationView {
  const providers = Object.entries(doc.providers ?? {}).map(([id, p]) => ({
    id,
    kind: p.type,
    defaultModel: p.defaultModel ?? '',
  }));
  return {
    settings: {},
    effective: {
      provider: effectiveAgentProvider(doc),
      model: doc.agent.model ?? '',
      temperature: doc.agent.temperature,
      maxTokens: doc.agent.maxTokens,
      systemPrompt: doc.agent.systemPrompt ?? '',
    },
    providers,
    usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
  };
}
