//! The sessions sidebar and the message list: list, create, rename, pin, delete, search,
//! page through messages, export. Thin calls into `store` and `export`.

use std::path::PathBuf;

use super::dto::{ExportFormat, ExportResult, SessionSummary, SessionsPage};
use super::{App, AppError};
use crate::store::{FindMatches, SearchResults, SessionCursor, StoredMessage};

/// The folder a Markdown export's attached files go in, beside it: `<name without .md> files`.
pub(crate) fn files_folder(export_name: &str) -> String {
    let stem = export_name.strip_suffix(".md").unwrap_or(export_name);
    format!("{stem} files")
}

/// Writes an export's attached files under `dir` (their paths are `folder/name`).
fn write_export_files(
    dir: &std::path::Path,
    files: &[crate::export::ExportFile],
) -> Result<(), AppError> {
    for file in files {
        let path = file
            .relative
            .split('/')
            .fold(dir.to_path_buf(), |p, part| p.join(part));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                AppError::new("export", format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        std::fs::write(&path, &file.bytes).map_err(|e| {
            AppError::new("export", format!("cannot write {}: {e}", path.display()))
        })?;
    }
    Ok(())
}

/// Most messages one page may ask for (the list is virtualised and pages as it scrolls).
const MAX_PAGE: u32 = 500;

impl App {
    /// The first `limit` conversations, pinned first, then the most recently active.
    pub async fn list_sessions(&self, limit: u32) -> Result<Vec<SessionSummary>, AppError> {
        Ok(self.list_sessions_page(limit, None).await?.sessions)
    }

    /// A page of the conversations in the sidebar's order: `limit` after `after` (from the
    /// top when None), and where the next page starts.
    pub async fn list_sessions_page(
        &self,
        limit: u32,
        after: Option<SessionCursor>,
    ) -> Result<SessionsPage, AppError> {
        let (sessions, next) = self.inner.store.list_sessions_after(limit, after).await?;
        let mut sessions: Vec<SessionSummary> =
            sessions.into_iter().map(SessionSummary::from).collect();
        let origins = self.inner.store.import_origins().await?;
        for s in &mut sessions {
            s.origin = origins.get(&s.key).cloned();
        }
        Ok(SessionsPage { sessions, next })
    }

    /// A new, empty, untitled conversation (titled by its first message).
    pub async fn create_session(&self) -> Result<SessionSummary, AppError> {
        let key = new_session_key();
        Ok(self.inner.store.create_session(&key, "").await?.into())
    }

    pub async fn rename_session(&self, key: &str, title: &str) -> Result<(), AppError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(AppError::new("empty_title", "a conversation needs a name"));
        }
        Ok(self.inner.store.rename_session(key, title).await?)
    }

    pub async fn pin_session(&self, key: &str, pinned: bool) -> Result<(), AppError> {
        Ok(self.inner.store.pin_session(key, pinned).await?)
    }

    /// Deletes a conversation with its messages, archive, memory, vectors and graph. A turn
    /// in flight is stopped first.
    pub async fn delete_session(&self, key: &str) -> Result<(), AppError> {
        self.stop(key);
        if self.inner.store.delete_session(key).await? {
            Ok(())
        } else {
            Err(AppError::new(
                "not_found",
                format!("conversation {key:?} not found"),
            ))
        }
    }

    /// Full-text search across every conversation (or one), best matches first: `limit`
    /// hits after the first `offset`, with the count of all (capped, see `SearchResults`).
    pub async fn search(
        &self,
        query: &str,
        session_key: Option<&str>,
        limit: u32,
        offset: u32,
    ) -> Result<SearchResults, AppError> {
        Ok(self
            .inner
            .store
            .search_page(query, session_key, limit.clamp(1, 200), offset)
            .await?)
    }

    /// The messages of conversation `key` containing `text` (the chat's Find), oldest first.
    pub async fn find_in_session(&self, key: &str, text: &str) -> Result<FindMatches, AppError> {
        match self.inner.store.find_in_session(key, text).await {
            // A conversation not started yet has nothing to find.
            Err(crate::store::StoreError::NotFound { .. }) => Ok(FindMatches {
                seqs: Vec::new(),
                truncated: false,
            }),
            other => Ok(other?),
        }
    }

    /// Indexes every message still queued for search (a batch at a time, so sends never wait
    /// long): what a one-shot command does before searching, where the background indexing
    /// has no time to catch up.
    pub async fn index_for_search(&self) -> Result<u64, AppError> {
        Ok(self.inner.store.index_pending_messages().await?)
    }

    /// Up to `limit` messages before `before_seq` (None = the newest), oldest first,
    /// archived ones included: what the message list shows.
    pub async fn page_messages(
        &self,
        key: &str,
        before_seq: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredMessage>, AppError> {
        let messages = match self
            .inner
            .store
            .page_messages(key, before_seq, limit.clamp(1, MAX_PAGE))
            .await
        {
            // A conversation not started yet has no messages.
            Err(crate::store::StoreError::NotFound { .. }) => return Ok(Vec::new()),
            other => other?,
        };
        let mut messages = self.with_costs(messages).await;
        super::tool_results::cut_for_page(&mut messages);
        Ok(messages)
    }

    /// Writes the conversation to a file in the user's Downloads folder (else the data
    /// folder's `exports/`) and returns where. API keys are never in the store, so never in
    /// an export.
    pub async fn export_session(
        &self,
        key: &str,
        format: ExportFormat,
    ) -> Result<ExportResult, AppError> {
        let session = self.inner.store.get_session(key).await?;
        let ext = match format {
            ExportFormat::Markdown => "md",
            ExportFormat::Json => "json",
        };
        let dir = self.ready_export_dir()?;
        let stem = file_stem(&session.title, key);
        let mut name = format!("{stem}.{ext}");
        let mut n = 2;
        while dir.join(&name).exists() || dir.join(files_folder(&name)).exists() {
            name = format!("{stem} ({n}).{ext}");
            n += 1;
        }
        let path = dir.join(&name);
        let (text, files) = match format {
            // The attached files go in a folder beside it, linked from the messages.
            ExportFormat::Markdown => {
                crate::export::to_markdown_with_files(&self.inner.store, key, &files_folder(&name))
                    .await?
            }
            ExportFormat::Json => {
                let doc = crate::export::to_json(&self.inner.store, key).await?;
                let text = serde_json::to_string_pretty(&doc)
                    .map_err(|e| AppError::new("export", e.to_string()))?;
                (text, Vec::new())
            }
        };
        write_export_files(&dir, &files)?;
        self.write_export(path, &text)
    }

    /// Writes `text` to `path` and remembers the file as this window's export (so the window
    /// may show it in the file manager).
    pub(super) fn write_export(&self, path: PathBuf, text: &str) -> Result<ExportResult, AppError> {
        std::fs::write(&path, text.as_bytes()).map_err(|e| {
            AppError::new("export", format!("cannot write {}: {e}", path.display()))
        })?;
        let shown = path.display().to_string();
        self.exports().push(path);
        Ok(ExportResult {
            path: shown,
            bytes: text.len(),
        })
    }

    /// The folder exports go in, created when missing.
    pub(super) fn ready_export_dir(&self) -> Result<PathBuf, AppError> {
        let dir = self.export_dir();
        std::fs::create_dir_all(&dir).map_err(|e| {
            AppError::new("export", format!("cannot create {}: {e}", dir.display()))
        })?;
        Ok(dir)
    }

    /// The file at `path` if this app exported it (and it is still there): what the desktop
    /// may show in the file manager. Any other path — the webview's word is not enough — is
    /// refused.
    pub fn exported_file(&self, path: &str) -> Result<PathBuf, AppError> {
        let wanted = PathBuf::from(path);
        let known = self.exports().contains(&wanted);
        if !known {
            return Err(AppError::new(
                "not_an_export",
                "Only files exported from this window can be shown.",
            ));
        }
        if !wanted.is_file() {
            return Err(AppError::new(
                "not_found",
                format!("{} is no longer there.", wanted.display()),
            ));
        }
        Ok(wanted)
    }

    fn exports(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        // A panic while holding this list leaves it usable: it is only a list of paths.
        self.inner
            .exports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn export_dir(&self) -> PathBuf {
        if let Some(dir) = &self.inner.paths.export_dir {
            return dir.clone();
        }
        directories::UserDirs::new()
            .and_then(|u| u.download_dir().map(PathBuf::from))
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| self.inner.paths.data_dir.join("exports"))
    }
}

/// `chat-<local time>-<4 hex>`: sortable, readable, and two chats started in the same
/// second still differ.
pub(crate) fn new_session_key() -> String {
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
    format!("chat-{stamp}-{:04x}", fastrand::u16(..))
}

/// A file name from the title that every desktop OS accepts (`export::portable_stem`).
fn file_stem(title: &str, key: &str) -> String {
    let base = if title.trim().is_empty() { key } else { title };
    match crate::export::portable_stem(base, "").as_str() {
        "" => "conversation".to_owned(),
        cleaned => format!("Lango - {cleaned}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_file_names_never_contain_path_separators() {
        assert_eq!(file_stem("a/b\\c: d?", "k"), "Lango - a-b-c- d-");
        assert_eq!(file_stem("", "chat-1"), "Lango - chat-1");
        assert_eq!(file_stem("..", "k"), "conversation");
        assert_eq!(file_stem("NUL", "k"), "conversation");
    }

    #[test]
    fn new_session_keys_differ() {
        let keys: std::collections::HashSet<String> = (0..50).map(|_| new_session_key()).collect();
        assert!(
            keys.len() > 40,
            "keys should rarely collide: {}",
            keys.len()
        );
    }
}
