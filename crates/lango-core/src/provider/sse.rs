//! A small incremental Server-Sent Events parser.
//!
//! Ours rather than a crate's: the spec says an event not ended by a blank line is dropped
//! at EOF, but Anthropic streams (and the SDK fixtures) end their last event with EOF, so we
//! flush it. Handles LF, CRLF and lone CR line ends (also split across reads), `:` comments,
//! multi-line `data`, `event`, and one optional space after the colon. `id`/`retry` are
//! ignored (we never reconnect). Property-tested: any split of the input into reads yields
//! the same events.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, empty when absent ("message").
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    /// The previous byte was a CR, so a following LF belongs to the same line end.
    after_cr: bool,
    event: String,
    data: Vec<String>,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.end_line(&line) {
                        out.push(ev);
                    }
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(b);
                }
            }
        }
        out
    }

    /// Ends the stream: a last line without a line end, and an event without the blank line
    /// after it, are still delivered.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let from_line = if line.is_empty() {
            None
        } else {
            self.end_line(&line)
        };
        from_line.or_else(|| self.dispatch())
    }

    fn end_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None; // comment
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.find(':') {
            Some(i) => {
                let v = &text[i + 1..];
                (&text[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                self.data.push(value.to_string());
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            _ => {} // id, retry, unknown fields: ignored
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        let data = std::mem::take(&mut self.data).join("\n");
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(input: &[u8]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = p.push(input);
        out.extend(p.finish());
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn lf_crlf_and_cr_line_ends_give_the_same_events() {
        let expected = vec![ev("", "a"), ev("x", "b")];
        assert_eq!(parse_all(b"data: a\n\nevent: x\ndata: b\n\n"), expected);
        assert_eq!(
            parse_all(b"data: a\r\n\r\nevent: x\r\ndata: b\r\n\r\n"),
            expected
        );
        assert_eq!(parse_all(b"data: a\r\revent: x\rdata: b\r\r"), expected);
    }

    #[test]
    fn comments_multi_line_data_and_missing_space_are_handled() {
        assert_eq!(
            parse_all(b": ping\ndata:one\ndata: two\n\n"),
            vec![ev("", "one\ntwo")]
        );
        assert_eq!(parse_all(b"data\n\n"), vec![ev("", "")]);
    }

    #[test]
    fn a_last_event_ended_by_eof_is_delivered() {
        assert_eq!(
            parse_all(b"event: message_stop\ndata: {\"type\":\"message_stop\"}"),
            vec![ev("message_stop", "{\"type\":\"message_stop\"}")]
        );
        assert_eq!(parse_all(b"data: x\n"), vec![ev("", "x")]);
    }

    #[test]
    fn an_event_without_data_dispatches_nothing() {
        assert!(parse_all(b"event: ping\n\n").is_empty());
    }

    proptest! {
        // Any split of a stream into reads gives the same events as reading it whole.
        #[test]
        fn chunking_never_changes_the_events(
            body in proptest::collection::vec(prop_oneof![
                Just(b"data: x".to_vec()), Just(b"\r\n".to_vec()), Just(b"\n".to_vec()), Just(b"\r".to_vec()),
                Just(b"event: e".to_vec()), Just(b": c".to_vec()), Just(b"data:{\"a\": 1}".to_vec()),
                proptest::collection::vec(any::<u8>(), 0..4),
            ], 0..40),
            cuts in proptest::collection::vec(0usize..200, 0..8),
        ) {
            let input: Vec<u8> = body.concat();
            let whole = parse_all(&input);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort();
            let mut p = SseParser::new();
            let mut pieces = Vec::new();
            let mut start = 0;
            for c in cuts {
                pieces.extend(p.push(&input[start..c]));
                start = c;
            }
            pieces.extend(p.push(&input[start..]));
            pieces.extend(p.finish());
            prop_assert_eq!(pieces, whole);
        }
    }
}
