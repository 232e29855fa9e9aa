//! A file name made from a conversation's title that every desktop file system accepts.
//!
//! Owns the rules of the strictest one, applied everywhere so an export copied between
//! machines keeps its name: Windows' forbidden characters `<>:"/\|?*` and control
//! characters, its reserved device names (`CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`,
//! `LPT1`–`LPT9`, with or without an extension), no trailing dot or space, and a length that
//! fits every file system's 255-byte name limit (ext4 counts UTF-8 bytes) with room for a
//! ` (12).md` suffix.

/// Longest stem in UTF-8 bytes: 255 minus room for ` (NNN).json`.
const MAX_STEM_BYTES: usize = 200;

const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "COM¹", "COM²", "COM³", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6",
    "LPT7", "LPT8", "LPT9", "LPT¹", "LPT²", "LPT³", "CONIN$", "CONOUT$",
];

/// `text` as a file name stem (no extension): forbidden characters become `-`, controls a
/// space, runs of spaces one, and a reserved or empty result `fallback` (itself assumed safe).
pub fn portable_stem(text: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_STEM_BYTES));
    for c in text.chars() {
        let c = match c {
            '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*' => '-',
            c if c.is_control() => ' ',
            c => c,
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        if out.len() + c.len_utf8() > MAX_STEM_BYTES {
            break;
        }
        out.push(c);
    }
    // Windows drops trailing dots and spaces (so "a." and "a" would collide); a leading dot
    // hides the file on macOS and Linux.
    let trimmed = out.trim_matches(|c: char| c == '.' || c == ' ');
    if trimmed.is_empty() || is_reserved(trimmed) {
        fallback.to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// `NUL`, `nul.txt`, `Com1.tar.gz`: Windows treats the part before the first dot as the
/// device, whatever the case.
fn is_reserved(stem: &str) -> bool {
    let base = stem.split('.').next().unwrap_or(stem).trim_end();
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(base))
}

#[cfg(test)]
mod tests {
    use super::portable_stem;

    #[test]
    fn windows_forbidden_characters_never_reach_a_file_name() {
        assert_eq!(portable_stem("a/b\\c: d?", "x"), "a-b-c- d-");
        assert_eq!(portable_stem("<html> \"q\" | *", "x"), "-html- -q- - -");
        assert_eq!(portable_stem("tab\there\nnew", "x"), "tab here new");
    }

    #[test]
    fn reserved_device_names_fall_back_whatever_their_case_or_extension() {
        for name in [
            "CON",
            "con",
            "Nul",
            "aux.txt",
            "COM1",
            "lpt9.tar.gz",
            "PRN ",
            "CONIN$",
        ] {
            assert_eq!(
                portable_stem(name, "conversation"),
                "conversation",
                "{name}"
            );
        }
        assert_eq!(portable_stem("CONSOLE", "x"), "CONSOLE");
        assert_eq!(portable_stem("COM10", "x"), "COM10");
    }

    #[test]
    fn trailing_dots_and_spaces_and_empty_names_are_not_kept() {
        assert_eq!(portable_stem("notes. . ", "x"), "notes");
        assert_eq!(portable_stem("..", "conversation"), "conversation");
        assert_eq!(portable_stem("   ", "conversation"), "conversation");
        assert_eq!(portable_stem(".hidden", "x"), "hidden");
    }

    #[test]
    fn long_titles_fit_the_255_byte_name_limit_without_splitting_a_character() {
        let stem = portable_stem(&"日本語".repeat(100), "x");
        assert!(stem.len() <= 200, "{} bytes", stem.len());
        assert!(stem.len() >= 197);
        assert!(stem.chars().all(|c| "日本語".contains(c)));
        let emoji = portable_stem(&"🦀".repeat(100), "x");
        assert_eq!(emoji.len(), 200);
    }
}
