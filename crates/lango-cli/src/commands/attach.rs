//! `lango chat --attach FILE`: each file checked, read (an image scaled down, a PDF's text
//! extracted, on a blocking thread) and stored once by content hash before the message goes.

use std::path::Path;

use lango_core::attachments::{limits, prepare_off_thread, read_file, AttachmentError};
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
        let (name, bytes) = read_file(path.as_ref()).await.map_err(refused)?;
        let counter = engine.store.counter().clone();
        let prepared = prepare_off_thread(name, bytes, counter)
            .await
            .map_err(refused)?;
        refs.push(engine.store.put_attachment(&prepared).await?);
    }
    limits::check_message(&refs.iter().map(|r| r.size).collect::<Vec<_>>()).map_err(refused)?;
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

/// Exit 6 for a file that is not there, 2 for one that cannot be attached.
fn refused(e: AttachmentError) -> CliError {
    let kind = match e {
        AttachmentError::Unreadable { missing: true, .. } => Kind::NotFound,
        _ => Kind::Usage,
    };
    CliError::new(kind, e.to_string())
}
