//! Real damage to a database file for the recovery tests: one page overwritten with garbage,
//! as a bad disk sector leaves it. Shared by the test binaries that need it, each including
//! it with `#[path = "common/damage.rs"] mod damage;`.

use std::path::Path;

/// SQLite's page size in Lango's databases (the default).
pub const PAGE: usize = 4096;

/// Overwrites the page holding `needle` with garbage; returns that page's number.
pub fn garble_page_holding(path: &Path, needle: &str) -> usize {
    let mut bytes = std::fs::read(path).expect("read");
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("the text is in the file");
    let page = at / PAGE;
    for b in &mut bytes[page * PAGE..(page + 1) * PAGE] {
        *b = 0xA5;
    }
    std::fs::write(path, &bytes).expect("write");
    page
}
