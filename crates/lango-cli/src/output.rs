//! Printing: JSON for `--json`, aligned text for people (through [`crate::terminal`]).

use std::io::{BufRead, IsTerminal};

use serde::Serialize;

use crate::exit::{CliError, Kind};
use crate::terminal;

pub fn json<T: Serialize>(value: &T) -> Result<(), CliError> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| CliError::internal(e.to_string()))?;
    terminal::out_clean(&terminal::json_escaped(text + "\n"));
    Ok(())
}

/// Unix ms → local "YYYY-MM-DD HH:MM".
pub fn time(ms: i64) -> String {
    use chrono::TimeZone;
    match chrono::Local.timestamp_millis_opt(ms) {
        chrono::LocalResult::Single(t) => t.format("%Y-%m-%d %H:%M").to_string(),
        _ => ms.to_string(),
    }
}

/// Asks `question` on the terminal and returns the answer (yes only for y/yes). Not a terminal
/// → a usage error telling the caller to pass `--yes`: nothing destructive happens unasked.
pub fn confirm(question: &str, what: &str) -> Result<bool, CliError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(CliError::new(
            Kind::Usage,
            format!("refusing to {what} without confirmation: pass --yes"),
        ));
    }
    terminal::err(&format!("{question} [y/N] "));
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::new(Kind::Usage, e.to_string()))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
