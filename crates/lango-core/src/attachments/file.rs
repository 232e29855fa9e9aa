//! A file on disk to attach (dropped on the window, `lango chat --attach`): its size checked
//! before a byte is read, so a 4 GB video is refused without being loaded.

use std::path::Path;

use super::error::AttachmentError;
use super::limits::{MAX_IMAGE_BYTES, MAX_PDF_BYTES};

/// The file's name (its last path part) and bytes.
pub async fn read_file(path: &Path) -> Result<(String, Vec<u8>), AttachmentError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let unreadable = |e: std::io::Error| AttachmentError::Unreadable {
        name: name.clone(),
        missing: e.kind() == std::io::ErrorKind::NotFound,
        reason: e.to_string(),
    };
    let size = tokio::fs::metadata(path).await.map_err(unreadable)?.len();
    // The largest any kind may be; the kind's own cap is checked once the bytes are known.
    let most = MAX_PDF_BYTES.max(MAX_IMAGE_BYTES);
    if size > most {
        return Err(AttachmentError::TooLarge {
            name,
            kind: "a file",
            size,
            limit: most,
        });
    }
    let bytes = tokio::fs::read(path).await.map_err(unreadable)?;
    Ok((name, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_missing_file_says_so_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(&dir.path().join("gone.txt")).await.unwrap_err();
        assert!(matches!(
            err,
            AttachmentError::Unreadable { missing: true, .. }
        ));
        assert!(
            err.to_string()
                .starts_with("\"gone.txt\" could not be read"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_file_is_read_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hi").unwrap();
        let (name, bytes) = read_file(&dir.path().join("a.txt")).await.unwrap();
        assert_eq!(
            (name.as_str(), bytes.as_slice()),
            ("a.txt", b"hi".as_slice())
        );
    }
}
