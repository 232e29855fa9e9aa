/**
 * The settings screen's pure logic: copying and comparing the settings document, the provider
 * form (validation, applying it to a document, removing a provider), matching validation
 * problems to fields, and describing where an API key lives.
 *
 * Documents are always edited as whole copies: fields the screen does not know (newer
 * settings, `agent.subAgents`…) go back to the backend exactly as they came. API keys are
 * never part of a document.
 */

import type { KeyLocation, Problem, ProviderKey, SettingsDocument, SettingsView } from './api/types';

// ---------------------------------------------------------------------------------------------
// Documents

/** A deep, plain copy (also of Svelte `$state` proxies). */
export function cloneDocument<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc)) as T;
}

/** JSON text with object keys sorted, so equal documents compare equal whatever the key order. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v as Record<string, unknown>).sort()) {
        sorted[k] = (v as Record<string, unknown>)[k];
      }
      return sorted;
    }
    return v;
  });
}

export function documentsEqual(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

// ---------------------------------------------------------------------------------------------
// Provider types

export interface ProviderTypeInfo {
  value: string;
  label: string;
  /** Used when `baseUrl` is empty; null = the type needs a `baseUrl`. */
  defaultBaseUrl: string | null;
  needsKey: boolean;
}

/** Mirrors `crates/lango-core/src/config/provider_type.rs`. */
export const PROVIDER_TYPES: readonly ProviderTypeInfo[] = [
  { value: 'openai', label: 'OpenAI', defaultBaseUrl: 'https://api.openai.com/v1', needsKey: true },
  { value: 'anthropic', label: 'Anthropic', defaultBaseUrl: 'https://api.anthropic.com', needsKey: true },
  {
    value: 'gemini',
    label: 'Google Gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    needsKey: true,
  },
  { value: 'ollama', label: 'Ollama (local)', defaultBaseUrl: 'http://localhost:11434/v1', needsKey: false },
  { value: 'openai-compatible', label: 'OpenAI-compatible server', defaultBaseUrl: null, needsKey: true },
];

export function providerTypeInfo(type: string): ProviderTypeInfo | undefined {
  return PROVIDER_TYPES.find((t) => t.value === type);
}

export function providerTypeLabel(type: string): string {
  return providerTypeInfo(type)?.label ?? type;
}

/** The placeholder of the base URL input: the type's default, or an example when required. */
export function baseUrlPlaceholder(type: string): string {
  const info = providerTypeInfo(type);
  if (!info) return '';
  return info.defaultBaseUrl ?? 'http://localhost:8000/v1 (required)';
}

// ---------------------------------------------------------------------------------------------
// Provider form

export const PROVIDER_ID_PATTERN = /^[a-z0-9_-]+$/;

export interface ProviderDraft {
  id: string;
  type: string;
  baseUrl: string;
  defaultModel: string;
}

export type ProviderDraftErrors = Partial<Record<'id' | 'type' | 'baseUrl', string>>;

/** Ids are stored trimmed and lowercased (the backend normalises them the same way). */
export function normalizeProviderId(id: string): string {
  return id.trim().toLowerCase();
}

export function emptyProviderDraft(type = 'openai'): ProviderDraft {
  return { id: '', type, baseUrl: '', defaultModel: '' };
}

export function providerDraftFrom(doc: SettingsDocument, id: string): ProviderDraft {
  const entry = doc.providers[id];
  return {
    id,
    type: entry?.type ?? 'openai',
    baseUrl: entry?.baseUrl ?? '',
    defaultModel: entry?.defaultModel ?? '',
  };
}

/** `openai`, or `openai-2`, `openai-3`… when taken; `custom` for OpenAI-compatible servers. */
export function suggestProviderId(type: string, existingIds: readonly string[]): string {
  const base = type === 'openai-compatible' ? 'custom' : normalizeProviderId(type) || 'provider';
  if (!existingIds.includes(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!existingIds.includes(id)) return id;
  }
}

/** An http(s) URL with a host, as the backend requires. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks the provider form before anything is sent. `editingId` is the id of the provider
 * being edited (its id cannot change), or null when adding one.
 */
export function validateProviderDraft(
  draft: ProviderDraft,
  existingIds: readonly string[],
  editingId: string | null,
): ProviderDraftErrors {
  const errors: ProviderDraftErrors = {};
  const id = normalizeProviderId(draft.id);
  if (id === '') {
    errors.id = 'Enter an id for this provider, e.g. openai.';
  } else if (!PROVIDER_ID_PATTERN.test(id)) {
    errors.id = 'Use only lowercase letters, digits, "-" and "_".';
  } else if (id !== editingId && existingIds.includes(id)) {
    errors.id = `A provider named "${id}" already exists.`;
  }
  const info = providerTypeInfo(draft.type);
  if (!info) {
    errors.type = 'Choose a provider type.';
  }
  const baseUrl = draft.baseUrl.trim();
  if (baseUrl !== '' && !isHttpUrl(baseUrl)) {
    errors.baseUrl = 'Enter an http:// or https:// URL, e.g. http://localhost:8000/v1.';
  } else if (baseUrl === '' && info && info.defaultBaseUrl === null) {
    errors.baseUrl = 'Required for an OpenAI-compatible server: its API root, e.g. http://localhost:8000/v1.';
  }
  return errors;
}

