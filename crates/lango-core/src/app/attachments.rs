//! Attaching files from the desktop: a file is prepared and stored when it is attached (so
//! its chip shows its real token cost before sending), a message then names the stored files
//! by hash, and a sent message's images are read back for their thumbnails. The rules are
//! `attachments`'; this is orchestration.

use base64::Engine as _;

use super::dto::{AttachmentImage, AttachmentInfo};
use super::{App, AppError};
use crate::attachments::{limits, prepare_off_thread, read_file, AttachmentError};
use crate::store::AttachmentRef;

impl From<AttachmentError> for AppError {
    fn from(e: AttachmentError) -> Self {
        let code = match &e {
            AttachmentError::MessageTooLarge { .. } => "attachments_too_large".to_owned(),
            AttachmentError::TooMany { .. } => "attachments_too_many".to_owned(),
            other => format!("attachment_{}", other.code()),
        };
        AppError::new(code, e.to_string())
    }
}

impl App {
    /// Checks, reads and stores one file (an image is scaled down, a PDF's text extracted —
    /// seconds for a large one, on a blocking thread). The same bytes are stored once.
    pub async fn prepare_attachment(
        &self,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<AttachmentInfo, AppError> {
        let counter = self.inner.store.counter().clone();
        let prepared = prepare_off_thread(name.to_owned(), bytes, counter).await?;
        Ok(self.inner.store.put_attachment(&prepared).await?)
    }

    /// [`App::prepare_attachment`] for a file on disk (dropped on the window), read only
    /// when its size is within the caps.
    pub async fn prepare_attachment_path(&self, path: &str) -> Result<AttachmentInfo, AppError> {
        let (name, bytes) = read_file(std::path::Path::new(path)).await?;
        self.prepare_attachment(&name, bytes).await
    }

    /// The stored files `hashes` names, in that order, within one message's limits.
    pub(super) async fn attachment_refs(
        &self,
        hashes: &[String],
    ) -> Result<Vec<AttachmentRef>, AppError> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        let stored = self.inner.store.attachments(hashes).await?;
        let mut refs = Vec::with_capacity(hashes.len());
        for hash in hashes {
            let Some(s) = stored.iter().find(|s| &s.attachment.hash == hash) else {
                return Err(AppError::new(
                    "attachment_missing",
                    "An attached file is no longer stored; attach it again.",
                ));
            };
            refs.push(AttachmentRef::of(&s.attachment));
        }
        let sizes: Vec<u64> = refs.iter().map(|r| r.size).collect();
        limits::check_message(&sizes)?;
        Ok(refs)
    }

    /// A stored image as the models get it (downscaled), for a sent message's thumbnail.
    pub async fn attachment_image(&self, hash: &str) -> Result<AttachmentImage, AppError> {
        let image = self
            .inner
            .store
            .attachment(hash)
            .await?
            .and_then(|s| s.attachment.image)
            .ok_or_else(|| AppError::new("not_found", "That image is no longer stored."))?;
        Ok(AttachmentImage {
            mime: image.mime,
            data: base64::engine::general_purpose::STANDARD.encode(&image.data),
        })
    }
}
