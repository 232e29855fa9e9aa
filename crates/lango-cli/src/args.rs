//! The command line grammar.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "lango",
    version,
    about = "Lango: a local-first AI agent with observational memory"
)]
pub struct Cli {
    /// Keep every file (database, settings, logs) in this folder instead of the platform
    /// folders. Overrides LANGO_HOME.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Machine-readable JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show, check and locate settings; store API keys.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Chat with the configured model: one message, or an interactive prompt without one.
    /// Ctrl-C stops the reply (what arrived is kept, marked interrupted); so do SIGTERM and
    /// SIGHUP, which also end the chat (exit 143 / 129).
    Chat {
        /// Continue this conversation (created if it does not exist).
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
        /// Start a new conversation (default: continue the most recent one).
        #[arg(long, conflicts_with = "session")]
        new: bool,
        /// Print each reply when it is complete instead of as it streams.
        #[arg(long)]
        no_stream: bool,
        /// Tool calls that need approval: ask on the terminal (denied without one), run all,
        /// or deny all.
        #[arg(long, value_enum, default_value_t = ApproveMode::Ask)]
        approve: ApproveMode,
        /// Switch this conversation to another configured provider (kept for its later
        /// turns, in the desktop app too); without --model, that provider's default model.
        #[arg(long, value_name = "ID")]
        provider: Option<String>,
        /// Switch this conversation to another model (kept for its later turns).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Attach a file to the message (repeatable): an image (PNG, JPEG, WebP, GIF), a PDF
        /// or a text/code file. Without MESSAGE, they go with the first message typed.
        #[arg(long = "attach", value_name = "FILE")]
        attach: Vec<std::path::PathBuf>,
        /// The message to send. Without it, lango reads messages from the prompt (or stdin).
        message: Option<String>,
    },
    /// See, check and clear what the observational memory holds.
    Memory {
        #[command(subcommand)]
        command: MemoryCommand,
    },
    /// Browse conversations.
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
    },
    /// The MCP servers in the settings ("mcpServers"): their state and tools.
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Check the database and list its backups (exit 7 when it is damaged); restore a backup
    /// or salvage a damaged file. Close the app and other lango commands first.
    Doctor {
        #[command(subcommand)]
        command: Option<DoctorCommand>,
    },
    /// Import conversations from a ChatGPT or Claude data export (its conversations.json;
    /// unzip the export first). Importing the same file again adds no duplicates: new
    /// messages of a conversation imported before are appended. Nothing goes over the network
    /// unless --build-memory.
    Import {
        /// The export's conversations.json.
        file: PathBuf,
        /// Then run the observational memory over the imported conversations (it must be on).
        /// Shows what that sends to the memory model first and asks (--yes when not on a
        /// terminal).
        #[arg(long)]
        build_memory: bool,
        #[arg(long, requires = "build_memory")]
        yes: bool,
    },
    /// Ask the release feed in the settings (updates.feedUrl) whether a newer Lango exists.
    /// Nothing is downloaded. Exit 0 up to date, 100 a newer version exists, 3 no feed set,
    /// 8 the feed could not be fetched or read.
    Update {
        #[command(subcommand)]
        command: UpdateCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum UpdateCommand {
    /// Check for a newer version (one request to the feed; never installs anything).
    Check,
}

#[derive(Debug, Subcommand)]
pub enum DoctorCommand {
    /// Take today's backup now and wait for it, however long a large database takes (other
    /// commands take it in the background only while the database is small enough to copy
    /// in the few seconds they wait for it).
    Backup,
    /// Put a backup in place of the database. The current file is first copied aside as
    /// lango.db.damaged-<time>, never deleted. Asks first unless --yes.
    Restore {
        /// A file name as `lango doctor` lists it, or a path.
        backup: String,
        #[arg(long)]
        yes: bool,
    },
    /// Copy every row that can still be read from a damaged database into a new file next to
    /// it; the damaged file is not changed.
    Salvage {
        /// Then put the salvaged file in place, as restore does. Asks first unless --yes.
        #[arg(long)]
        apply: bool,
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ApproveMode {
    Ask,
    All,
    None,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every configured server and list its state and tools.
    List,
    /// Start one server and say whether it works (exit 0) or why not.
    Test { name: String },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective settings (defaults filled in).
    Show,
    /// Check the settings file and report every problem at once.
    Validate,
    /// Print where Lango keeps its files.
    Path,
    /// Store a provider's API key in the OS keychain (read from stdin, never from arguments).
    SetKey {
        /// Provider id, as in the settings file.
        provider: String,
    },
    /// Remove a provider's stored API key.
    DeleteKey { provider: String },
}

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Reflections then observations of a conversation (default: the most recent one).
    List {
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
    /// Progress towards the next observation and reflection.
    Status {
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
    /// Delete a conversation's observations and reflections. Asks first unless --yes.
    Clear {
        #[arg(long, value_name = "KEY")]
        session: String,
        #[arg(long)]
        yes: bool,
    },
    /// Print exactly what the next message would send the model, with token counts.
    Inspect {
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
    /// Observe and reflect now whatever is due, waiting for the memory's model however long
    /// it takes (quitting `lango chat` waits at most 3 s for it: a slow local model's notes
    /// are made here).
    Update {
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List conversations: pinned first, then most recent.
    List {
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[arg(long, default_value_t = 0)]
        offset: u32,
    },
    /// Print a conversation, compacted messages included.
    Show { key: String },
    /// Search every conversation's messages and memory notes (the app's search: every word
    /// must match, the last as a prefix), best matches first.
    Search {
        query: String,
        /// Only this conversation.
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: u32,
        #[arg(long, default_value_t = 0)]
        offset: u32,
    },
    /// Give a conversation a title.
    Rename { key: String, title: String },
    /// Pin a conversation to the top of the list (or unpin it).
    Pin {
        key: String,
        #[arg(long)]
        off: bool,
    },
    /// Delete a conversation with its memory. Asks first unless --yes.
    Delete {
        key: String,
        #[arg(long)]
        yes: bool,
    },
    /// Write a conversation as Markdown or JSON to stdout (or --output FILE).
    Export {
        key: String,
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}
