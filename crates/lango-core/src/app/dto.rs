//! The app's wire types: what the desktop UI sends and receives (serde, camelCase). Plain
//! data with no behaviour; the TypeScript mirror is `ui/src/lib/api/types.ts` and the two
//! must change together.

use serde::{Deserialize, Serialize};

use super::error::AppError;
use crate::agent::ToolHints;
use crate::config::{Problem, Theme};
use crate::conversation::{ConversationSettings, ConversationUsage, EffectiveSettings};
use crate::memory::MemoryStatus;
use crate::secrets::KeyLocation;
use crate::store::{Observation, Reflection, Session, SessionCursor, ToolCallStatus, ToolImage};

/// Whether the app can chat, and why not.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub version: String,
    pub data_dir: String,
    pub config_file: String,
    pub log_dir: String,
    /// A provider is configured and the agent was built: chat works.
    pub ready: bool,
    /// The provider and model in use ("" when none / the provider's default).
    pub provider: String,
    pub model: String,
    /// The observational memory runs (without an engine yet: the settings turn it on).
    pub memory_enabled: bool,
    /// Why chat is unavailable (`no_provider` on first run, a settings or key problem…).
    pub problem: Option<AppError>,
    /// The appearance setting, so the window takes its theme from the status alone.
    pub theme: Theme,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeychainInfo {
    pub available: bool,
    /// Why not, when unavailable (keys then need `secrets.allowFileStore` or an env var).
    pub reason: Option<String>,
    /// `secrets.allowFileStore`: keys may fall back to an unencrypted file.
    pub file_fallback_allowed: bool,
}

/// A conversation in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub key: String,
    pub title: String,
    pub model: String,
    pub pinned: bool,
    pub created_at: i64,
    pub updated_at: i64,
    /// The app it was imported from (`chatgpt`, `claude`); None for Lango's own.
    pub origin: Option<String>,
}

/// A page of the sidebar's conversations and where the next one starts (None after the
/// last): the UI hands `next` back for the next page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsPage {
    pub sessions: Vec<SessionSummary>,
    pub next: Option<SessionCursor>,
}

impl From<Session> for SessionSummary {
    fn from(s: Session) -> Self {
        Self {
            key: s.key,
            title: s.title,
            model: s.model,
            pinned: s.pinned,
            created_at: s.created_at,
            updated_at: s.updated_at,
            origin: None,
        }
    }
}

/// What streams to the UI during a turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ChatEvent {
    /// More reply text (several model deltas batched together).
    Delta { text: String },
    /// The model called a tool.
    ToolCall {
        id: String,
        /// The name the model used (`server__tool` for MCP tools).
        name: String,
        args: serde_json::Value,
        /// The MCP server and the tool's own name there; `None` for built-in tools.
        server: Option<String>,
        tool: Option<String>,
    },
    /// The turn waits for the user: allow or deny this call (`App::approve_tool_call`).
    ToolApproval {
        id: String,
        name: String,
        server: String,
        tool: String,
        description: String,
        annotations: ToolHints,
        args: serde_json::Value,
    },
    /// A running tool reported progress.
    ToolProgress {
        id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A tool answered (or was denied, timed out, failed).
    ToolResult {
        id: String,
        name: String,
        /// What the model got (cut to `tools.maxOutputTokens`).
        result: serde_json::Value,
        status: ToolCallStatus,
        duration_ms: Option<u64>,
        prompt_tokens: Option<u64>,
        omitted_tokens: Option<u64>,
        images: Vec<ToolImage>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnStatus {
    Complete,
    /// The user pressed stop: the reply so far is kept, marked interrupted.
    Stopped,
    Failed,
}

/// How a turn ended. The UI reloads the messages from the store afterwards: the store is
/// the truth, the stream only a preview.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    pub status: TurnStatus,
    pub error: Option<AppError>,
    /// The reply ended at the model's output limit: it is cut short and stored as
    /// `truncated`; sending "continue" gets the rest.
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Markdown,
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    /// The file written.
    pub path: String,
    pub bytes: usize,
}

/// A stored tool result as the card's "Show all" shows it: at most its first
/// `SHOWN_RESULT_BYTES` (more would freeze the window while laid out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultText {
    pub text: String,
    /// The whole result's size in bytes.
    pub bytes: usize,
    /// False when `text` is only the result's start.
    pub complete: bool,
}

/// What the user's data takes on disk (Settings → About).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageUsage {
    /// The database file with its write-ahead log.
    pub database_bytes: u64,
    pub conversations: u64,
    /// Backup files in the backups folder (daily, before upgrades, any a user put there).
    pub backups: u32,
    pub backups_bytes: u64,
    /// When the newest was taken (ms since the epoch).
    pub newest_backup_at: Option<i64>,
    /// Why today's backup was not taken, once this run tried (a damaged database, a full
    /// disk…).
    pub backup_problem: Option<AppError>,
}

