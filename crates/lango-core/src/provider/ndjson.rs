//! Newline-delimited JSON framing (Ollama's native API): incremental, a last line without
//! a newline is still delivered, blank lines are skipped.

#[derive(Debug, Default)]
pub struct NdjsonParser {
    line: Vec<u8>,
}

impl NdjsonParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the complete, non-blank lines.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                push_line(&mut out, &line);
            } else {
                self.line.push(b);
            }
        }
        out
    }

    pub fn finish(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.line);
        let mut out = Vec::new();
        push_line(&mut out, &line);
        out.pop()
    }
}

fn push_line(out: &mut Vec<String>, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if !text.is_empty() {
        out.push(text.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_reads_and_a_last_line_without_newline_are_delivered() {
        let mut p = NdjsonParser::new();
        assert_eq!(p.push(b"{\"a\":1}\n{\"b\""), vec!["{\"a\":1}"]);
        assert_eq!(p.push(b":2}\r\n\n{\"c\":3}"), vec!["{\"b\":2}"]);
        assert_eq!(p.finish().as_deref(), Some("{\"c\":3}"));
    }
}
