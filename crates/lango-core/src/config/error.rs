//! Errors and problem reports of the config module.
//!
//! Owns `ConfigError` and `Problem`. It must not decide what is valid (the section
//! modules do) or touch the filesystem (`file` does).

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with the settings, tied to the dotted path of the field.
///
/// `message` is a complete sentence that already names the field, so a UI can show it on its
/// own and a CLI can print it one per line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Dotted path, e.g. `observationalMemory.messageTokenThreshold` ("" = the whole file).
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{} is not valid JSON (line {line}, column {column}): {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },

    #[error("{}", invalid_message(path, problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
}

fn invalid_message(path: &std::path::Path, problems: &[Problem]) -> String {
    let noun = if problems.len() == 1 {
        "problem"
    } else {
        "problems"
    };
    let mut out = format!("{} has {} {noun}:", path.display(), problems.len());
    for p in problems {
        out.push_str("\n  - ");
        out.push_str(&p.message);
    }
    out
}
