//! The application service: everything the desktop window can ask of the engine, as one
//! long-lived, cloneable handle with typed inputs and outputs (see `dto`).
//!
//! Owns the app's lifetime state: the open store, the loaded settings, the engine built from
//! them (rebuilt when settings are saved), the turns in flight (for stop) and the memory
//! event channel that outlives engine rebuilds. It is GUI-free so all of it is tested
//! without a window; the Tauri shell only forwards commands and events.
//!
//! It must not hold business rules of its own beyond orchestration: chat rules live in
//! `agent`, memory rules in `memory`, persistence in `store`, validation in `config`.

mod attachments;
mod chat;
mod conversation;
pub mod dto;
mod error;
mod first_run;
mod import;
mod memory;
mod plain;
pub mod recovery;
mod sessions;
mod settings;
mod storage;
pub mod stream;
mod tool_results;
mod tools;
mod updates;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, RwLock};
use tokio_util::sync::CancellationToken;

pub use dto::*;
pub use error::AppError;
pub use updates::update_check;

use crate::agent::ApprovalDecision;
use crate::config::{self, Settings};
use crate::engine::Engine;
use crate::memory::MemoryEvent;
use crate::paths::AppPaths;
use crate::secrets::{session_status, KeychainStatus, SecretStore};
use crate::store::Store;
use crate::tools::mcp::{McpHub, ServerOptions};

/// How long quitting waits for stopped turns to store their partial replies.
const TURN_DRAIN_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A handle to the running app. Cheap to clone; all clones share one state.
#[derive(Clone, Debug)]
pub struct App {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    paths: AppPaths,
    store: Store,
    running: RwLock<Running>,
    /// Session key → the cancel token of its turn in flight.
    turns: Mutex<HashMap<String, CancellationToken>>,
    memory_events: broadcast::Sender<MemoryEvent>,
    /// The MCP servers: started once, kept across engine rebuilds.
    mcp: McpHub,
    /// Approval cards waiting for the user's answer.
    approvals: Mutex<Approvals>,
    /// Files this app wrote by exporting: the only ones it will show in a file manager.
    exports: Mutex<Vec<std::path::PathBuf>>,
    /// The import and the memory build running now (one of each at a time), to stop them.
    jobs: Mutex<HashMap<&'static str, CancellationToken>>,
    /// Why today's backup was not taken, once its background run tried.
    backup_problem: crate::store::recovery::BackupProblemSlot,
}

/// (session key, call id) → where the user's answer goes.
type Approvals = HashMap<(String, String), tokio::sync::oneshot::Sender<ApprovalDecision>>;

/// What the current settings produced.
#[derive(Debug)]
struct Running {
    settings: Settings,
    /// Why the settings file could not be used (the app then runs on defaults).
    load_error: Option<AppError>,
    engine: Option<Arc<Engine>>,
    /// Why there is no engine.
    problem: Option<AppError>,
}

impl App {
    /// Opens the store (a corrupt or too-new database is an error: nothing is reset) and
    /// builds the engine from the settings. A missing provider or a broken settings file is
    /// not an error here: the app starts and says what is wrong (`status().problem`).
    pub async fn open(paths: AppPaths) -> Result<Self, AppError> {
        let store = Store::open_app(&paths).await?;
        store.start_background_indexing();
        store.start_moving_legacy_results();
        // The OS keychain is not asked anything here: whether it works is probed when a key
        // is stored or the settings screen opens (`secrets::session_status`), and keys are
        // read without a probe — a start never waits on D-Bus or an unlock prompt.
        let (memory_events, _) = broadcast::channel(256);
        let loaded = match first_run::write_if_missing(&paths) {
            Some(settings) => Ok(config::Loaded {
                settings,
                warnings: Vec::new(),
            }),
            None => config::load(&paths),
        };
        let (settings, load_error) = match loaded {
            Ok(loaded) => {
                for warning in &loaded.warnings {
                    tracing::warn!("{warning}");
                }
                (loaded.settings, None)
            }
            Err(e) => {
                tracing::error!("settings not loaded, running on defaults: {e}");
                (Settings::default(), Some(AppError::from(e)))
            }
        };
        // After the store opened: a database that cannot be opened is not copied.
        // The app runs long enough for it: nothing waits for it, and a large database's
        // copy starts once the window is up rather than competing with its start.
        let delay = crate::store::recovery::backup_delay(&paths.database_file());
        let backup_problem =
            crate::store::recovery::spawn_daily_backup(&paths, &settings.backups, delay)
                .map(|running| running.problem())
                .unwrap_or_default();
        let mcp = McpHub::new(ServerOptions {
            secrets: Some(SecretStore::probing_when_needed(
                settings.secrets.allow_file_store,
                &paths.config_dir,
            )),
            ..ServerOptions::default()
        });
        let app = Self {
            inner: Arc::new(Inner {
                paths,
                store,
                running: RwLock::new(Running {
                    settings: Settings::default(),
                    load_error: None,
                    engine: None,
                    problem: None,
                }),
                turns: Mutex::new(HashMap::new()),
                memory_events,
                mcp,
                approvals: Mutex::new(HashMap::new()),
                exports: Mutex::new(Vec::new()),
                jobs: Mutex::new(HashMap::new()),
                backup_problem,
            }),
        };
        app.install(settings, load_error).await;
        Ok(app)
    }

