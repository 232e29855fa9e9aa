//! Whether Lango can write its database where it is, asked of the file system itself.
//!
//! Permission bits alone do not answer it (ACLs, read-only mounts, root's privileges), so the
//! folder is tried by creating and removing a small file, and the file by opening it for
//! writing (which changes nothing).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Whether a file can be created in `dir`, tried for real. Only the file system's refusal
/// (permission, a read-only mount) says no: two stores probing at once in one process (the
/// same pid, perhaps the same clock reading) once collided on the probe's name, and the
/// second was told its folder was read-only.
pub fn folder_is_writable(dir: &Path) -> bool {
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let probe = dir.join(format!(
        ".lango-write-test-{}-{nanos}-{}",
        std::process::id(),
        PROBES.fetch_add(1, Ordering::Relaxed)
    ));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(e) => !refused(e.kind()),
    }
}

/// Whether a failure to create a file is the file system refusing writes there (not, e.g.,
/// a probe of the same name made at the same moment).
fn refused(kind: std::io::ErrorKind) -> bool {
    matches!(
        kind,
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    )
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;

    use super::*;

    #[test]
    fn only_the_file_systems_refusal_makes_a_folder_read_only() {
        assert!(refused(ErrorKind::PermissionDenied));
        assert!(refused(ErrorKind::ReadOnlyFilesystem));
        // Two stores of one process probing at the same clock reading made the same name.
        assert!(!refused(ErrorKind::AlreadyExists));
    }

    #[test]
    fn probes_one_after_another_are_all_removed() {
        let dir = tempfile::tempdir().unwrap();
        assert!((0..50).all(|_| folder_is_writable(dir.path())));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
