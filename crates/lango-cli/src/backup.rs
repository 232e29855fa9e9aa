//! Whether a command takes today's backup in the background. A command waits a few seconds
//! for it at exit; a database too large to check and copy in that time would only make
//! every command that much slower and still leave no backup (measured: a 430 MB database
//! never finished in 5 s, so each command took 5 s more). Such a database's daily backup is
//! taken by the desktop app (it stays open long enough) or by `lango doctor backup`.

use std::path::Path;

/// The largest database whose backup is expected to finish within the wait.
const LARGEST_IN_THE_WAIT: u64 = lango_core::store::recovery::QUICK_BACKUP_BYTES;

/// True when the database is small enough (or not there yet) for a command to back it up.
pub fn fits_in_the_wait(db: &Path) -> bool {
    std::fs::metadata(db).map_or(true, |m| m.len() <= LARGEST_IN_THE_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_or_missing_database_is_backed_up_by_any_command() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("lango.db");
        assert!(fits_in_the_wait(&db), "no database yet");
        std::fs::write(&db, vec![0u8; 4096]).unwrap();
        assert!(fits_in_the_wait(&db));
    }

    #[test]
    fn a_large_database_is_left_to_the_desktop_or_doctor_backup() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("lango.db");
        // A sparse file: the size is what counts, not the bytes written.
        let file = std::fs::File::create(&db).unwrap();
        file.set_len(LARGEST_IN_THE_WAIT + 1).unwrap();
        assert!(!fits_in_the_wait(&db));
    }
}