    /// Builds an engine for `settings` and makes both current; the previous engine's memory
    /// finishes its cycle in the background (turns still running keep their engine).
    async fn install(&self, settings: Settings, load_error: Option<AppError>) {
        self.inner.mcp.apply(&settings.mcp_servers);
        let built = Engine::assemble(
            &self.inner.paths,
            settings.clone(),
            self.inner.store.clone(),
            self.inner.memory_events.clone(),
            Some(Arc::new(self.inner.mcp.clone())),
        );
        let (engine, problem) = match built {
            Ok(engine) => (Some(Arc::new(engine)), load_error.clone()),
            Err(e) => {
                let e = AppError::from(e);
                if e.code != "no_provider" {
                    tracing::warn!("chat unavailable: {e}");
                }
                (None, Some(load_error.clone().unwrap_or(e)))
            }
        };
        let previous = {
            let mut running = self.inner.running.write().await;
            let previous = running.engine.take();
            *running = Running {
                settings,
                load_error,
                engine,
                problem,
            };
            previous
        };
        if let Some(old) = previous {
            tokio::spawn(async move { old.stop_memory().await });
        }
    }

    /// The engine, or why chat is unavailable.
    async fn engine(&self) -> Result<Arc<Engine>, AppError> {
        let running = self.inner.running.read().await;
        running.engine.clone().ok_or_else(|| {
            running
                .problem
                .clone()
                .unwrap_or_else(|| AppError::new("no_provider", "no provider is configured yet"))
        })
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn paths(&self) -> &AppPaths {
        &self.inner.paths
    }

    /// Memory status and "memory updated" events of every session.
    pub fn subscribe_memory(&self) -> broadcast::Receiver<MemoryEvent> {
        self.inner.memory_events.subscribe()
    }

    fn secret_store(&self, settings: &Settings) -> SecretStore {
        SecretStore::probing_when_needed(
            settings.secrets.allow_file_store,
            &self.inner.paths.config_dir,
        )
    }

    /// Whether the keychain works, probing it the first time (blocks: see `App::settings`).
    fn keychain_info(&self, settings: &Settings) -> KeychainInfo {
        let keychain = session_status();
        KeychainInfo {
            available: keychain.is_available(),
            reason: match &keychain {
                KeychainStatus::Available => None,
                KeychainStatus::Unavailable { reason } => Some(reason.clone()),
            },
            file_fallback_allowed: settings.secrets.allow_file_store,
        }
    }

    /// Whether chat works, with what, and where things are.
    pub async fn status(&self) -> AppStatus {
        let running = self.inner.running.read().await;
        let paths = &self.inner.paths;
        let (provider, model) = match &running.engine {
            Some(e) => (e.provider_id.clone(), e.model.clone()),
            None => {
                let (p, m) = running.settings.effective_agent();
                (p.to_owned(), m.to_owned())
            }
        };
        AppStatus {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            data_dir: paths.data_dir.display().to_string(),
            config_file: paths.settings_file().display().to_string(),
            log_dir: paths.log_dir.display().to_string(),
            ready: running.engine.is_some(),
            provider,
            model,
            memory_enabled: match &running.engine {
                Some(e) => e.memory.is_some(),
                // No engine yet (first run): what the settings say, so the guide can tell.
                None => running.settings.observational_memory.enabled,
            },
            problem: running.problem.clone(),
            theme: running.settings.appearance.theme,
        }
    }

    /// Stops accepting turns, cancels those in flight, finishes the memory cycle in progress
    /// and closes the store. The last call before the process exits.
    fn has_turns(&self) -> bool {
        match self.inner.turns.lock() {
            Ok(t) => !t.is_empty(),
            Err(poisoned) => !poisoned.into_inner().is_empty(),
        }
    }

    pub async fn shutdown(&self) {
        let tokens: Vec<CancellationToken> = match self.inner.turns.lock() {
            Ok(turns) => turns.values().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().values().cloned().collect(),
        };
        for token in tokens {
            token.cancel();
        }
        // A stopped turn writes its partial reply (marked interrupted) as it ends: let it,
        // for a bounded time, before the store closes.
        let deadline = tokio::time::Instant::now() + TURN_DRAIN_LIMIT;
        while self.has_turns() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let engine = self.inner.running.write().await.engine.take();
        if let Some(engine) = engine {
            engine.stop_memory().await;
        }
        self.inner.mcp.shutdown();
        self.inner.store.close().await;
    }
}
