/**
 * The chat view's pure logic, unit-tested:
 * - the live reply of a running turn, assembled from streamed ChatEvents (text deltas
 *   appended in order, tool calls paired with their results by id);
 * - the rows the message list shows for stored messages (tool results folded into the
 *   assistant's tool cards);
 * - merging pages of stored messages.
 *
 * The store is the truth: a live reply is only a preview until the turn ends and the
 * newest page is reloaded.
 */

import type { ChatEvent, MessageStatus, StoredMessage } from './api/types';

// ---------------------------------------------------------------------------------------
// Live reply

export interface LiveText {
  kind: 'text';
  text: string;
}

export interface LiveTool {
  kind: 'tool';
  id: string;
  name: string;
  /** Pretty-printed JSON of the arguments. */
  args: string;
  /** Pretty-printed JSON of the result; null while the tool runs. */
  result: string | null;
}

export type LivePart = LiveText | LiveTool;

export interface LiveReply {
  parts: LivePart[];
}

export const emptyReply = (): LiveReply => ({ parts: [] });

/** The reply after one more streamed event. Never mutates `reply`. */
export function applyChatEvent(reply: LiveReply, event: ChatEvent): LiveReply {
  const parts = reply.parts.slice();
  switch (event.type) {
    case 'delta': {
      if (!event.text) return reply;
      const last = parts[parts.length - 1];
      if (last?.kind === 'text') parts[parts.length - 1] = { kind: 'text', text: last.text + event.text };
      else parts.push({ kind: 'text', text: event.text });
      break;
    }
    case 'toolCall': {
      // The same call again (a provider re-sending it) updates its card; a call reusing the id
      // of one that already finished (providers without ids get `call_<name>`) is a new card.
      const at = parts.findIndex((p) => p.kind === 'tool' && p.id === event.id && p.result === null);
      const args = prettyJson(event.args);
      if (at >= 0) {
        const existing = parts[at] as LiveTool;
        parts[at] = { ...existing, name: event.name || existing.name, args };
      } else {
        parts.push({ kind: 'tool', id: event.id, name: event.name, args, result: null });
      }
      break;
    }
    case 'toolResult': {
      const result = prettyJson(event.result);
      // Pair with the first call of that id still waiting (ids are unique within a turn, but
      // a provider without ids gets `call_<name>` for each, so take the oldest open one).
      let at = parts.findIndex((p) => p.kind === 'tool' && p.id === event.id && p.result === null);
      if (at < 0) at = parts.findIndex((p) => p.kind === 'tool' && p.id === event.id);
      if (at >= 0) {
        const existing = parts[at] as LiveTool;
        parts[at] = { ...existing, name: existing.name || event.name, result };
      } else {
        parts.push({ kind: 'tool', id: event.id, name: event.name, args: '', result });
      }
      break;
    }
    default:
      return reply;
  }
  return { parts };
}

