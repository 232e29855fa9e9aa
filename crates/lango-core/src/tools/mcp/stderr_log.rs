//! The last lines a server wrote to stderr: shown in Settings → Tools and quoted when it
//! fails. Bounded (lines and their length), and cleaned of terminal control sequences,
//! since the text comes from a program we do not control.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::text::sanitize;

const MAX_LINES: usize = 200;
const MAX_LINE_CHARS: usize = 500;

#[derive(Debug, Clone, Default)]
pub struct StderrLog(Arc<Mutex<VecDeque<String>>>);

impl StderrLog {
    pub fn push(&self, line: String) {
        let line = clean(&line);
        let mut lines = match self.0.lock() {
            Ok(l) => l,
            Err(poisoned) => poisoned.into_inner(),
        };
        if lines.len() == MAX_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, oldest first.
    pub fn tail(&self) -> Vec<String> {
        match self.0.lock() {
            Ok(l) => l.iter().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().iter().cloned().collect(),
        }
    }
}

/// Terminal control sequences dropped (`crate::text::sanitize`), the line cut at
/// [`MAX_LINE_CHARS`].
fn clean(line: &str) -> String {
    let clean = sanitize::clean(line);
    if clean.chars().count() <= MAX_LINE_CHARS {
        return clean.into_owned();
    }
    let mut cut: String = clean.chars().take(MAX_LINE_CHARS).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_never_reach_the_log() {
        let log = StderrLog::default();
        log.push(
            "\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}done\u{1b}]52;c;AAAA\u{1b}\\ ok\r".into(),
        );
        assert_eq!(log.tail(), vec!["red done ok"]);
    }

    #[test]
    fn the_log_keeps_the_newest_lines_only() {
        let log = StderrLog::default();
        for i in 0..(MAX_LINES + 10) {
            log.push(format!("line {i}"));
        }
        let tail = log.tail();
        assert_eq!(tail.len(), MAX_LINES);
        assert_eq!(tail.last().map(String::as_str), Some("line 209"));
    }
}
