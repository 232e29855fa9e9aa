//! A Markdown export's attached files: written into a folder beside the `.md` and linked
//! from it, so the export reads on its own. What is written is what Lango stored and sent —
//! an image as sent (scaled down), a text file's text, a PDF's extracted text (`.txt`) —
//! under a portable, numbered name so two files called the same never collide.

use std::collections::HashMap;

use super::file_name::portable_stem;
use crate::attachments::AttachmentKind;
use crate::store::{Store, StoreResult, StoredMessage};

/// One file to write, at `relative` (`<folder>/<name>`, `/`-separated) from the export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    pub relative: String,
    pub bytes: Vec<u8>,
}

/// A file's link in the Markdown, by content hash: its relative path and whether it is an
/// image (shown inline).
pub type Links = HashMap<String, (String, bool)>;

/// The files of `messages` under `folder`, each once, and their links.
pub async fn attachment_files(
    store: &Store,
    messages: &[StoredMessage],
    folder: &str,
) -> StoreResult<(Vec<ExportFile>, Links)> {
    let mut hashes: Vec<String> = Vec::new();
    for a in messages.iter().flat_map(|m| &m.attachments) {
        if !hashes.contains(&a.hash) {
            hashes.push(a.hash.clone());
        }
    }
    let mut files = Vec::new();
    let mut links = Links::new();
    for stored in store.attachments(&hashes).await? {
        let a = &stored.attachment;
        let number = files.len() + 1;
        let (stem, ext) = split_name(&a.name);
        let stem = portable_stem(stem, "attachment");
        let (name, bytes, image) = match (&a.kind, &a.image, &a.text) {
            (AttachmentKind::Image(_), Some(image), _) => {
                let ext = match image.mime.as_str() {
                    "image/jpeg" => "jpg",
                    "image/webp" => "webp",
                    "image/gif" => "gif",
                    _ => "png",
                };
                (
                    format!("{number:02} {stem}.{ext}"),
                    image.data.clone(),
                    true,
                )
            }
            (AttachmentKind::Text, _, Some(text)) => {
                let ext = portable_stem(ext, "txt");
                (
                    format!("{number:02} {stem}.{ext}"),
                    text.clone().into_bytes(),
                    false,
                )
            }
            (_, _, Some(text)) => (
                format!("{number:02} {stem}.txt"),
                text.clone().into_bytes(),
                false,
            ),
            _ => continue,
        };
        let relative = format!("{folder}/{name}");
        links.insert(a.hash.clone(), (relative.clone(), image));
        files.push(ExportFile { relative, bytes });
    }
    Ok((files, links))
}

/// `notes.md` → (`notes`, `md`); no extension → (`name`, `txt`).
fn split_name(name: &str) -> (&str, &str) {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() && ext.len() <= 10 => (stem, ext),
        _ => (name, "txt"),
    }
}

#[cfg(test)]
mod tests {
    use super::split_name;

    #[test]
    fn a_file_keeps_its_extension_and_a_bare_name_becomes_text() {
        assert_eq!(split_name("notes.md"), ("notes", "md"));
        assert_eq!(split_name("archive.tar.gz"), ("archive.tar", "gz"));
        assert_eq!(split_name("README"), ("README", "txt"));
        assert_eq!(split_name(".bashrc"), (".bashrc", "txt"));
    }
}
