/**
 * One tool call as the chat shows it, whether live or reloaded from history: the card's
 * model, its status label, the result preview ("show all" for the rest), images a tool
 * returned (only as data: URLs of an allow-listed raster type) and the numbers shown with
 * it (duration, prompt token cost). Everything here comes from a tool and is untrusted:
 * components render it as text.
 */

import { formatSize } from './recovery';
import type { ApprovalDecision, ToolAnnotations, ToolCallStatus, ToolImage } from './api/types';
import { formatCount } from './numbers';

/** waiting for approval → running → how it ended; `noResult`: history has no result for it. */
export type ToolCardStatus = 'approval' | 'running' | ToolCallStatus | 'noResult';

export interface ToolProgress {
  progress: number;
  total: number | null;
  message: string | null;
}

export interface ToolApprovalRequest {
  description: string;
  annotations: ToolAnnotations;
}

export interface ToolCardModel {
  id: string;
  /** The name the model used (e.g. "files__read_file"). */
  name: string;
  /** MCP server and the tool's own name there; null for built-in tools or when unknown. */
  server: string | null;
  tool: string | null;
  /** Pretty JSON of the arguments ('' when unknown: the call is on an older page). */
  args: string;
  /** Pretty JSON of the result; null while running or when none was stored. */
  result: string | null;
  /**
   * Set when `result` is only the start of a large stored result (the page leaves the rest
   * out): where "Show all" reads the whole one, and its size.
   */
  resultRest: ResultRest | null;
  status: ToolCardStatus;
  durationMs: number | null;
  promptTokens: number | null;
  omittedTokens: number | null;
  images: ToolImage[];
  progress: ToolProgress | null;
  /** Set while (and after) the call waited for the user's approval. */
  approval: ToolApprovalRequest | null;
  /** What the user answered to the approval, once answered. */
  decision: ApprovalDecision | null;
}

export interface ResultRest {
  sessionKey: string;
  /** The tool row holding the result. */
  seq: number;
  callId: string;
  bytes: number;
}

export function newToolCard(id: string, name: string, fields: Partial<ToolCardModel> = {}): ToolCardModel {
  return {
    id,
    name,
    server: null,
    tool: null,
    args: '',
    result: null,
    resultRest: null,
    status: 'running',
    durationMs: null,
    promptTokens: null,
    omittedTokens: null,
    images: [],
    progress: null,
    approval: null,
    decision: null,
    ...fields,
  };
}

/** Whether the call is still open (no result yet). */
export const isOpen = (card: ToolCardModel) => card.status === 'approval' || card.status === 'running';

const STATUS_LABELS: Record<ToolCardStatus, string> = {
  approval: 'waiting for approval',
  running: 'running',
  done: 'done',
  error: 'error',
  denied: 'denied',
  timedOut: 'timed out',
  cancelled: 'cancelled',
  noResult: 'no result',
};

export const statusText = (status: ToolCardStatus) => STATUS_LABELS[status];

/** The status the stored result names, if it is one the UI knows ('done' when absent). */
export function parseStatus(value: unknown): ToolCallStatus {
  return value === 'error' || value === 'denied' || value === 'timedOut' || value === 'cancelled' ? value : 'done';
}

/** "850 ms", "2.4 s", "1 min 5 s". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s ? `${min} min ${s} s` : `${min} min`;
}

const n = (v: number) => formatCount(Math.round(v));

/** "≈ 1,234 tokens in the prompt" ('' when unknown). */
export function promptCostText(promptTokens: number | null | undefined): string {
  if (promptTokens === null || promptTokens === undefined || promptTokens < 0) return '';
  return `≈ ${n(promptTokens)} token${promptTokens === 1 ? '' : 's'} in the prompt`;
}

/** "truncated — 12,000 tokens omitted" ('' when nothing was cut). */
export function omittedText(omittedTokens: number | null | undefined): string {
  if (!omittedTokens || omittedTokens <= 0) return '';
  return `truncated — ${n(omittedTokens)} token${omittedTokens === 1 ? '' : 's'} omitted`;
}

