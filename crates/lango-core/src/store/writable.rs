//! Whether Lango can write its database where it is, asked of the file system itself.
//!
//! Permission bits alone do not answer it (ACLs, read-only mounts, root's privileges), so the
//! folder is tried by creating and removing a small file, and the file by opening it for
//! writing (which changes nothing).

use std::path::Path;

/// Why the database at `path` cannot be written, in words for the user; None when it can.
pub fn read_only_reason(path: &Path) -> Option<String> {
    let folder = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if folder.is_dir() && !folder_is_writable(folder) {
        return Some(format!("its folder {} is read-only", folder.display()));
    }
    match std::fs::OpenOptions::new().write(true).open(path) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Some("the file is read-only".to_string())
        }
        _ => None,
    }
}

/// Whether a file can be created in `dir`, tried for real.
pub fn folder_is_writable(dir: &Path) -> bool {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let probe = dir.join(format!(".lango-write-test-{}-{nanos}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}
