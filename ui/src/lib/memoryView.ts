/**
 * The memory browser's and the inspector's pure logic: progress towards the next observation
 * and reflection, the timeline's order and grouping, labels and number formats, and which
 * backend memory events concern the session on screen. No DOM, no Svelte: unit-tested.
 */

import type {
  InspectView,
  MemoryEvent,
  MemoryOverview,
  MemoryPhase,
  MemoryStatus,
  Observation,
  Reflection,
  StoredMessage,
} from './api/types';

/* ------------------------------------------------------------------------------------------ */
/* Numbers                                                                                    */
/* ------------------------------------------------------------------------------------------ */

function finite(n: number): number {
  return Number.isFinite(n) ? n : 0;
}

/**
 * `value` as a percentage of `max`, clamped to 0..100 and rounded to a whole number. A missing
 * or non-positive `max` gives 0 (there is nothing to progress towards).
 */
export function percent(value: number, max: number | null | undefined): number {
  const v = finite(value);
  const m = finite(max ?? 0);
  if (m <= 0 || v <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((v / m) * 100)));
}

export interface Progress {
  value: number;
  max: number;
  /** 0..100, clamped. */
  percent: number;
  /** The threshold is reached: the next run of the cycle will act. */
  reached: boolean;
  /** Tokens still missing before the threshold (0 once reached). */
  remaining: number;
}

export function progress(value: number, max: number | null | undefined): Progress {
  const v = Math.max(0, finite(value));
  const m = Math.max(0, finite(max ?? 0));
  return {
    value: v,
    max: m,
    percent: percent(v, m),
    reached: m > 0 && v >= m,
    remaining: Math.max(0, m - v),
  };
}

