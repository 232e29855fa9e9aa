/**
 * The sidebar's session list as pure functions: grouping (Pinned, then Recent), titles,
 * relative times and the local edits applied after a rename, pin or delete succeeds.
 */

import type { SearchHit, SearchHitKind, SessionSummary } from './api/types';

export const UNTITLED = 'New conversation';

export interface SessionGroups {
  pinned: SessionSummary[];
  recent: SessionSummary[];
}

/** Most recently updated first; ties by creation time, then key (stable across reloads). */
export function compareSessions(a: SessionSummary, b: SessionSummary): number {
  return b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Pinned and Recent groups, each sorted with `compareSessions`. Does not modify the input. */
export function groupSessions(sessions: readonly SessionSummary[]): SessionGroups {
  const sorted = [...sessions].sort(compareSessions);
  return {
    pinned: sorted.filter((s) => s.pinned),
    recent: sorted.filter((s) => !s.pinned),
  };
}

/** The title to show: the session's, or "New conversation" until the first message names it. */
export function displayTitle(title: string | null | undefined): string {
  const t = (title ?? '').trim();
  return t === '' ? UNTITLED : t;
}

export function renameLocal(sessions: readonly SessionSummary[], key: string, title: string): SessionSummary[] {
  return sessions.map((s) => (s.key === key ? { ...s, title: title.trim() } : s));
}

export function setPinnedLocal(sessions: readonly SessionSummary[], key: string, pinned: boolean): SessionSummary[] {
  return sessions.map((s) => (s.key === key ? { ...s, pinned } : s));
}

export function removeLocal(sessions: readonly SessionSummary[], key: string): SessionSummary[] {
  return sessions.filter((s) => s.key !== key);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Local midnight of the day `t` falls on. */
function startOfDay(t: number): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** Whole calendar days between two instants (local time; robust to DST changes). */
function calendarDaysBetween(earlier: number, later: number): number {
  return Math.round((startOfDay(later) - startOfDay(earlier)) / (24 * HOUR));
}

/**
 * A short, human time for the sidebar: "Just now", "5m ago", "3h ago", "Yesterday", a
 * weekday within the last week, then "Mar 4" (this year) or "Mar 4, 2023". Times in the
 * future (clock skew) read as "Just now". Uses the local time zone.
 */
export function relativeTime(timestamp: number, now: number): string {
  const diff = now - timestamp;
  if (diff < MINUTE) return 'Just now';
  if (diff < HOUR) return `${Math.floor(diff / MINUTE)}m ago`;
  const days = calendarDaysBetween(timestamp, now);
  if (days === 0) return `${Math.floor(diff / HOUR)}h ago`;
  if (days === 1) return 'Yesterday';
  const d = new Date(timestamp);
  if (days < 7) return WEEKDAYS[d.getDay()];
  const label = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
  return d.getFullYear() === new Date(now).getFullYear() ? label : `${label}, ${d.getFullYear()}`;
}

/** The full local date and time, for a tooltip. */
export function fullTime(timestamp: number): string {
  return new Date(timestamp).toLocaleString();
}

export const HIT_KIND_LABELS: Record<SearchHitKind, string> = {
  message: 'Message',
  observation: 'Observation',
  reflection: 'Reflection',
};

/** "Message", "Observation", "Reflection"; "Message (archived)" for compacted history. */
export function hitKindLabel(hit: Pick<SearchHit, 'kind' | 'archived'>): string {
  const label = HIT_KIND_LABELS[hit.kind] ?? hit.kind;
  return hit.archived ? `${label} (archived)` : label;
}

/** A stable key for a hit in a keyed `{#each}`. */
export function hitKey(hit: Pick<SearchHit, 'kind' | 'itemId' | 'sessionKey'>): string {
  return `${hit.kind}:${hit.sessionKey}:${hit.itemId}`;
}