/** "42%", "3 / 10" or "" — how far a running tool says it is. */
export function progressText(p: ToolProgress | null): string {
  if (!p) return '';
  if (p.total && p.total > 0) return `${Math.min(100, Math.round((p.progress / p.total) * 100))}%`;
  return p.progress > 0 ? n(p.progress) : '';
}

/** 0..1 for a progress bar, or null when the tool gave no total (indeterminate). */
export function progressFraction(p: ToolProgress | null): number | null {
  if (!p || !p.total || p.total <= 0) return null;
  return Math.max(0, Math.min(1, p.progress / p.total));
}

export interface Preview {
  text: string;
  /** Characters not shown (0 = the whole text is shown). */
  hidden: number;
}

/** The "Show all" button's text: what is hidden, or a large result's whole size. */
export function showAllLabel(hiddenChars: number, rest: ResultRest | null): string {
  return rest ? `Show all (${formatSize(rest.bytes)})` : `Show all (${formatCount(hiddenChars)} more characters)`;
}

/** The first `maxLines` lines / `maxChars` characters of a result, and how much is left out. */
export function previewText(text: string, maxChars = 4000, maxLines = 60): Preview {
  let end = Math.min(text.length, maxChars);
  let line = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++line >= maxLines) {
      end = i;
      break;
    }
  }
  return { text: text.slice(0, end), hidden: text.length - end };
}

/** Raster types only: SVG can carry scripts and is never shown from a tool. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A data: URL for an image from a tool, or null when its type is not allowed or the data is not base64. */
export function imageSrc(image: ToolImage): string | null {
  const mime = String(image?.mimeType ?? '').trim().toLowerCase();
  if (!IMAGE_TYPES.has(mime)) return null;
  const data = String(image?.data ?? '').replace(/\s+/g, '');
  if (!data || !BASE64.test(data)) return null;
  return `data:${mime};base64,${data}`;
}

/**
 * Images inside a tool result stored as MCP content (`{content: [{type: 'image', data,
 * mimeType}]}` or the bare array), for calls reloaded from history. Anything else: none.
 */
export function imagesInResult(result: unknown): ToolImage[] {
  let value = result;
  if (typeof value === 'string') {
    if (!value.includes('"image"')) return [];
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { content?: unknown }).content)
      ? (value as { content: unknown[] }).content
      : [];
  const out: ToolImage[] = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const { type, data, mimeType } = item as Record<string, unknown>;
    if (type === 'image' && typeof data === 'string' && typeof mimeType === 'string') out.push({ mimeType, data });
  }
  return out;
}

/** The annotation badges of a tool, in a fixed order: only hints a server set to true. */
export function annotationBadges(a: ToolAnnotations | null | undefined): { key: string; label: string }[] {
  if (!a) return [];
  const out: { key: string; label: string }[] = [];
  if (a.readOnly) out.push({ key: 'readOnly', label: 'read-only' });
  if (a.destructive) out.push({ key: 'destructive', label: 'destructive' });
  if (a.openWorld) out.push({ key: 'openWorld', label: 'open-world' });
  if (a.idempotent) out.push({ key: 'idempotent', label: 'idempotent' });
  return out;
}

/** "files · read_file" for an MCP tool, else the name the model used. */
export function displayName(card: Pick<ToolCardModel, 'name' | 'server' | 'tool'>): string {
  if (card.server && card.tool) return `${card.server} · ${card.tool}`;
  return card.name || 'tool';
}

/**
 * A tool result with the base64 of the images shown in the card replaced by a short note,
 * so the result text is not a wall of base64. Images the card cannot show keep their data.
 * JSON text is parsed first; anything else is returned as it is.
 */
export function hideShownImageData(result: unknown): unknown {
  let value = result;
  if (typeof value === 'string') {
    if (!value.includes('"image"')) return result;
    try {
      value = JSON.parse(value);
    } catch {
      return result;
    }
  }
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 6 || !v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (o.type === 'image' && typeof o.data === 'string' && typeof o.mimeType === 'string') {
      if (imageSrc({ mimeType: o.mimeType, data: o.data }) === null) return v;
      const kb = ((o.data.length * 3) / 4 / 1024).toFixed(1);
      return { ...o, data: `(${kb} kB, shown below)` };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x, depth + 1)]));
  };
  return walk(value, 0);
}
