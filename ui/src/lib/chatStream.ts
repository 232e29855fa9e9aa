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

import type { ApprovalDecision, AttachmentInfo, ChatEvent, MessageStatus, ReplyInfo, StoredMessage, ToolCall, ToolCallMeta } from './api/types';
import { hideShownImageData, imagesInResult, isOpen, newToolCard, parseStatus, type ToolCardModel } from './toolCards';
import { formatTokens } from './usage';

// ---------------------------------------------------------------------------------------
// Live reply

export interface LiveText {
  kind: 'text';
  text: string;
}

/** A tool call of the live reply: its card, from toolCall / toolApproval / toolProgress / toolResult. */
export type LiveTool = { kind: 'tool' } & ToolCardModel;

export type LivePart = LiveText | LiveTool;

export interface LiveReply {
  parts: LivePart[];
}

export const emptyReply = (): LiveReply => ({ parts: [] });

/** The first card of call `id` still open (ids are unique within a turn, but a provider
 *  without ids gets `call_<name>` for each, so take the oldest open one). */
const openCard = (parts: LivePart[], id: string) =>
  parts.findIndex((p) => p.kind === 'tool' && p.id === id && isOpen(p));

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
      // The same call again (a provider re-sending it) updates its card, keeping its status
      // (it may wait for approval); a call reusing the id of one that already finished is a
      // new card.
      const at = openCard(parts, event.id);
      const fields = {
        args: prettyJson(event.args),
        ...(event.server ? { server: event.server } : {}),
        ...(event.tool ? { tool: event.tool } : {}),
      };
      if (at >= 0) {
        const existing = parts[at] as LiveTool;
        parts[at] = { ...existing, ...fields, name: event.name || existing.name };
      } else {
        parts.push({ kind: 'tool', ...newToolCard(event.id, event.name, fields) });
      }
      break;
    }
    case 'toolApproval': {
      const at = openCard(parts, event.id);
      const fields = {
        server: event.server,
        tool: event.tool,
        args: prettyJson(event.args),
        status: 'approval' as const,
        approval: { description: event.description ?? '', annotations: event.annotations ?? {} },
      };
      if (at >= 0) parts[at] = { ...(parts[at] as LiveTool), ...fields, name: event.name || (parts[at] as LiveTool).name };
      else parts.push({ kind: 'tool', ...newToolCard(event.id, event.name, fields) });
      break;
    }
    case 'toolProgress': {
      const at = openCard(parts, event.id);
      if (at < 0) return reply;
      const progress = { progress: event.progress, total: event.total ?? null, message: event.message ?? null };
      parts[at] = { ...(parts[at] as LiveTool), status: 'running', progress };
      break;
    }
    case 'toolResult': {
      const fields = {
        result: prettyJson(hideShownImageData(event.result)),
        status: parseStatus(event.status),
        durationMs: event.durationMs ?? null,
        promptTokens: event.promptTokens ?? null,
        omittedTokens: event.omittedTokens ?? null,
        images: event.images ?? [],
        progress: null,
      };
      let at = openCard(parts, event.id);
      if (at < 0) at = parts.findIndex((p) => p.kind === 'tool' && p.id === event.id);
      if (at >= 0) {
        const existing = parts[at] as LiveTool;
        parts[at] = { ...existing, ...fields, name: existing.name || event.name };
      } else {
        parts.push({ kind: 'tool', ...newToolCard(event.id, event.name, fields) });
      }
      break;
    }
    default:
      return reply;
  }
  return { parts };
}

/**
 * The reply once the user answered the approval of call `id`: the card runs until the
 * backend's result (a denied call gets a `denied` result at once). The card keeps the
 * request (`approval`) and the `decision`, so it can say how it was allowed.
 */
