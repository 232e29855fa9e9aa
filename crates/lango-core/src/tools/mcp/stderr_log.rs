//! The last lines a server wrote to stderr: shown in Settings → Tools and quoted when it
//! fails. Bounded (lines and their length), and cleaned of terminal control sequences,
//! since the text comes from a program we do not control. Also the reading of that stderr:
//! to its end whatever it holds, since a reader that stops leaves the server writing into
//! a closed or full pipe.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use crate::text::sanitize;

const MAX_LINES: usize = 200;
const MAX_LINE_CHARS: usize = 500;
/// Bytes of one line read before the rest of it is skipped: more than [`MAX_LINE_CHARS`]
/// characters of any UTF-8, so a cut line still shows as cut.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// Reads `from` (a server's stderr) to its end into `log`, line by line: bytes that are not
/// UTF-8 shown as `�`, a line longer than [`MAX_LINE_BYTES`] read on but not kept.
pub async fn drain<R: AsyncRead + Unpin>(from: R, log: StderrLog) {
    let mut reader = BufReader::new(from);
    let mut line = Vec::with_capacity(256);
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(chunk) => chunk,
            Err(e) => {
                tracing::debug!(error = %e, "reading a server's stderr stopped");
                break;
            }
        };
        if chunk.is_empty() {
            break;
        }
        let newline = chunk.iter().position(|&b| b == b'\n');
        let text = &chunk[..newline.unwrap_or(chunk.len())];
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&text[..text.len().min(room)]);
        let used = newline.map_or(chunk.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            log.push(String::from_utf8_lossy(&line).into_owned());
            line.clear();
        }
    }
    if !line.is_empty() {
        log.push(String::from_utf8_lossy(&line).into_owned());
    }
}

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

    #[tokio::test]
    async fn stderr_is_read_to_its_end_through_bytes_that_are_not_text_and_endless_lines() {
        let log = StderrLog::default();
        let mut input = b"before\nbad \xff\xfe bytes\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE_BYTES));
        input.extend(b"\nafter\nno newline at the end");
        drain(input.as_slice(), log.clone()).await;
        let tail = log.tail();
        assert_eq!(tail[0], "before");
        assert_eq!(tail[1], "bad \u{fffd}\u{fffd} bytes");
        assert_eq!(tail[2], format!("{}…", "x".repeat(MAX_LINE_CHARS)));
        assert_eq!(tail[3..], ["after", "no newline at the end"]);
    }

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
