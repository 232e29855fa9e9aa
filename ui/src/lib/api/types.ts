/**
 * The wire types of the desktop backend: TypeScript mirrors of
 * `crates/lango-core/src/app/dto.rs` and the store rows it returns (serde, camelCase).
 * Change both sides together.
 */

export type { AppError } from '../errors';
export * from './conversationTypes';
export * from './importTypes';
export * from './memoryTypes';
import type { AttachmentInfo, ReplyInfo } from './conversationTypes';
import type { ImportSource } from './importTypes';
import type { AppError } from '../errors';
import type { Theme } from '../theme';

export interface KeychainInfo {
  available: boolean;
  reason: string | null;
  fileFallbackAllowed: boolean;
}

export interface AppStatus {
  version: string;
  dataDir: string;
  configFile: string;
  logDir: string;
  /** A provider is configured and chat works. */
  ready: boolean;
  provider: string;
  /** "" = the provider's default model. */
  model: string;
  memoryEnabled: boolean;
  /** Why chat is unavailable; `code === 'no_provider'` on first run. */
  problem: AppError | null;
  /** The appearance setting: the window's theme comes with the status. */
  theme: Theme;
}

export interface SessionSummary {
  key: string;
  /** "" until the first message names it. */
  title: string;
  model: string;
  pinned: boolean;
  /** Unix milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** The app it was imported from; null for Lango's own conversations. */
  origin?: ImportSource | null;
}

/** Where a page of the conversation list ended: handed back for the next page. */
export interface SessionCursor {
  pinned: boolean;
  updatedAt: number;
  id: number;
}

/** A page of the sidebar's conversations and where the next one starts (null after the last). */
export interface SessionsPage {
  sessions: SessionSummary[];
  next: SessionCursor | null;
}

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments (assistant rows). */
  input?: string;
  /** JSON text of the result (tool rows). */
  output?: string;
  thought?: boolean;
  /** How the call ended (when known). */
  status?: ToolCallStatus;
  durationMs?: number;
  /** Tokens the result costs in the prompt (after capping). */
  promptTokens?: number;
  /** > 0: the prompt got a truncated result. */
  omittedTokens?: number;
  /** MCP server name; absent for built-in tools. */
  server?: string;
  /** The tool's own name on that server. */
  tool?: string;
  /** How the call went, stored with its result (tool rows). Wins over the flat fields. */
  meta?: ToolCallMeta;
}

/** What the engine stores about a finished call, beside what the model saw. */
export interface ToolCallMeta {
  status?: ToolCallStatus;
  durationMs?: number;
  promptTokens?: number;
  omittedTokens?: number;
  server?: string;
  tool?: string;
  /** The whole result (JSON text) when `output` is the prompt's cut copy. */
  fullOutput?: string;
  /**
   * Set on a page when `fullOutput` is only the start of a large result: its whole size in
   * bytes (`toolResult` reads it all).
   */
  fullOutputBytes?: number;
  images?: ToolImage[];
}

/** How a tool call ended. */
export type ToolCallStatus = 'done' | 'error' | 'denied' | 'timedOut' | 'cancelled';

/** MCP tool annotations (hints from the server, not guarantees). */
export interface ToolAnnotations {
  title?: string | null;
  readOnly?: boolean | null;
  destructive?: boolean | null;
  idempotent?: boolean | null;
  openWorld?: boolean | null;
}

/** An image returned by a tool. */
export interface ToolImage {
  mimeType: string;
  /** Base64. */
  data: string;
}

export type ApprovalDecision = 'once' | 'always' | 'deny';

/** `truncated`: the model's output limit cut the reply short (it can be continued). */
export type MessageStatus = 'complete' | 'partial' | 'interrupted' | 'error' | 'truncated';

