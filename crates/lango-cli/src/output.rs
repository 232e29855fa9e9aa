//! Printing: JSON for `--json`, aligned text for people.

use std::io::{BufRead, IsTerminal, Write};

use serde::Serialize;

use crate::exit::{CliError, Kind};

pub fn json<T: Serialize>(value: &T) -> Result<(), CliError> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| CliError::internal(e.to_string()))?;
    println!("{text}");
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
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::new(Kind::Usage, e.to_string()))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// Text from a model, a tool or a server with every control character but newline and tab
/// removed, so it cannot move the cursor, set the title or reach the clipboard.
pub fn clean_for_terminal(text: &str) -> String {
    text.chars()
        .filter(|c| *c == '\n' || *c == '\t' || !c.is_control())
        .collect()
}