/// The memory browser's data for one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryOverview {
    /// The conversation's title ("" when it has none yet), so the view can name it.
    pub title: String,
    pub enabled: bool,
    /// None when memory is off or the status could not be read.
    pub status: Option<MemoryStatus>,
    /// Oldest first.
    pub observations: Vec<Observation>,
    /// Oldest first.
    pub reflections: Vec<Reflection>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryItemKind {
    Observation,
    Reflection,
}

/// "What the model sees": the next request of a session, section by section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectView {
    pub system_prompt: String,
    pub sections: Vec<SectionView>,
    pub history: Vec<HistoryItemView>,
    pub history_tokens: usize,
    /// The history budget of each model call.
    pub history_budget: usize,
    /// The budget is what the model's server held, learned from its refusal of more in this
    /// run (its context is smaller than Lango's budget for the model: runner::fit).
    pub history_budget_learned: bool,
    /// `[Compacted Summary]` rows left out of `history` because the memory section already
    /// carries their note, and the history tokens that saved (the same memory is never sent
    /// twice).
    pub summaries_not_repeated: usize,
    pub summary_tokens_saved: usize,
    /// Tokens of the memory section (0 with memory off) and its budget.
    pub memory_tokens: usize,
    pub memory_budget: Option<usize>,
    pub memory_enabled: bool,
    /// The tool definitions every model call carries, and their tokens (≈; beside the
    /// system prompt and the history, outside both budgets).
    pub tool_definitions: usize,
    pub tool_definition_tokens: usize,
    /// Retrieval failures while assembling (the request would go out without that section).
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionView {
    /// `base`, `knowledge`, `runtime` or `memory`.
    pub name: String,
    pub tokens: usize,
    pub budget: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryItemView {
    pub role: String,
    /// Text parts, and tool calls/results rendered as one line each.
    pub text: String,
}

/// The settings screen's data. `settings` is the full settings document (the same JSON as
/// settings.json); keys are never part of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub settings: serde_json::Value,
    /// Where each configured provider's key is, in the settings' provider order.
    pub keys: Vec<ProviderKey>,
    pub keychain: KeychainInfo,
    /// The settings file could not be used as is (the app runs on defaults; saving replaces
    /// the file after backing it up).
    pub load_error: Option<AppError>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderKey {
    pub provider: String,
    pub location: KeyLocation,
    /// Human-readable, e.g. "stored in the OS keychain".
    pub description: String,
}

/// Saving settings that do not validate: every problem, tied to its field.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationReport {
    pub problems: Vec<Problem>,
    pub warnings: Vec<String>,
}

/// A file attached to a message, as the composer's chip and the message list show it:
/// `{hash, name, kind, mime, size, tokenCount}` (stored once by content hash).
pub type AttachmentInfo = crate::store::AttachmentRef;

/// A stored image as the models get it (downscaled), for a thumbnail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentImage {
    pub mime: String,
    /// Base64.
    pub data: String,
}

/// A conversation's own model and settings, what they resolve to, where it may switch, and
/// its totals (`App::conversation_settings`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    /// What the conversation overrides (absent = the Settings default).
    pub settings: ConversationSettings,
    /// What its next turn uses.
    pub effective: EffectiveSettings,
    /// Every configured provider, in id order.
    pub providers: Vec<ProviderChoice>,
    pub usage: ConversationUsage,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderChoice {
    pub id: String,
    /// `openai`, `anthropic`, `gemini`, `ollama`, `openai-compatible`.
    pub kind: String,
    /// `""` = the vendor's default.
    pub default_model: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelEntry {
    pub id: String,
    pub display_name: String,
}

/// The answer of Settings → About's "Check for updates" (`App::check_for_updates`).
/// Feed text (`notes`, `published`) is untrusted: the UI shows it as plain text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateCheck {
    /// This build's version.
    pub current: String,
    pub outcome: UpdateOutcome,
    /// The feed's latest version (`upToDate`, `available`).
    pub latest: Option<String>,
    /// The release page or download, always `http(s)://` (`available`).
    pub url: Option<String>,
    pub notes: Option<String>,
    pub published: Option<String>,
    /// Why there is no answer (`failed`, `off`).
    pub error: Option<UpdateProblem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UpdateOutcome {
    /// No feed is set: nothing was fetched.
    Off,
    UpToDate,
    Available,
    Failed,
}

/// A failed check: a sentence for the user and the technical detail (shown folded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProblem {
    pub code: String,
    pub message: String,
    pub detail: String,
}
