/**
 * Settings → About's update check, as view models: what to say for each answer of
 * `check_for_updates`, and the feed URL edit applied to the settings document. Feed text
 * (version, notes, date) comes from the network: components show it as text only.
 */

import type { SettingsDocument, UpdateCheck } from './api/types';

export interface UpdateView {
  tone: 'ok' | 'new' | 'error' | 'off';
  headline: string;
  /** Plain-text notes of a newer release. */
  notes: string | null;
  published: string | null;
  /** Opened in the system browser; only http(s). */
  link: string | null;
  /** Technical detail of a failure, shown folded. */
  detail: string | null;
}

/** Only what the engine already checked, checked again: a link is opened by the system. */
export function safeLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function updateView(check: UpdateCheck): UpdateView {
  const base = { notes: null, published: null, link: null, detail: null };
  switch (check.outcome) {
    case 'upToDate':
      return { ...base, tone: 'ok', headline: `You have the latest version (${check.current}).` };
    case 'available':
      return {
        tone: 'new',
        headline: `Lango ${check.latest ?? ''} is available — you have ${check.current}.`,
        notes: check.notes?.trim() || null,
        published: check.published,
        link: safeLink(check.url),
        detail: null,
      };
    case 'off':
      return {
        ...base,
        tone: 'off',
        headline: 'Update checks are off. Enter a release feed address to check for new versions.',
      };
    default:
      return {
        ...base,
        tone: 'error',
        headline: check.error?.message ?? 'The update check failed.',
        detail: check.error?.detail ?? null,
      };
  }
}

export function feedUrlOf(doc: SettingsDocument): string {
  return doc.updates?.feedUrl ?? '';
}

/** The document with `updates.feedUrl` set (trimmed; empty turns checks off). */
export function withFeedUrl(doc: SettingsDocument, url: string): SettingsDocument {
  const updates = { ...(doc.updates ?? {}), feedUrl: url.trim() };
  return { ...doc, updates };
}