export interface StoredMessage {
  id: number;
  /** Orders everything in a session; unique, never reused. */
  seq: number;
  /** user | assistant | tool (legacy: model, function). */
  role: string;
  author: string;
  content: string;
  toolCalls: ToolCall[];
  status: MessageStatus;
  kind: 'message' | 'summary';
  tokenCount: number;
  createdAt: number;
  /** Moved out of the model's history by memory compaction (still shown). */
  archived: boolean;
  /** Who wrote an assistant reply and what it cost (only on replies written by this version). */
  reply?: ReplyInfo | null;
  /** Files sent with a user message, in order (absent/empty on most messages). */
  attachments?: AttachmentInfo[];
}

export type SearchHitKind = 'message' | 'observation' | 'reflection';

export interface SearchHit {
  sessionKey: string;
  sessionTitle: string;
  kind: SearchHitKind;
  itemId: string;
  seq: number | null;
  /**
   * Matching text, plain (no Markdown) and on one line; matches wrapped in `[` `]` (the
   * text's own brackets arrive as parentheses). Plain text, never HTML.
   */
  snippet: string;
  archived: boolean;
  /** When the message or note was written (Unix ms). */
  at: number;
  /** The conversation's last activity (Unix ms), for grouping hits by conversation. */
  sessionUpdatedAt: number;
}

/** One page of a search, best matches first. */
export interface SearchResults {
  hits: SearchHit[];
  /** How many match; counting stops at a cap (`totalIsLowerBound`: "at least"). */
  total: number;
  totalIsLowerBound: boolean;
  /** Whether a next page (offset + hits.length) has hits. */
  more: boolean;
  /** Messages still queued for the search index, not searched yet (0 normally). */
  unindexed: number;
}

/** The chat's Find: which messages of the open conversation contain the text. */
export interface FindMatches {
  /** Their seqs, oldest first. */
  seqs: number[];
  /** More matched than the backend returns (20,000). */
  truncated: boolean;
}

/** Streamed during a turn through a Tauri Channel. */
export type ChatEvent =
  | { type: 'delta'; text: string }
  | {
      type: 'toolCall';
      id: string;
      /** What the model saw, e.g. "files__read_file". */
      name: string;
      args: unknown;
      /** MCP server name; null for built-in tools. */
      server?: string | null;
      /** The tool's own name on that server. */
      tool?: string | null;
    }
  | {
      /** The turn is paused until the UI calls `approveToolCall(sessionKey, id, decision)`. */
      type: 'toolApproval';
      id: string;
      name: string;
      server: string;
      tool: string;
      description: string;
      annotations: ToolAnnotations;
      args: unknown;
    }
  | { type: 'toolProgress'; id: string; progress: number; total: number | null; message: string | null }
  | {
      type: 'toolResult';
      id: string;
      name: string;
      result: unknown;
      status?: ToolCallStatus;
      durationMs?: number | null;
      /** Tokens this result costs in the prompt (after capping). */
      promptTokens?: number | null;
      /** > 0: the prompt got a truncated version. */
      omittedTokens?: number | null;
      images?: ToolImage[];
    };

export type ToolPolicy = 'ask' | 'always' | 'disabled';

export interface McpToolInfo {
  name: string;
  /** The name the model sees (`server__tool`, sanitised). */
  exposedName: string;
  description: string;
  policy: ToolPolicy;
  annotations: ToolAnnotations;
}

export interface McpServerInfo {
  name: string;
  transport: 'stdio' | 'http';
  state: 'disabled' | 'starting' | 'ready' | 'failed';
  error: string | null;
  tools: McpToolInfo[];
  stderrTail: string[];
}

export type TurnStatus = 'complete' | 'stopped' | 'failed';

export interface TurnOutcome {
  status: TurnStatus;
  error: AppError | null;
  /** The reply ended at the model's output limit (stored as `truncated`). */
  truncated: boolean;
}

export type ExportFormat = 'markdown' | 'json';

/** What the user's data takes on disk (Settings → About). */
export interface StorageUsage {
  /** The database file with its write-ahead log. */
  databaseBytes: number;
  conversations: number;
  /** Backup files in the backups folder. */
  backups: number;
  backupsBytes: number;
  /** When the newest was taken (ms since the epoch). */
  newestBackupAt: number | null;
  /** Why today's backup was not taken, once this run tried (a damaged database, a full disk…). */
  backupProblem: AppError | null;
}

