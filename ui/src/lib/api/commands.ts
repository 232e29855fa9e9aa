/**
 * Every backend command the UI calls, typed. The only module that calls `invoke`: components
 * import these functions (and tests mock this module). Each rejects with an `AppError`
 * (`{code, message}`), normalised by `toAppError`.
 */

import { Channel, invoke, type InvokeArgs, type InvokeOptions } from '@tauri-apps/api/core';
import { toAppError } from '../errors';
import type {
  ApprovalDecision,
  AppStatus,
  AttachmentImage,
  AttachmentInfo,
  BuildProgress,
  BuildReport,
  ChatEvent,
  ConversationSettings,
  ConversationView,
  Diagnosis,
  ExportFormat,
  ExportResult,
  FindMatches,
  ImportProgress,
  ImportSummary,
  InspectView,
  KeyLocation,
  McpServerInfo,
  MemoryEstimate,
  MemoryItemKind,
  MemoryOverview,
  ModelChoice,
  ModelEntry,
  Restored,
  Salvaged,
  SearchResults,
  SessionCursor,
  SessionsPage,
  SessionSummary,
  SettingsDocument,
  SettingsView,
  StorageUsage,
  StoredMessage,
  ToolPolicy,
  ToolResultText,
  TurnOutcome,
  UpdateCheck,
  ValidationReport,
} from './types';

async function call<T>(command: string, args?: InvokeArgs, options?: InvokeOptions): Promise<T> {
  try {
    return (await invoke(command, args, options)) as T;
  } catch (reason) {
    throw toAppError(reason);
  }
}

function channel<T = ChatEvent>(onEvent: (event: T) => void): Channel<T> {
  const ch = new Channel<T>();
  ch.onmessage = onEvent;
  return ch;
}

export const appStatus = () => call<AppStatus>('app_status');
export const storageUsage = () => call<StorageUsage>('storage_usage');

// Recovery (only while the database cannot be opened)
export const recoveryDiagnose = () => call<Diagnosis>('recovery_diagnose');
export const recoveryRestore = (backup: string) => call<Restored>('recovery_restore', { backup });
export const recoverySalvage = (apply: boolean) => call<Salvaged>('recovery_salvage', { apply });
export const openDataFolder = () => call<void>('open_data_folder');
/** The chat's Find: seqs of the conversation's messages containing `text`, oldest first. */
export const findInSession = (key: string, text: string) => call<FindMatches>('find_in_session', { key, text });
/** Shows an exported file in the file manager (only files this app exported). */
export const showExport = (path: string) => call<void>('show_export', { path });

// Updates (Settings → About): a check, and the release page in the system browser.
export const checkForUpdates = () => call<UpdateCheck>('check_for_updates');
export const openReleasePage = (url: string) => call<void>('open_release_page', { url });

// The window: shown once the shell is in the DOM (src-tauri/src/reveal.rs).
export const shellMounted = () => call<void>('shell_mounted');

// Sessions
/** A page of the sidebar's conversations: `limit` after `after` (from the top when null). */
export const listSessions = (limit: number, after: SessionCursor | null = null) =>
  call<SessionsPage>('list_sessions', { limit, after });
export const createSession = () => call<SessionSummary>('create_session');
export const renameSession = (key: string, title: string) =>
  call<void>('rename_session', { key, title });
export const pinSession = (key: string, pinned: boolean) => call<void>('pin_session', { key, pinned });
export const deleteSession = (key: string) => call<void>('delete_session', { key });
export const search = (query: string, sessionKey: string | null = null, limit = 50, offset = 0) =>
  call<SearchResults>('search', { query, sessionKey, limit, offset });
export const pageMessages = (key: string, beforeSeq: number | null, limit = 100) =>
  call<StoredMessage[]>('page_messages', { key, beforeSeq, limit });
/** More of a tool call's result than its page carried (`fullOutputBytes`): at most 512 KB. */
export const toolResult = (key: string, seq: number, callId: string) =>
  call<ToolResultText>('tool_result', { key, seq, callId });
/** Writes a tool call's whole result to a file in Downloads (`showExport` shows it). */
export const saveToolResult = (key: string, seq: number, callId: string) =>
  call<ExportResult>('save_tool_result', { key, seq, callId });
export const exportSession = (key: string, format: ExportFormat) =>
  call<ExportResult>('export_session', { key, format });

// Import (Settings → Data): progress streams through a Channel; one import at a time.
export const importConversations = (path: string, onProgress: (p: ImportProgress) => void) =>
  call<ImportSummary>('import_conversations', { path, onProgress: channel(onProgress) });
export const cancelImport = () => call<boolean>('cancel_import');
/** What building the memory of `keys` (empty = every imported conversation) would send. */
export const estimateImportMemory = (keys: string[]) => call<MemoryEstimate>('estimate_import_memory', { keys });
export const buildImportMemory = (keys: string[], onProgress: (p: BuildProgress) => void) =>
  call<BuildReport>('build_import_memory', { keys, onProgress: channel(onProgress) });