export function hasErrors(errors: object): boolean {
  return Object.values(errors).some((v) => v !== undefined && v !== '');
}

/** Provider ids in the document, sorted. */
export function providerIds(doc: SettingsDocument): string[] {
  return Object.keys(doc.providers ?? {}).sort();
}

/**
 * The provider chat uses: `agent.provider` when it names a configured provider, else the only
 * provider when there is exactly one (the backend's rule), else "".
 */
export function effectiveAgentProvider(doc: SettingsDocument): string {
  const ids = providerIds(doc);
  const chosen = doc.agent?.provider ?? '';
  if (chosen !== '' && ids.includes(chosen)) return chosen;
  if (chosen === '' && ids.length === 1) return ids[0];
  return '';
}

/**
 * A copy of `doc` with the form's provider added or updated. Fields of an existing entry the
 * form does not show are kept; an empty base URL or default model is left out (= default).
 * With no provider before (or `agent.provider` naming none), the agent is set to use this one;
 * when a second provider is added next to an implicit only one, that one stays the agent's.
 */
export function applyProviderDraft(doc: SettingsDocument, draft: ProviderDraft): SettingsDocument {
  const next = cloneDocument(doc);
  next.providers = next.providers ?? {};
  const id = normalizeProviderId(draft.id);
  const before = providerIds(doc);
  const entry: SettingsDocument['providers'][string] & Record<string, unknown> = {
    ...(next.providers[id] ?? {}),
    type: draft.type,
  };
  const baseUrl = draft.baseUrl.trim();
  const defaultModel = draft.defaultModel.trim();
  if (baseUrl) entry.baseUrl = baseUrl;
  else delete entry.baseUrl;
  if (defaultModel) entry.defaultModel = defaultModel;
  else delete entry.defaultModel;
  next.providers[id] = entry;

  const chosen = doc.agent.provider ?? '';
  if (before.length === 0) {
    next.agent.provider = id;
  } else if (chosen === '') {
    // Implicit "the only provider": make it explicit before a second one makes it ambiguous.
    if (before.length === 1 && !before.includes(id)) next.agent.provider = before[0];
  } else if (!before.includes(chosen)) {
    next.agent.provider = id;
  }
  return next;
}

/**
 * A copy of `doc` without provider `id`. An agent using it switches to the first remaining
 * provider (or none); a memory observer using it falls back to the agent's ("").
 */
export function removeProvider(doc: SettingsDocument, id: string): SettingsDocument {
  const next = cloneDocument(doc);
  delete next.providers[id];
  if (next.agent.provider === id) next.agent.provider = providerIds(next)[0] ?? '';
  if (next.observationalMemory?.provider === id) next.observationalMemory.provider = '';
  return next;
}

/**
 * The edited document after a provider or tools change was saved: the same change applied
 * to it (`change`), with the providers, secrets and MCP servers as the backend saved them
 * (those sections save on their own, and the backend edits `mcpServers` for tool policies),
 * so unsaved edits to the other sections survive and saving them never undoes those.
 */
export function rebaseDraft(
  draft: SettingsDocument,
  change: (doc: SettingsDocument) => SettingsDocument,
  saved: SettingsDocument,
): SettingsDocument {
  const next = change(cloneDocument(draft));
  next.providers = cloneDocument(saved.providers);
  next.secrets = cloneDocument(saved.secrets);
  if (saved.mcpServers === undefined) delete next.mcpServers;
  else next.mcpServers = cloneDocument(saved.mcpServers);
  return next;
}

export interface ProviderRow {
  id: string;
  type: string;
  typeLabel: string;
  /** The configured base URL, or the type's default. */
  baseUrl: string;
  /** True when `baseUrl` is the type's default. */
  defaultUrl: boolean;
  defaultModel: string;
  key: ProviderKey | null;
  /** The agent chats with this provider. */
  active: boolean;
}

