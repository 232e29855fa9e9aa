//! Settings → Data → Import: import a ChatGPT or Claude export with progress, stop it, and
//! build the memory of imported conversations (its cost first, then in the background with
//! progress, stoppable). Thin calls into `import`; one import and one build at a time.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{App, AppError};
use crate::import::memory::{BuildProgress, BuildReport, MemoryEstimate};
use crate::import::{ImportError, ImportProgress, ImportSummary};

const IMPORT_JOB: &str = "import";
const MEMORY_JOB: &str = "import-memory";

impl From<ImportError> for AppError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Store(s) => s.into(),
            other => Self::new(other.code(), other.to_string()),
        }
    }
}

/// A path as typed, pasted or dropped: surrounding quotes and spaces, `file://` URLs and a
/// leading `~` are accepted.
fn user_path(text: &str) -> Option<PathBuf> {
    let text = text.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    if text.is_empty() {
        return None;
    }
    let text = text.strip_prefix("file://").unwrap_or(text);
    if let Some(rest) = text.strip_prefix("~/") {
        if let Some(home) = directories::UserDirs::new() {
            return Some(home.home_dir().join(rest));
        }
    }
    Some(PathBuf::from(text))
}

impl App {
    /// Imports the export at `path`, sending progress to `on_progress`. Runs off the caller's
    /// thread (reading on a blocking thread); another import running → `busy`.
    pub async fn import_file(
        &self,
        path: &str,
        on_progress: impl Fn(ImportProgress) + Send + Sync + 'static,
    ) -> Result<ImportSummary, AppError> {
        let path = user_path(path).ok_or_else(|| {
            AppError::new(
                "import_no_file",
                "Choose the conversations.json file of a ChatGPT or Claude export.",
            )
        })?;
        let job = self.start_job(IMPORT_JOB)?;
        Ok(crate::import::import_file(
            &self.inner.store,
            &path,
            Arc::new(on_progress),
            job.cancel.clone(),
        )
        .await?)
    }

    /// Stops the import in progress (the conversations written so far stay); false when none
    /// runs.
    pub fn cancel_import(&self) -> bool {
        self.cancel_job(IMPORT_JOB)
    }

    /// What building the memory of `keys` (empty = every imported conversation) would send
    /// to the memory model. Sends nothing.
    pub async fn estimate_import_memory(
        &self,
        keys: Vec<String>,
    ) -> Result<MemoryEstimate, AppError> {
        let engine = self.engine().await?;
        let memory = engine.memory.as_ref().ok_or_else(memory_off)?;
        let keys = self.import_keys(keys).await?;
        crate::import::memory::estimate(memory.cycle.observer(), &self.inner.store, &keys)
            .await
            .map_err(|e| AppError::new("memory", e.to_string()))
    }

    /// Runs the memory over `keys` (empty = every imported conversation) until nothing is
    /// left to observe, with progress; [`App::cancel_import_memory`] stops it.
    pub async fn build_import_memory(
        &self,
        keys: Vec<String>,
        on_progress: impl Fn(BuildProgress) + Send + Sync + 'static,
    ) -> Result<BuildReport, AppError> {
        let engine = self.engine().await?;
        let memory = engine.memory.as_ref().ok_or_else(memory_off)?;
        let keys = self.import_keys(keys).await?;
        let job = self.start_job(MEMORY_JOB)?;
        Ok(crate::import::memory::build(&memory.cycle, &keys, &on_progress, &job.cancel).await)
    }

    pub fn cancel_import_memory(&self) -> bool {
        self.cancel_job(MEMORY_JOB)
    }

    async fn import_keys(&self, keys: Vec<String>) -> Result<Vec<String>, AppError> {
        if !keys.is_empty() {
            return Ok(keys);
        }
        let mut all: Vec<String> = self
            .inner
            .store
            .import_origins()
            .await?
            .into_keys()
            .collect();
        all.sort();
        Ok(all)
    }

    fn start_job(&self, job: &'static str) -> Result<Job<'_>, AppError> {
        let mut jobs = self
            .inner
            .jobs
            .lock()
            .map_err(|_| AppError::new("busy", "another import is still running"))?;
        if jobs.contains_key(job) {
            return Err(AppError::new(
                "busy",
                "Another import is still running: wait for it to finish or stop it.",
            ));
        }
        let cancel = CancellationToken::new();
        jobs.insert(job, cancel.clone());
        Ok(Job {
            app: self,
            name: job,
            cancel,
        })
    }

    fn cancel_job(&self, job: &'static str) -> bool {
        match self.inner.jobs.lock() {
            Ok(jobs) => jobs.get(job).map(CancellationToken::cancel).is_some(),
            Err(_) => false,
        }
    }
}

/// A running job; dropped (finished, failed, or its caller gone) it is no longer running.
struct Job<'a> {
    app: &'a App,
    name: &'static str,
    cancel: CancellationToken,
}

impl Drop for Job<'_> {
    fn drop(&mut self) {
        if let Ok(mut jobs) = self.app.inner.jobs.lock() {
            jobs.remove(self.name);
        }
    }
}

fn memory_off() -> AppError {
    AppError::new(
        "memory_off",
        "The memory is off: turn it on in Settings → Memory to build it for imported conversations.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_and_dropped_paths_are_accepted() {
        assert_eq!(
            user_path("  \"/tmp/conversations.json\" "),
            Some(PathBuf::from("/tmp/conversations.json"))
        );
        assert_eq!(
            user_path("file:///tmp/a b.json"),
            Some(PathBuf::from("/tmp/a b.json"))
        );
        assert_eq!(user_path("  "), None);
    }
}