export interface ExportResult {
  path: string;
  bytes: number;
}

/** A stored tool result as "Show all" shows it (at most 512 KB of it). */
export interface ToolResultText {
  text: string;
  /** The whole result's size in bytes. */
  bytes: number;
  /** False when `text` is only the result's start. */
  complete: boolean;
}

export type KeyLocation =
  | { kind: 'environment'; var: string }
  | { kind: 'keychain' }
  | { kind: 'file'; path: string }
  | { kind: 'missing' };

export interface ProviderKey {
  provider: string;
  location: KeyLocation;
  description: string;
}

/** The settings document, exactly as settings.json (camelCase). Keys are never in it. */
export interface SettingsDocument {
  agent: {
    provider: string;
    model: string;
    systemPrompt: string;
    temperature: number;
    maxTokens: number;
    [other: string]: unknown;
  };
  providers: Record<string, { type: string; baseUrl?: string; defaultModel?: string }>;
  observationalMemory: {
    enabled: boolean;
    provider: string;
    model: string;
    messageTokenThreshold: number;
    observationTokenThreshold: number;
    maxMessageTokenBudget: number;
    maxReflectionsInContext: number;
    maxObservationsInContext: number;
    memoryTokenBudget: number;
    reflectionConsolidationThreshold: number;
    [other: string]: unknown;
  };
  secrets: { allowFileStore: boolean };
  appearance: { theme: 'system' | 'light' | 'dark' };
  /** The release feed; `""` (the default) = update checks off. */
  updates?: { feedUrl: string };
  /** USD per million tokens by model id (a half-typed price is kept as its text until fixed). */
  prices?: Record<string, { input: number | string; output: number | string }>;
  [other: string]: unknown;
}

export interface SettingsView {
  settings: SettingsDocument;
  keys: ProviderKey[];
  keychain: KeychainInfo;
  /** The settings file could not be used; the app runs on defaults until saved. */
  loadError: AppError | null;
}

export interface Problem {
  /** Dotted path, e.g. `observationalMemory.messageTokenThreshold`. */
  field: string;
  message: string;
}

export interface ValidationReport {
  problems: Problem[];
  warnings: string[];
}

export interface ModelEntry {
  id: string;
  displayName: string;
}

/** A database file's state (`store::recovery::Health`). */
export type Health =
  | { state: 'missing' }
  | { state: 'healthy'; schemaVersion: number }
  | { state: 'outdated'; schemaVersion: number }
  | { state: 'tooNew'; schemaVersion: number }
  | { state: 'damaged'; detail: string };

export type BackupKind = { kind: 'beforeUpgrade'; version: number } | { kind: 'daily' } | { kind: 'other' };

export interface Backup {
  path: string;
  fileName: string;
  kind: BackupKind;
  /** RFC 3339, or null when unknown. */
  takenAt: string | null;
  size: number;
  health: Health;
}

/** What `recovery_diagnose` found: the database and its backups, newest first. */
export interface Diagnosis {
  database: string;
  size: number;
  health: Health;
  backupsDir: string;
  backups: Backup[];
}

export interface Restored {
  /** Where the replaced database was kept. */
  setAside: string | null;
  restoredFrom: string;
  health: Health;
}

export interface TableSalvage {
  table: string;
  saved: number;
  lost: number;
}

export interface Salvaged {
  report: { source: string; salvaged: string; tables: TableSalvage[]; health: Health };
  applied: Restored | null;
}

/** The answer of `check_for_updates` (`app::dto::UpdateCheck`). Feed text is untrusted. */
export type UpdateOutcome = 'off' | 'upToDate' | 'available' | 'failed';

export interface UpdateCheck {
  current: string;
  outcome: UpdateOutcome;
  latest: string | null;
  /** Always http(s):// (checked by the engine, and again before opening). */
  url: string | null;
  notes: string | null;
  published: string | null;
  error: { code: string; message: string; detail: string } | null;
}