export function decideApproval(reply: LiveReply, id: string, decision: ApprovalDecision): LiveReply {
  const at = reply.parts.findIndex((p) => p.kind === 'tool' && p.id === id && p.status === 'approval');
  if (at < 0) return reply;
  const parts = reply.parts.slice();
  parts[at] = { ...(parts[at] as LiveTool), status: 'running', decision };
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

export interface MessageRow {
  key: string;
  seq: number;
  role: Role;
  content: string;
  status: MessageStatus;
  archived: boolean;
  createdAt: number;
  author: string;
  tools: ToolCardModel[];
  /** A tool row whose every result is shown in the call's card above: rendered as nothing. */
  merged: boolean;
  /** Who wrote an assistant reply, its tokens and cost (replies of older versions have none). */
  reply: ReplyInfo | null;
  /** Files sent with a user message (absent when none). */
  attachments?: AttachmentInfo[];
}

export const rowKey = (seq: number) => `m${seq}`;

/** Where a stored result is: its conversation and tool row. */
interface ResultPlace {
  sessionKey: string;
  seq: number;
}

/** A stored call (assistant row) and its stored result (tool row) as one card. */
function storedCard(call: ToolCall | null, result: ToolCall | null, place: ResultPlace | null): ToolCardModel {
  const id = call?.id ?? result?.id ?? '';
  const name = call?.name || result?.name || '';
  const meta = result?.meta ?? call?.meta;
  const pick = <K extends keyof ToolCall & keyof ToolCallMeta>(k: K) =>
    meta?.[k] ?? result?.[k] ?? call?.[k];
  // The card shows the whole result; the model may have had a cut copy (`output`).
  const output = meta?.fullOutput ?? result?.output ?? '';
  // A large result is on the page as its start only: no JSON to pretty-print yet.
  const rest = result && place && meta?.fullOutputBytes ? { ...place, callId: id, bytes: meta.fullOutputBytes } : null;
  return newToolCard(id, name, {
    server: pick('server') ?? null,
    tool: pick('tool') ?? null,
    args: call ? prettyJson(call.input ?? '') : '',
    result: result ? (rest ? output : prettyJson(hideShownImageData(output))) : null,
    resultRest: rest,
    status: result ? parseStatus(pick('status')) : 'noResult',
    durationMs: pick('durationMs') ?? null,
    promptTokens: pick('promptTokens') ?? null,
    omittedTokens: pick('omittedTokens') ?? null,
    images: result ? (meta?.images?.length ? meta.images : imagesInResult(output)) : [],
  });
}

/** A tool row's text once its results (stored as the row's content too) are taken out. */
function textBesideResults(content: string, calls: readonly ToolCall[]): string {
  let rest = content;
  for (const c of calls) {
    const out = c.output ?? '';
    if (!out) continue;
    const at = rest.indexOf(out);
    if (at >= 0) rest = rest.slice(0, at) + rest.slice(at + out.length);
  }
  return rest.trim();
}

/**
 * The rows for messages sorted by seq: each assistant tool call becomes one card carrying
 * its result (matched by call id: the first result after the call); a tool row whose
 * results all went into such cards is marked `merged` (drawn as nothing). A tool row stores
 * its results as its content too: that raw JSON is never shown beside the cards.
 */
export function buildRows(messages: readonly StoredMessage[], sessionKey: string | null = null): MessageRow[] {
  const place = (seq: number): ResultPlace | null => (sessionKey === null ? null : { sessionKey, seq });
  // Results by call id, from tool rows; an id may repeat, so keep them in order.
  const results = new Map<string, { seq: number; call: ToolCall }[]>();
  for (const m of messages) {
    if (normaliseRole(m.role) !== 'tool') continue;
    for (const c of m.toolCalls ?? []) {
      const list = results.get(c.id) ?? [];
      list.push({ seq: m.seq, call: c });
      results.set(c.id, list);
    }
  }
  /** Results a call card took, so their tool row does not draw them again. */
  const taken = new Set<ToolCall>();

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
      reply: role === 'assistant' ? (m.reply ?? null) : null,
    };
    if (role === 'assistant') {
      const tools = (m.toolCalls ?? []).map((c) => {
        const list = results.get(c.id);
        const hit = list?.find((r) => r.seq > m.seq);
        if (hit && list) {
          list.splice(list.indexOf(hit), 1);
          taken.add(hit.call);
        }
        return storedCard(c, hit?.call ?? null, hit ? place(hit.seq) : null);
      });
      return { ...base, tools };
    }
    if (role === 'tool') {
      const calls = m.toolCalls ?? [];
      return { ...base, content: textBesideResults(base.content, calls), tools: calls.map((c) => storedCard(null, c, place(m.seq))) };
    }
    return m.attachments?.length ? { ...base, tools: [], attachments: m.attachments } : { ...base, tools: [] };
  });

  rows.forEach((row, i) => {
    if (row.role !== 'tool') return;
    const calls = messages[i].toolCalls ?? [];
    // Results whose call is on an older page (or missing) stay as cards on this row.
    row.tools = row.tools.filter((_, j) => !taken.has(calls[j]));
    row.merged = calls.length > 0 && row.tools.length === 0 && row.content === '';
  });
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
  const base = `${formatTokens(historyTokens)} / ${formatTokens(historyBudget)} tokens`;
  return memoryTokens === null ? base : `${base} · memory ${formatTokens(memoryTokens)}`;
}
