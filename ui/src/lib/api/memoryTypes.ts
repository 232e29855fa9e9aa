/**
 * The memory (observations, reflections, their status) and "What the model sees": mirrors of
 * `lango_core::app::dto` and the memory store rows (camelCase). Re-exported by types.ts.
 */

export interface Observation {
  id: string;
  sessionKey: string;
  content: string;
  tokenCount: number;
  seqStart: number;
  seqEnd: number;
  createdAt: number;
}

export interface Reflection {
  id: string;
  sessionKey: string;
  content: string;
  tokenCount: number;
  /** 1 = condensed observations; > 1 = condensed reflections. */
  generation: number;
  seqStart: number;
  seqEnd: number;
  /** Tokens of what it condensed ("tokens saved" = this − tokenCount). */
  sourceTokenCount: number;
  createdAt: number;
}

export type MemoryPhase = 'idle' | 'observing' | 'reflecting';

export interface MemoryStatus {
  sessionKey: string;
  phase: MemoryPhase;
  unobservedTokens: number;
  messageTokenThreshold: number;
  observationTokens: number;
  observationTokenThreshold: number;
  observations: number;
  reflections: number;
  /** The memory's last failure since it last succeeded (any process); retried after the next reply. */
  lastError?: MemoryFailure | null;
}

/** Why the memory last failed, and when (ms since the epoch). */
export interface MemoryFailure {
  error: string;
  failedAt: number;
}

export interface MemoryOverview {
  /** The conversation's title ("" when it has none yet). */
  title: string;
  enabled: boolean;
  status: MemoryStatus | null;
  observations: Observation[];
  reflections: Reflection[];
}

export type MemoryItemKind = 'observation' | 'reflection';

/** Emitted on the Tauri event `memory`. */
export type MemoryEvent =
  | ({ type: 'status' } & MemoryStatus)
  | ({ type: 'observationAdded' } & Observation)
  | { type: 'reflectionAdded'; reflection: Reflection; condensed: number };

export interface SectionView {
  /** base | knowledge | runtime | memory */
  name: string;
  tokens: number;
  budget: number | null;
}

export interface HistoryItemView {
  role: string;
  text: string;
}

export interface InspectView {
  systemPrompt: string;
  sections: SectionView[];
  history: HistoryItemView[];
  historyTokens: number;
  historyBudget: number;
  /** The budget is what the model's server held: it refused more this run (its context is smaller than Lango's budget for the model). */
  historyBudgetLearned: boolean;
  /** `[Compacted Summary]` rows left out of `history`: the memory section already carries their note. */
  summariesNotRepeated: number;
  /** The history tokens that saved. */
  summaryTokensSaved: number;
  memoryTokens: number;
  memoryBudget: number | null;
  memoryEnabled: boolean;
  /** The tool definitions every model call carries, and their tokens (≈, outside the budgets). */
  toolDefinitions: number;
  toolDefinitionTokens: number;
  errors: string[];
}