export const cancelImportMemory = () => call<boolean>('cancel_import_memory');

// Chat
/**
 * `attachments`: hashes from `prepareAttachment`, in order (`text` may then be empty). Rejects
 * before anything is sent with `attachments_too_large`, `attachments_too_many` or
 * `model_cannot_see_images`.
 */
export const sendMessage = (key: string, text: string, onEvent: (e: ChatEvent) => void, attachments: string[] = []) =>
  call<TurnOutcome>('send_message', { key, text, attachments, onEvent: channel(onEvent) });

/** The header naming the file of a `prepare_attachment` body (percent-encoded UTF-8). */
export const FILE_NAME_HEADER = 'x-lango-file-name';

/**
 * Checks, stores and describes a file to attach. The bytes go as the raw request body (never
 * as JSON); the name in a header. May take seconds (a large PDF or image). Rejects with an
 * `attachment_*` error whose message names the file in plain words.
 */
export const prepareAttachment = (name: string, bytes: Uint8Array) =>
  call<AttachmentInfo>('prepare_attachment', bytes, { headers: { [FILE_NAME_HEADER]: encodeURIComponent(name) } });
/** A file dropped on the window, by its path (the backend reads it). */
export const prepareAttachmentPath = (path: string) => call<AttachmentInfo>('prepare_attachment_path', { path });
/** An attached image as the model sees it (for a sent message's thumbnail). */
export const attachmentImage = (hash: string) => call<AttachmentImage>('attachment_image', { hash });
/** A new last reply; `model` writes this one with another model (the conversation keeps its own). */
export const regenerate = (key: string, onEvent: (e: ChatEvent) => void, model?: ModelChoice | null) =>
  call<TurnOutcome>('regenerate', { key, model: model ?? null, onEvent: channel(onEvent) });
export const editLast = (key: string, text: string, onEvent: (e: ChatEvent) => void) =>
  call<TurnOutcome>('edit_last', { key, text, onEvent: channel(onEvent) });
export const stopTurn = (key: string) => call<boolean>('stop_turn', { key });
/** Answers a paused tool call; false when nothing waits under that id (the turn ended). */
export const approveToolCall = (sessionKey: string, callId: string, decision: ApprovalDecision) =>
  call<boolean>('approve_tool_call', { sessionKey, callId, decision });

// A conversation's own provider, model and settings (a conversation not created yet gets the defaults)
export const conversationSettings = (key: string) => call<ConversationView>('conversation_settings', { key });
/** Rejects with `invalid_conversation_settings` on a bad value; creates the conversation if needed. */
export const setConversationSettings = (key: string, settings: ConversationSettings) =>
  call<ConversationView>('set_conversation_settings', { key, settings });
/** The models of one configured provider. */
export const listModelsOf = (provider: string) => call<ModelEntry[]>('list_models_of', { provider });

// Tools (MCP servers)
export const mcpServers = () => call<McpServerInfo[]>('mcp_servers');
export const mcpRestart = (name: string) => call<McpServerInfo>('mcp_restart', { name });
export const mcpSetToolPolicy = (server: string, tool: string, policy: ToolPolicy) =>
  call<McpServerInfo>('mcp_set_tool_policy', { server, tool, policy });

// Memory
export const memoryOverview = (key: string) => call<MemoryOverview>('memory_overview', { key });
export const memorySources = (key: string, seqStart: number, seqEnd: number) =>
  call<StoredMessage[]>('memory_sources', { key, seqStart, seqEnd });
export const updateMemoryItem = (kind: MemoryItemKind, id: string, content: string) =>
  call<void>('update_memory_item', { kind, id, content });
export const deleteMemoryItem = (kind: MemoryItemKind, id: string) =>
  call<void>('delete_memory_item', { kind, id });
export const inspect = (key: string) => call<InspectView>('inspect', { key });

// Settings
export const getSettings = () => call<SettingsView>('get_settings');
/** The settings document alone (no key locations: the keychain is not asked). */
export const getSettingsDocument = () => call<SettingsDocument>('get_settings_document');
export const validateSettings = (document: SettingsDocument) =>
  call<ValidationReport>('validate_settings', { document });
export const saveSettings = (document: SettingsDocument) =>
  call<SettingsView>('save_settings', { document });
export const setApiKey = (provider: string, key: string) =>
  call<KeyLocation>('set_api_key', { provider, key });
export const deleteApiKey = (provider: string) => call<void>('delete_api_key', { provider });
export const testConnection = (document: SettingsDocument, provider: string, key: string | null) =>
  call<ModelEntry[]>('test_connection', { document, provider, key });
export const listModels = () => call<ModelEntry[]>('list_models');
export const setModel = (model: string) => call<SettingsView>('set_model', { model });
