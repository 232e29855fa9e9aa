/**
 * What the chat view lists, as pure functions (unit-tested): the items of the message list
 * (stored rows, the "start of the conversation" separator, the pending user message, the
 * live reply, a failed turn), which stored rows a running turn replaces, and which rows
 * carry Edit and Regenerate.
 */

import type { AppError, AttachmentInfo, MemoryEvent, TurnStatus } from './api/types';
import { lastIndexOfRole, type MessageRow } from './chatStream';

export type TurnMode = 'send' | 'regenerate' | 'edit';

export interface TurnFailure {
  error: AppError;
  /** Whether regenerating makes sense (false when the message never reached the store). */
  retry: boolean;
}

export type ChatItem =
  | { key: string; kind: 'message'; row: MessageRow }
  | { key: 'start'; kind: 'start'; at: number }
  | { key: 'pending-user'; kind: 'pending'; text: string; attachments: readonly AttachmentInfo[] }
  | { key: 'live'; kind: 'live' }
  | { key: 'turn-error'; kind: 'error'; failure: TurnFailure };

/** What of a running turn the list shows. */
export interface TurnView {
  /** The user's text shown while the turn runs (null for regenerate: the stored row stays). */
  userText: string | null;
  /** The files sent with it. */
  attachments?: readonly AttachmentInfo[];
}

/**
 * The list's items: the start separator once the oldest page is loaded, the rows, then the
 * running turn (its pending user message and the live reply) or the last failure.
 */
export function buildItems(
  rows: readonly MessageRow[],
  hasOlder: boolean,
  turn: TurnView | null,
  failure: TurnFailure | null,
): ChatItem[] {
  const items: ChatItem[] = [];
  if (!hasOlder && rows.length > 0) items.push({ key: 'start', kind: 'start', at: rows[0].createdAt });
  for (const row of rows) items.push({ key: row.key, kind: 'message', row });
  if (turn) {
    if (turn.userText !== null) items.push({ key: 'pending-user', kind: 'pending', text: turn.userText, attachments: turn.attachments ?? [] });
    items.push({ key: 'live', kind: 'live' });
  } else if (failure) {
    items.push({ key: 'turn-error', kind: 'error', failure });
  }
  return items;
}

/**
 * The first stored seq a turn replaces (hidden while it runs): the last user message on for
 * an edit, everything after it for a regenerate. A send replaces nothing, but what it stores
 * while it runs (the user's message, written as the turn starts) is hidden after the last row
 * shown when it began (`lastSeq`): the pending message already shows it, and a reload during
 * the turn — going back to a conversation still streaming — must not show it twice.
 */
export function hideFromSeqFor(mode: TurnMode, lastUserSeq: number | null, lastSeq: number | null): number | null {
  if (mode === 'send') return lastSeq === null ? 0 : lastSeq + 1;
  if (lastUserSeq === null) return null;
  return mode === 'edit' ? lastUserSeq : lastUserSeq + 1;
}

/** Rows still shown while a turn hides everything from `hideFrom` on. */
export function visibleRows(rows: MessageRow[], hideFrom: number | null): MessageRow[] {
  return hideFrom === null ? rows : rows.filter((r) => r.seq < hideFrom);
}

export interface RowActions {
  /** The last user message (Edit); null if none. */
  lastUserSeq: number | null;
  /** The row carrying Regenerate: the last reply, or the last user message left unanswered. */
  regenerateSeq: number | null;
}

export function rowActions(rows: readonly MessageRow[]): RowActions {
  const lastUser = lastIndexOfRole(rows, 'user');
  const lastAssistant = lastIndexOfRole(rows, 'assistant');
  return {
    lastUserSeq: lastUser >= 0 ? rows[lastUser].seq : null,
    regenerateSeq: lastAssistant > lastUser ? rows[lastAssistant].seq : lastUser >= 0 ? rows[lastUser].seq : null,
  };
}

/** The row to scroll to for a search hit at `seq`: that row, else the nearest before it. */
export function seekTarget(rows: readonly MessageRow[], seq: number): MessageRow | undefined {
  let target: MessageRow | undefined;
  for (const row of rows) {
    if (row.merged) continue;
    if (row.seq <= seq || !target) target = row;
    if (row.seq >= seq) break;
  }
  return target;
}

/** How a turn ended, as the chat view's end of turn sees it. */
export interface TurnEndView {
  status: TurnStatus;
  error: AppError | null;
  retry: boolean;
  truncated?: boolean;
}

/** The failure a failed turn leaves under the list (null when it did not fail). */
export function turnFailure(end: TurnEndView): TurnFailure | null {
  if (end.status !== 'failed') return null;
  return { error: end.error ?? { code: 'unknown', message: 'The reply could not be written.' }, retry: end.retry };
}

/** What a screen reader hears when a turn ends. */
export function turnEndAnnouncement(end: TurnEndView): string {
  if (end.status === 'failed') return `The reply failed: ${turnFailure(end)?.error.message}`;
  if (end.status === 'stopped') return 'Reply stopped.';
  if (end.truncated) return 'Reply cut at the output limit. Continue asks for the rest.';
  return 'Reply finished.';
}

/** The conversation a memory event is about (null for status events, which every view gets). */
export function memorySessionOf(event: MemoryEvent): string | null {
  if (event.type === 'observationAdded') return event.sessionKey;
  if (event.type === 'reflectionAdded') return event.reflection.sessionKey;
  return null;
}
