//! The last lines a server wrote to stderr: shown in Settings → Tools and quoted when it
//! fails. Bounded (lines and their length), and cleaned of terminal control sequences,
//! since the text comes from a program we do not control.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

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

/// Control characters (ESC sequences included) dropped, the line cut at [`MAX_LINE_CHARS`].
fn clean(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, or a two-character escape.
            match chars.next() {
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if c == '\t' || !c.is_control() {
            out.push(c);
            if out.chars().count() >= MAX_LINE_CHARS {
                out.push('…');
                break;
            }
        }
    }
    out
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
