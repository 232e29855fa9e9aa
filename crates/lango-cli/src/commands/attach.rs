//! `lango chat --attach FILE`: each file checked, read (an image scaled down, a PDF's text
//! extracted, on a blocking thread) and stored once by content hash before the message goes.

use std::path::Path;

use lango_core::attachments::{limits, prepare, AttachmentError};
use lango_core::engine::{check_images, Engine};
use lango_core::store::AttachmentRef;

use crate::exit::{CliError, Kind};

/// The files, stored, in order; a file that cannot be attached stops here (exit 2), before
/// anything is sent.
pub async fn store_files(
    engine: &Engine,
    paths: &[impl AsRef<Path>],
) -> Result<Vec<AttachmentRef>, CliError> {
    let mut refs = Vec::with_capacity(paths.len());
    for path in paths {
        let path = path.as_ref();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let size = tokio::fs::metadata(path)
            .await
            .map_err(|e| unreadable(path, &e))?
            .len();
        // Refused before reading: a 4 GB file is not loaded to be turned down.
        let most = limits::MAX_PDF_BYTES.max(limits::MAX_IMAGE_BYTES);
        if size > most {
            return Err(usage(AttachmentError::TooLarge {
                name,
                kind: "a file",
                size,
                limit: most,
            }));
        }
        let bytes = tokio::fs::read(path)
            .await
            .map_err(|e| unreadable(path, &e))?;
        let counter = engine.store.counter().clone();
        let prepared =
            tokio::task::spawn_blocking(move || prepare(&name, &bytes, counter.as_ref()))
                .await
                .map_err(|e| CliError::internal(e.to_string()))?
                .map_err(usage)?;
        refs.push(engine.store.put_attachment(&prepared).await?);
    }
    if refs.len() > limits::MAX_ATTACHMENTS_PER_MESSAGE {
        return Err(usage(AttachmentError::TooMany {
            count: refs.len(),
            limit: limits::MAX_ATTACHMENTS_PER_MESSAGE,
        }));
    }
    limits::check_message(&refs.iter().map(|r| r.size).collect::<Vec<_>>()).map_err(usage)?;
    Ok(refs)
}

/// Refuses an image for the conversation's model when it is known not to take images.
pub async fn check_model_takes_images(
    engine: &Engine,
    key: &str,
    refs: &[AttachmentRef],
) -> Result<(), CliError> {
    let turn = engine.turn(key).await?;
    check_images(&turn, refs).map_err(|m| CliError::new(Kind::Config, m))
}

fn usage(e: AttachmentError) -> CliError {
    CliError::new(Kind::Usage, e.to_string())
}

fn unreadable(path: &Path, e: &std::io::Error) -> CliError {
    let kind = if e.kind() == std::io::ErrorKind::NotFound {
        Kind::NotFound
    } else {
        Kind::Usage
    };
    CliError::new(kind, format!("{} cannot be attached: {e}", path.display()))
}