/** "1,234,567": digits grouped by three, the same in every locale (and in tests). */
export function groupDigits(n: number): string {
  const rounded = Math.round(finite(n));
  const sign = rounded < 0 ? '-' : '';
  return sign + String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A compact token count: 950, 1.2k, 12k, 1.5M. */
export function compactTokens(n: number): string {
  const v = Math.max(0, Math.round(finite(n)));
  if (v < 1000) return String(v);
  if (v < 10_000) return `${trimZero((v / 1000).toFixed(1))}k`;
  if (v < 1_000_000) return `${Math.round(v / 1000)}k`;
  return `${trimZero((v / 1_000_000).toFixed(1))}M`;
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** "1 token", "950 tokens", "1,234 tokens". */
export function formatTokens(n: number): string {
  const v = Math.max(0, Math.round(finite(n)));
  return `${groupDigits(v)} ${v === 1 ? 'token' : 'tokens'}`;
}

/** "1,234 / 3,000" (tokens of a budget); "1,234" when there is no budget. */
export function formatUsage(value: number, max: number | null | undefined): string {
  if (max === null || max === undefined) return groupDigits(value);
  return `${groupDigits(value)} / ${groupDigits(max)}`;
}

/** Tokens a reflection saves: what it condensed minus what it costs now (never negative). */
export function tokensSaved(r: Pick<Reflection, 'sourceTokenCount' | 'tokenCount'>): number {
  return Math.max(0, finite(r.sourceTokenCount) - finite(r.tokenCount));
}

export function totalTokensSaved(reflections: readonly Reflection[]): number {
  return reflections.reduce((sum, r) => sum + tokensSaved(r), 0);
}

/**
 * The inspector's line for history summaries left out because the memory section already
 * carries their note: "Summary not repeated: already in memory (25 tokens saved)". null when
 * none was left out.
 */
export function summaryNotRepeatedNote(
  view: Pick<InspectView, 'summariesNotRepeated' | 'summaryTokensSaved'>,
): string | null {
  const n = Math.max(0, Math.round(finite(view.summariesNotRepeated)));
  if (n === 0) return null;
  const what = n === 1 ? 'Summary not repeated' : `${groupDigits(n)} summaries not repeated`;
  return `${what}: already in memory (${formatTokens(view.summaryTokensSaved)} saved)`;
}

/** "messages 12–40"; "message 12" for one; "no messages" for an empty range. */
export function formatRange(seqStart: number, seqEnd: number): string {
  if (seqEnd < seqStart) return 'no messages';
  if (seqStart === seqEnd) return `message ${seqStart}`;
  return `messages ${seqStart}–${seqEnd}`;
}

/** How many messages a seq range spans (inclusive), 0 when empty. */
export function rangeSize(seqStart: number, seqEnd: number): number {
  return seqEnd < seqStart ? 0 : seqEnd - seqStart + 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Time                                                                                       */
/* ------------------------------------------------------------------------------------------ */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * When an item was made, relative to `now` while recent ("just now", "5 min ago", "3 h ago",
 * "2 d ago"), then the local date ("2025-03-04"). Times in the future read "just now".
 */
export function formatWhen(ms: number, now: number = Date.now()): string {
  if (!Number.isFinite(ms) || ms <= 0) return '';
  const age = now - ms;
  if (age < 45_000) return 'just now';
  if (age < HOUR) return `${Math.max(1, Math.round(age / MINUTE))} min ago`;
  if (age < DAY) return `${Math.floor(age / HOUR)} h ago`;
  if (age < 7 * DAY) return `${Math.floor(age / DAY)} d ago`;
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The full local date and time, for a tooltip: "2025-03-04 14:05". */
export function formatTimestamp(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** An ISO timestamp for a `<time datetime>`, '' for a missing or invalid time. */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** Rows for an editor holding `text`: its line count, between `min` and `max`. */
export function editorRows(text: string, min = 3, max = 14): number {
  const lines = text.split('\n').length + Math.floor(text.length / 90);
  return Math.min(max, Math.max(min, lines));
}

/* ------------------------------------------------------------------------------------------ */
/* Timeline                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** Newest first: the latest covered message, then the creation time, then the id. */
export function observationsNewestFirst(observations: readonly Observation[]): Observation[] {
  return [...observations].sort(
    (a, b) => b.seqEnd - a.seqEnd || b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
}

export interface ReflectionGroup {
  generation: number;
  /** Newest first. */
  reflections: Reflection[];
  tokens: number;
  saved: number;
}

/** Reflections grouped by generation, highest generation first; each group newest first. */
export function groupReflections(reflections: readonly Reflection[]): ReflectionGroup[] {
  const byGeneration = new Map<number, Reflection[]>();
  for (const r of reflections) {
    const g = Number.isFinite(r.generation) && r.generation > 0 ? Math.floor(r.generation) : 1;
    const list = byGeneration.get(g);
    if (list) list.push(r);
    else byGeneration.set(g, [r]);
  }
  return [...byGeneration.entries()]
    .sort(([a], [b]) => b - a)
    .map(([generation, list]) => {
      const sorted = [...list].sort(
        (a, b) => b.seqEnd - a.seqEnd || b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
      );
      return {
        generation,
        reflections: sorted,
        tokens: sorted.reduce((s, r) => s + finite(r.tokenCount), 0),
        saved: totalTokensSaved(sorted),
      };
    });
}

/** "Generation 1 · condensed observations"; higher generations condensed reflections. */
export function generationLabel(generation: number): string {
  return generation <= 1 ? 'Generation 1' : `Generation ${generation}`;
}

export function generationHint(generation: number): string {
  return generation <= 1 ? 'condensed from observations' : 'condensed from earlier reflections';
}

/** Nothing has been observed yet: no observation and no reflection. */
export function isEmptyOverview(overview: MemoryOverview | null): boolean {
  return !overview || (overview.observations.length === 0 && overview.reflections.length === 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Status                                                                                     */
/* ------------------------------------------------------------------------------------------ */

export const PHASE_LABELS: Record<MemoryPhase, string> = {
  idle: 'Idle',
  observing: 'Observing',
  reflecting: 'Reflecting',
};

export function phaseLabel(phase: string | null | undefined): string {
  return phase && phase in PHASE_LABELS ? PHASE_LABELS[phase as MemoryPhase] : 'Idle';
}

/** A known phase, `idle` for anything else. */
export function normalPhase(phase: string | null | undefined): MemoryPhase {
  return phase === 'observing' || phase === 'reflecting' ? phase : 'idle';
}

/** The memory is working right now. */
export function isBusy(phase: string | null | undefined): boolean {
  return normalPhase(phase) !== 'idle';
}

/* ------------------------------------------------------------------------------------------ */
/* Events                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** The session a memory event is about. */
export function eventSessionKey(event: MemoryEvent): string | null {
  switch (event.type) {
    case 'status':
    case 'observationAdded':
      return typeof event.sessionKey === 'string' ? event.sessionKey : null;
    case 'reflectionAdded':
      return typeof event.reflection?.sessionKey === 'string' ? event.reflection.sessionKey : null;
    default:
      return null;
  }
}

/** The event is about the session on screen (never when no session is shown). */
export function eventConcerns(event: MemoryEvent, sessionKey: string | null): boolean {
  return sessionKey !== null && eventSessionKey(event) === sessionKey;
}

/**
 * What a memory event means for the view of `sessionKey`:
 * - `ignore`: another session's event;
 * - `status`: only the header changes (apply it with `applyStatusEvent`);
 * - `refresh`: the lists changed: re-fetch the overview (a status event also asks for this
 *   when its counts no longer match the lists shown, or when a cycle has just finished).
 */
export type EventEffect = 'ignore' | 'status' | 'refresh';

export function eventEffect(
  event: MemoryEvent,
  sessionKey: string | null,
  overview: MemoryOverview | null,
): EventEffect {
  if (!eventConcerns(event, sessionKey)) return 'ignore';
  if (event.type !== 'status') return 'refresh';
  if (!overview) return 'refresh';
  const wasBusy = isBusy(overview.status?.phase);
  if (wasBusy && !isBusy(event.phase)) return 'refresh';
  if (event.observations !== overview.observations.length) return 'refresh';
  if (event.reflections !== overview.reflections.length) return 'refresh';
  return 'status';
}

/** The status carried by a status event, without its `type` tag. */
export function statusFromEvent(event: Extract<MemoryEvent, { type: 'status' }>): MemoryStatus {
  return {
    sessionKey: event.sessionKey,
    phase: normalPhase(event.phase),
    unobservedTokens: event.unobservedTokens,
    messageTokenThreshold: event.messageTokenThreshold,
    observationTokens: event.observationTokens,
    observationTokenThreshold: event.observationTokenThreshold,
    observations: event.observations,
    reflections: event.reflections,
  };
}

/** The overview with the event's status in the header (the lists are left as they are). */
export function applyStatusEvent(
  overview: MemoryOverview,
  event: Extract<MemoryEvent, { type: 'status' }>,
): MemoryOverview {
  return { ...overview, status: statusFromEvent(event) };
}

/* ------------------------------------------------------------------------------------------ */
/* Editing                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** Why an edit cannot be saved, or null when it can. */
export function editProblem(original: string, draft: string): string | null {
  if (draft.trim() === '') return 'A memory item cannot be empty. Delete it instead.';
  if (draft.trim() === original.trim()) return 'Nothing has changed.';
  return null;
}

/* ------------------------------------------------------------------------------------------ */
/* Messages and the inspector                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** A readable role: User, Assistant, Tool, System (legacy model/function mapped). */
export function roleLabel(role: string): string {
  switch (role) {
    case 'user':
      return 'User';
    case 'assistant':
    case 'model':
      return 'Assistant';
    case 'tool':
    case 'function':
      return 'Tool';
    case 'system':
      return 'System';
    default:
      return role ? role.charAt(0).toUpperCase() + role.slice(1) : 'Unknown';
  }
}

/** A CSS-friendly role family: user | assistant | tool | other. */
export function roleKind(role: string): 'user' | 'assistant' | 'tool' | 'other' {
  switch (role) {
    case 'user':
      return 'user';
    case 'assistant':
    case 'model':
      return 'assistant';
    case 'tool':
    case 'function':
      return 'tool';
    default:
      return 'other';
  }
}

/** A stored message as plain text: its content, then one line per tool call or result. */
export function messageText(message: Pick<StoredMessage, 'content' | 'toolCalls'>): string {
  const lines: string[] = [];
  if (message.content) lines.push(message.content);
  for (const call of message.toolCalls ?? []) {
    if (call.thought) continue;
    if (call.output !== undefined) lines.push(`← ${call.name}: ${call.output}`);
    else lines.push(`→ ${call.name}(${call.input ?? ''})`);
  }
  return lines.join('\n');
}

/** Long enough to be shown collapsed by default. */
export function isLongText(text: string, maxChars = 480, maxLines = 8): boolean {
  if (text.length > maxChars) return true;
  let lines = 1;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10 && ++lines > maxLines) return true;
  }
  return false;
}

/** The start of a long text for its collapsed form, cut at a word or line boundary. */
export function previewText(text: string, maxChars = 480, maxLines = 8): string {
  let cut = text;
  const lines = cut.split('\n');
  if (lines.length > maxLines) cut = lines.slice(0, maxLines).join('\n');
  if (cut.length > maxChars) {
    cut = cut.slice(0, maxChars);
    const space = cut.search(/\s\S*$/);
    if (space > maxChars * 0.6) cut = cut.slice(0, space);
  }
  return cut === text ? text : `${cut.trimEnd()}…`;
}

/** The inspector's hint under "Tool definitions". */
export function toolDefinitionsHint(count: number): string {
  return `${groupDigits(count)} ${count === 1 ? 'tool' : 'tools'} on offer, sent with every request`;
}

export const SECTION_LABELS: Record<string, string> = {
  base: 'Base instructions',
  knowledge: 'Retrieved knowledge',
  runtime: 'Runtime context',
  memory: 'Conversation memory',
};

export const SECTION_HINTS: Record<string, string> = {
  base: 'The agent’s system prompt from Settings',
  knowledge: 'Matching earlier messages of this conversation (search)',
  runtime: 'Date, time and session details',
  memory: 'Reflections, then recent observations',
};

export function sectionLabel(name: string): string {
  return SECTION_LABELS[name] ?? (name ? name.charAt(0).toUpperCase() + name.slice(1) : 'Section');
}

export function sectionHint(name: string): string {
  return SECTION_HINTS[name] ?? '';
}

/** Over budget: more tokens than the budget allows (a null budget is never exceeded). */
export function overBudget(tokens: number, budget: number | null | undefined): boolean {
  return budget !== null && budget !== undefined && budget > 0 && tokens > budget;
}

export interface PromptPart {
  text: string;
  /** A Markdown heading line (`#`…`######`), shown emphasised. */
  heading: boolean;
}

/**
 * The system prompt split into heading lines and the text between them, so the inspector can
 * emphasise the section headings while showing the exact text: joining the parts gives the
 * prompt back unchanged.
 */
export function splitPromptHeadings(prompt: string): PromptPart[] {
  const parts: PromptPart[] = [];
  const re = /^#{1,6} [^\n]*$/gm;
  let at = 0;
  for (const m of prompt.matchAll(re)) {
    const index = m.index ?? 0;
    if (index > at) parts.push({ text: prompt.slice(at, index), heading: false });
    parts.push({ text: m[0], heading: true });
    at = index + m[0].length;
  }
  if (at < prompt.length) parts.push({ text: prompt.slice(at), heading: false });
  return parts;
}

/**
 * The token count of a note being edited, as it is typed: the saved count scaled by the
 * text's length (exact while unchanged, close for the same kind of text); about four
 * characters a token for a note that had none. The backend counts exactly on save.
 */
export function editedTokenEstimate(original: string, savedTokens: number, draft: string): number {
  const text = draft.trim();
  if (text === '') return 0;
  const base = original.trim();
  if (text === base) return savedTokens;
  if (base.length > 0 && savedTokens > 0) return Math.max(1, Math.round((savedTokens * text.length) / base.length));
  return Math.ceil(text.length / 4);
}

/** How the memory view names its conversation. */
export function conversationName(overview: Pick<MemoryOverview, 'title'> | null): string {
  const title = overview?.title?.trim() ?? '';
  return title === '' ? 'this conversation' : `“${title}”`;
}
