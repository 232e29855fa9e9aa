/**
 * What the settings screen says about a field while it is typed, before the backend sees it:
 * number fields read as text (letters are flagged, never silently dropped), messages that
 * agree with each field's hint, whether a provider needs a key, and when an old "Test
 * connection" result no longer applies. Pure functions: the components only wire them.
 */

import type { MemoryFieldInfo, ProviderDraft, ProviderRow } from './settingsForm';

/** A typed number: its value, or what is wrong with the text. */
export type ParsedNumber = { ok: true; value: number } | { ok: false; message: string };

/** The text a number field starts with: a raw string (letters the user typed) stays as it is. */
export function numberText(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value;
  return '';
}

/** What 0 means for a memory field, in the words of its hint. */
function zeroMeans(field: MemoryFieldInfo): string {
  return field.zeroIsUnlimited ? '0 = unlimited' : `0 = default (${field.defaultValue})`;
}

/** A memory threshold or budget: a whole number, 0 or more (what 0 means is in the hint). */
export function parseMemoryCount(text: string, field: MemoryFieldInfo): ParsedNumber {
  const t = text.trim();
  if (t === '') return { ok: false, message: `Enter a whole number; ${zeroMeans(field)}.` };
  if (/^-\d+$/.test(t)) return { ok: false, message: `Cannot be negative; ${zeroMeans(field)}.` };
  if (!/^\d+$/.test(t)) return { ok: false, message: `“${t}” is not a whole number: use digits only; ${zeroMeans(field)}.` };
  const value = Number(t);
  if (value > 4294967295) return { ok: false, message: 'Too large.' };
  return { ok: true, value };
}

/** The temperature: a number from 0 to 2 (a comma is read as the decimal point). */
export function parseTemperature(text: string): ParsedNumber {
  const t = text.trim().replace(',', '.');
  if (t === '') return { ok: false, message: 'Enter a number from 0 to 2.' };
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) return { ok: false, message: `“${text.trim()}” is not a number: enter one from 0 to 2.` };
  const value = Number(t);
  if (value < 0 || value > 2) return { ok: false, message: `Must be from 0 to 2, got ${value}.` };
  return { ok: true, value };
}

/**
 * The value a number field puts into the settings document: the number, or the raw text
 * when it is not one (the backend then refuses it too, so nothing half-typed is saved).
 */
export function documentValue(text: string, parsed: ParsedNumber): number | string {
  return parsed.ok ? parsed.value : text;
}

// ---------------------------------------------------------------------------------------------
// API keys of local servers

/** localhost, loopback, and private-network addresses: where a model server usually needs no key. */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url.trim()).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (host === '::1' || host === '0.0.0.0') return true;
  const ip = host.split('.').map(Number);
  if (ip.length !== 4 || ip.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return false;
  const [a, b] = ip;
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

/** A provider whose server usually runs without a key: Ollama, or a compatible server on this machine or network. */
export function needsNoKey(type: string, baseUrl: string): boolean {
  return type === 'ollama' || (type === 'openai-compatible' && isLocalUrl(baseUrl));
}

export interface KeyStatus {
  text: string;
  /** `missing` is shown as a problem; `neutral` is a plain note; `file` is a warning. */
  tone: 'ok' | 'neutral' | 'missing' | 'file';
}

/** The key line of a provider in the list. */
export function keyStatus(row: Pick<ProviderRow, 'type' | 'baseUrl' | 'key'>, described: string): KeyStatus {
  const kind = row.key?.location.kind ?? 'missing';
  if (kind === 'missing') {
    return needsNoKey(row.type, row.baseUrl)
      ? { text: 'No API key: a local server usually needs none', tone: 'neutral' }
      : { text: described, tone: 'missing' };
  }
  return { text: described, tone: kind === 'file' ? 'file' : 'ok' };
}

// ---------------------------------------------------------------------------------------------
// "Test connection"

/**
 * What a connection test was run against: the type, id, base URL and key edits. A result
 * (failed or not) is shown only while the form still matches it.
 */
export function connectionTestSignature(draft: Pick<ProviderDraft, 'type' | 'id' | 'baseUrl'>, keyEdits: number): string {
  return [draft.type, draft.id.trim(), draft.baseUrl.trim(), keyEdits].join('\n');
}