/** The providers list of the settings screen, sorted by id. */
export function providerRows(view: Pick<SettingsView, 'settings' | 'keys'>): ProviderRow[] {
  const active = effectiveAgentProvider(view.settings);
  return providerIds(view.settings).map((id) => {
    const p = view.settings.providers[id];
    const explicit = (p.baseUrl ?? '').trim();
    return {
      id,
      type: p.type,
      typeLabel: providerTypeLabel(p.type),
      baseUrl: explicit || providerTypeInfo(p.type)?.defaultBaseUrl || '',
      defaultUrl: explicit === '',
      defaultModel: p.defaultModel ?? '',
      key: view.keys.find((k) => k.provider === id) ?? null,
      active: id === active,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// API keys

/** `LANGO_<ID>_API_KEY` (mirrors `secrets/env.rs`). */
export function envVarName(providerId: string): string {
  return `LANGO_${providerId.trim().replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_API_KEY`;
}

export function keyLocationText(location: KeyLocation): string {
  switch (location.kind) {
    case 'keychain':
      return 'Stored in the OS keychain';
    case 'file':
      return `Stored unencrypted in ${location.path}`;
    case 'environment':
      return `From the environment variable ${location.var}`;
    case 'missing':
    default:
      return 'No API key set';
  }
}

/** The backend's description ("stored in the OS keychain"), capitalised; ours as a fallback. */
export function keyDescription(key: ProviderKey | null): string {
  if (!key) return keyLocationText({ kind: 'missing' });
  const d = key.description.trim();
  if (key.location.kind === 'missing' || d === '') return keyLocationText(key.location);
  return d.charAt(0).toUpperCase() + d.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Validation problems

/** Problems reported for exactly `field` (a dotted path). */
export function problemsFor(problems: readonly Problem[], field: string): Problem[] {
  return problems.filter((p) => p.field === field);
}

/** Problems for `prefix` or anything below it (`providers.openai` → `providers.openai.baseUrl`). */
export function problemsUnder(problems: readonly Problem[], prefix: string): Problem[] {
  return problems.filter((p) => p.field === prefix || p.field.startsWith(`${prefix}.`));
}

/** Problems no field on screen shows (so they are listed on their own, never hidden). */
export function unplacedProblems(problems: readonly Problem[], shownFields: readonly string[]): Problem[] {
  return problems.filter((p) => !shownFields.includes(p.field));
}

/**
 * The message to show next to its field: without the leading field path the backend puts in
 * every message ("observationalMemory.x must be > 0, got -5" → "Must be > 0, got -5").
 */
export function fieldMessage(problem: Problem): string {
  const prefix = `${problem.field} `;
  if (problem.field !== '' && problem.message.startsWith(prefix)) {
    const rest = problem.message.slice(prefix.length).trim();
    if (rest) return rest.charAt(0).toUpperCase() + rest.slice(1);
  }
  return problem.message;
}

/** A save refused as `invalid_settings` carries one problem per line. */
export function errorLines(message: string): string[] {
  return message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

// ---------------------------------------------------------------------------------------------
// Memory fields

export type MemoryNumberField =
  | 'messageTokenThreshold'
  | 'observationTokenThreshold'
  | 'maxMessageTokenBudget'
  | 'memoryTokenBudget'
  | 'maxObservationsInContext'
  | 'maxReflectionsInContext'
  | 'reflectionConsolidationThreshold';

export interface MemoryFieldInfo {
  name: MemoryNumberField;
  label: string;
  help: string;
  defaultValue: number;
  /** 0 means "unlimited" (else 0 means the default). */
  zeroIsUnlimited: boolean;
}

/** The memory thresholds and budgets, in screen order (defaults from `config/memory.rs`). */
export const MEMORY_FIELDS: readonly MemoryFieldInfo[] = [
  {
    name: 'messageTokenThreshold',
    label: 'Observe after (tokens)',
    help: 'New conversation tokens that trigger writing an observation about them.',
    defaultValue: 1000,
    zeroIsUnlimited: false,
  },
  {
    name: 'observationTokenThreshold',
    label: 'Reflect after (tokens)',
    help: 'Observation tokens that trigger condensing them into a reflection.',
    defaultValue: 2000,
    zeroIsUnlimited: false,
  },
  {
    name: 'maxMessageTokenBudget',
    label: 'History budget (tokens)',
    help: 'Most tokens of recent messages sent to the model. Keep it above "Observe after".',
    defaultValue: 8000,
    zeroIsUnlimited: false,
  },
  {
    name: 'memoryTokenBudget',
    label: 'Memory budget (tokens)',
    help: 'Most tokens of reflections and observations added to each request.',
    defaultValue: 4000,
    zeroIsUnlimited: false,
  },
  {
    name: 'maxObservationsInContext',
    label: 'Observations in context',
    help: 'Most observations added to each request.',
    defaultValue: 20,
    zeroIsUnlimited: true,
  },
  {
    name: 'maxReflectionsInContext',
    label: 'Reflections in context',
    help: 'Most reflections added to each request.',
    defaultValue: 5,
    zeroIsUnlimited: true,
  },
  {
    name: 'reflectionConsolidationThreshold',
    label: 'Consolidate after (reflections)',
    help: 'Reflections that trigger condensing them into a higher-level one.',
    defaultValue: 5,
    zeroIsUnlimited: false,
  },
];

/** "0 = unlimited, default 20" / "0 = default (1000)". */
export function memoryFieldHint(field: MemoryFieldInfo): string {
  return field.zeroIsUnlimited
    ? `0 = unlimited. Default ${field.defaultValue}.`
    : `0 = default (${field.defaultValue}).`;
}

/** The fields of the agent, memory and appearance sections (problems for others are listed apart). */
export const SHOWN_FIELDS: readonly string[] = [
  'agent.provider',
  'agent.model',
  'agent.systemPrompt',
  'agent.temperature',
  'observationalMemory.enabled',
  'observationalMemory.provider',
  'observationalMemory.model',
  ...MEMORY_FIELDS.map((f) => `observationalMemory.${f.name}`),
  'appearance.theme',
];