/** All the text of a live reply. */
export function replyText(reply: LiveReply): string {
  return reply.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

/** True when nothing has arrived yet (show a "thinking" indicator). */
export function isReplyEmpty(reply: LiveReply): boolean {
  return reply.parts.every((p) => (p.kind === 'text' ? p.text.length === 0 : false));
}

/**
 * Tool arguments and results as indented JSON. Stored rows carry JSON text; streamed
 * events carry values. Text that is not JSON is shown as it is.
 */
export function prettyJson(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return '';
    try {
      return JSON.stringify(JSON.parse(trimmed), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------
// Rows of stored messages

export type Role = 'user' | 'assistant' | 'tool';

/** user | assistant | tool, mapping the legacy names (model, function). */
export function normaliseRole(role: string): Role {
  switch (role) {
    case 'user':
      return 'user';
    case 'tool':
    case 'function':
      return 'tool';
    default:
      return 'assistant';
  }
}

export interface ToolCard {
  id: string;
  name: string;
  /** Pretty JSON of the arguments ('' when unknown: the call is on an older page). */
  args: string;
  /** Pretty JSON of the result; null when no result was stored (yet). */
  result: string | null;
}

export interface MessageRow {
  key: string;
  seq: number;
  role: Role;
  content: string;
  status: MessageStatus;
  archived: boolean;
  createdAt: number;
  author: string;
  tools: ToolCard[];
  /** A tool row whose every result is shown in the call's card above: rendered as nothing. */
  merged: boolean;
}

export const rowKey = (seq: number) => `m${seq}`;

/**
 * The rows for messages sorted by seq: assistant tool calls become cards carrying their
 * results; a tool row whose results all went into such cards is marked `merged`.
 */
export function buildRows(messages: readonly StoredMessage[]): MessageRow[] {
  // Results by call id, from tool rows; an id may repeat, so keep them in order.
  const results = new Map<string, { seq: number; output: string }[]>();
  for (const m of messages) {
    if (normaliseRole(m.role) !== 'tool') continue;
    for (const c of m.toolCalls ?? []) {
      const list = results.get(c.id) ?? [];
      list.push({ seq: m.seq, output: c.output ?? '' });
      results.set(c.id, list);
    }
  }
  /** seq of a tool row → how many of its results a call card took. */
  const taken = new Map<number, number>();

  const rows: MessageRow[] = messages.map((m) => {
    const role = normaliseRole(m.role);
    const base = {
      key: rowKey(m.seq),
      seq: m.seq,
      role,
      content: m.content ?? '',
      status: m.status,
      archived: !!m.archived,
      createdAt: m.createdAt,
      author: m.author ?? '',
      merged: false,
    };
    if (role === 'assistant') {
      const tools = (m.toolCalls ?? []).map((c) => {
        const list = results.get(c.id);
        const hit = list?.find((r) => r.seq > m.seq);
        if (hit && list) {
          list.splice(list.indexOf(hit), 1);
          taken.set(hit.seq, (taken.get(hit.seq) ?? 0) + 1);
        }
        return { id: c.id, name: c.name, args: prettyJson(c.input ?? ''), result: hit ? prettyJson(hit.output) : null };
      });
      return { ...base, tools };
    }
    if (role === 'tool') {
      const tools = (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        args: '',
        result: prettyJson(c.output ?? ''),
      }));
      return { ...base, tools };
    }
    return { ...base, tools: [] };
  });

  for (const row of rows) {
    if (row.role !== 'tool') continue;
    const n = taken.get(row.seq) ?? 0;
    row.merged = row.tools.length > 0 && n >= row.tools.length && row.content.trim() === '';
  }
  return rows;
}

/** Index of the last row with `role` (merged tool rows ignored); -1 if none. */
export function lastIndexOfRole(rows: readonly MessageRow[], role: Role): number {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].role === role && !rows[i].merged) return i;
  return -1;
}

// ---------------------------------------------------------------------------------------
// Pages

/**
 * Adds an older page (seq < every loaded seq) in front of the loaded messages, dropping
 * duplicates.
 */
export function mergeOlder(loaded: readonly StoredMessage[], page: readonly StoredMessage[]): StoredMessage[] {
  const first = loaded.length ? loaded[0].seq : Infinity;
  const older = page.filter((m) => m.seq < first);
  return older.length ? [...older, ...loaded] : loaded.slice();
}

/**
 * Puts the newest page (reloaded after a turn) in place of the loaded tail. When the page
 * is shorter than `limit`, it is the whole session and replaces everything; otherwise the
 * loaded messages older than the page are kept and everything from the page's first seq on
 * comes from the page (rows a regenerate or edit removed go away).
 */
export function mergeNewest(
  loaded: readonly StoredMessage[],
  page: readonly StoredMessage[],
  limit: number,
): StoredMessage[] {
  if (page.length < limit || page.length === 0) return page.slice();
  const from = page[0].seq;
  return [...loaded.filter((m) => m.seq < from), ...page];
}

/** How a stored row's status is labelled in the list ('' = no label). */
export function statusLabel(status: MessageStatus): string {
  switch (status) {
    case 'interrupted':
      return 'stopped';
    case 'partial':
      return 'incomplete';
    case 'error':
      return 'failed';
    case 'truncated':
      return 'cut at the output limit';
    default:
      return '';
  }
}

/** What Continue sends: the model picks up a reply its output limit cut short. */
export const CONTINUE_TEXT = 'continue';

/** Whether `row` offers Continue: a reply cut at the output limit that is the last reply. */
export function offersContinue(row: MessageRow, lastReplySeq: number | null): boolean {
  return row.status === 'truncated' && row.role === 'assistant' && row.seq === lastReplySeq;
}

/** "1,234 / 8,000 tokens · memory 320" — the context meter's text. */
export function contextMeterText(
  historyTokens: number,
  historyBudget: number,
  memoryTokens: number | null,
): string {
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const base = `${n(historyTokens)} / ${n(historyBudget)} tokens`;
  return memoryTokens === null ? base : `${base} · memory ${n(memoryTokens)}`;
}
