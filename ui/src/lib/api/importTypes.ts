/**
 * Import (Settings → Data): mirrors of `lango_core::import` and `import::memory` (camelCase).
 * Re-exported by types.ts.
 */

export type ImportSource = 'chatgpt' | 'claude';

/** Streamed during an import through a Tauri Channel. */
export type ImportProgress =
  | { type: 'reading'; bytesRead: number; totalBytes: number }
  | { type: 'writing'; done: number; total: number };

export interface SkipCount {
  reason: string;
  /** The reason in words. */
  description: string;
  count: number;
  /** A few conversation titles (conversations only). */
  titles: string[];
}

export interface ImportSummary {
  source: ImportSource;
  conversations: number;
  created: number;
  updated: number;
  unchanged: number;
  messagesImported: number;
  skippedConversations: SkipCount[];
  skippedMessages: SkipCount[];
  /** Images and files kept as a plain-text note such as [image: file-abc]. */
  notes: number;
  /** Sessions created or appended to. */
  sessions: string[];
  cancelled: boolean;
}

export interface MemoryEstimate {
  sessions: number;
  observerCalls: number;
  observerTokens: number;
  reflectorTokensAtMost: number;
  tokens: number;
}

export interface BuildProgress {
  done: number;
  total: number;
  notes: number;
}

export interface BuildReport {
  sessions: number;
  observations: number;
  reflections: number;
  /** [session key, error]. */
  failures: [string, string][];
  cancelled: boolean;
}
