//! The size cap on one streamed reply, so an endless or runaway stream cannot grow without
//! bound: [`Capped`] wraps any wire format's [`Decoder`] and ends the stream with
//! `Interrupted` once the reply passes its cap. Ending the stream is what stops the HTTP
//! request: the driver drops the connection after a terminal event.
//!
//! The cap is the smaller of `agent.maxReplyBytes` and, when the request set a max tokens,
//! that many tokens at a generous [`BYTES_PER_TOKEN`] plus [`TOKEN_SLACK`]: a server that
//! clearly sends more than it was asked for is not stopping. Counted: reply text, thoughts
//! and tool-call fragments, as decoded. Wire bytes that bring no reply content are capped
//! too ([`Capped`] docs), which bounds the framing parsers' buffers.
//!
//! Owns counting and the cut; it knows nothing of any wire format.

use super::error::ProviderError;
use super::http::Decoder;
use super::types::StreamEvent;

/// No tokenizer averages this many bytes per token over a reply (English ≈ 4, CJK ≈ 3,
/// code a little more), so a reply this long clearly exceeds its max tokens.
pub const BYTES_PER_TOKEN: usize = 16;

/// Added to the max-tokens cap, so a tiny max tokens never cuts a legitimate reply.
pub const TOKEN_SLACK: usize = 64 * 1024;

/// Wire bytes in a row that may bring no reply content (keep-alives, usage-only chunks, one
/// huge unterminated line), at least.
const MIN_IDLE_BYTES: usize = 1024 * 1024;

/// What one request's reply may grow to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyLimit {
    /// The hard cap (`agent.maxReplyBytes`).
    pub max_bytes: u64,
    /// The request's max output tokens, if it set one.
    pub max_tokens: Option<u32>,
}

impl ReplyLimit {
    /// The cap in bytes and the sentence that explains a cut at it.
    fn cap(&self) -> (usize, String) {
        let hard = usize::try_from(self.max_bytes).unwrap_or(usize::MAX);
        let by_tokens = self.max_tokens.map(|t| {
            (t as usize)
                .saturating_mul(BYTES_PER_TOKEN)
                .saturating_add(TOKEN_SLACK)
        });
        match (by_tokens, self.max_tokens) {
            (Some(cap), Some(tokens)) if cap < hard => (
                cap,
                format!(
                    "the provider sent far more than the {tokens} output tokens asked for \
                     (agent.maxTokens), so Lango stopped it"
                ),
            ),
            _ => (
                hard,
                format!(
                    "it passed the {} size limit (agent.maxReplyBytes), so Lango stopped it",
                    human_size(self.max_bytes)
                ),
            ),
        }
    }
}

/// "4 MiB", "64 KiB", "1000 bytes".
fn human_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// A decoder whose reply may not pass a cap. The text delta that crosses the cap is cut to
/// fit (on a char boundary), so what the caller keeps is at most the cap; then `Interrupted`.
/// Also cut: more than `max(cap, 1 MiB)` wire bytes in a row without any reply content.
pub struct Capped<D> {
    inner: D,
    cap: usize,
    reason: String,
    idle_cap: usize,
    /// Reply bytes let through so far.
    received: usize,
    /// Wire bytes since the last reply content.
    idle: usize,
    ended: bool,
}

impl<D: Decoder> Capped<D> {
    pub fn new(inner: D, limit: ReplyLimit) -> Self {
        let (cap, reason) = limit.cap();
        Self {
            inner,
            cap,
            reason,
            idle_cap: cap.max(MIN_IDLE_BYTES),
            received: 0,
            idle: 0,
            ended: false,
        }
    }

    fn cut(&mut self, out: &mut Vec<StreamEvent>, message: String) {
        tracing::warn!(received = self.received, %message, "stopping an oversized reply");
        self.ended = true;
        out.push(StreamEvent::Error(ProviderError::Interrupted { message }));
    }

    /// Passes `events` on until the cap or a terminal event.
    fn admit(&mut self, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        let mut out = Vec::with_capacity(events.len());
        for event in events {
            let size = content_bytes(&event);
            if size > 0 {
                self.idle = 0;
            }
            if self.received.saturating_add(size) > self.cap {
                if let StreamEvent::TextDelta(text) = &event {
                    let room = self.cap - self.received;
                    let fit = floor_char_boundary(text, room);
                    if fit > 0 {
                        self.received += fit;
                        out.push(StreamEvent::TextDelta(text[..fit].to_string()));
                    }
                }
                let reason = self.reason.clone();
                self.cut(&mut out, reason);
                return out;
            }
            self.received += size;
            let terminal = matches!(event, StreamEvent::Done { .. } | StreamEvent::Error(_));
            out.push(event);
            if terminal {
                self.ended = true;
                return out;
            }
        }
        if self.idle > self.idle_cap {
            let message = format!(
                "the provider sent {} without any reply text, so Lango stopped it",
                human_size(self.idle as u64)
            );
            self.cut(&mut out, message);
        }
        out
    }
}

impl<D: Decoder> Decoder for Capped<D> {
    fn feed(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        if self.ended {
            return Vec::new();
        }
        self.idle = self.idle.saturating_add(bytes.len());
        let events = self.inner.feed(bytes);
        self.admit(events)
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        if self.ended {
            return Vec::new();
        }
        let events = self.inner.finish();
        self.admit(events)
    }
}

/// The bytes of reply content an event carries.
fn content_bytes(event: &StreamEvent) -> usize {
    match event {
        StreamEvent::TextDelta(t) | StreamEvent::Thought(t) => t.len(),
        StreamEvent::ToolCall(c) => {
            c.id.len() + c.name.len() + c.arguments.len() + c.thought_signature.len()
        }
        _ => 0,
    }
}

/// The largest index <= `at` that is a char boundary of `text`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut i = at.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_MAX_REPLY_BYTES;
    use crate::provider::StopReason;

    /// Replays a scripted list of events per feed, whatever the bytes.
    struct Script(Vec<Vec<StreamEvent>>);

    impl Decoder for Script {
        fn feed(&mut self, _: &[u8]) -> Vec<StreamEvent> {
            if self.0.is_empty() {
                Vec::new()
            } else {
                self.0.remove(0)
            }
        }
        fn finish(&mut self) -> Vec<StreamEvent> {
            vec![StreamEvent::Done {
                usage: None,
                stop: StopReason::Finished,
            }]
        }
    }

    fn text(events: &[StreamEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    fn limit(max_bytes: u64, max_tokens: Option<u32>) -> ReplyLimit {
        ReplyLimit {
            max_bytes,
            max_tokens,
        }
    }

    #[test]
    fn a_reply_past_the_byte_cap_is_cut_at_the_cap_and_interrupted() {
        let deltas = (0..10)
            .map(|_| vec![StreamEvent::TextDelta("héllo".into())])
            .collect();
        let mut d = Capped::new(Script(deltas), limit(14, None));
        let mut out = Vec::new();
        for _ in 0..10 {
            out.extend(d.feed(b"x"));
        }
        out.extend(d.finish());
        // 6 bytes per delta: two fit, the third is cut inside "é" → only "h" of it fits.
        assert_eq!(text(&out), "héllohélloh");
        assert!(
            matches!(out.last(), Some(StreamEvent::Error(ProviderError::Interrupted { message }))
                if message.contains("14 bytes size limit (agent.maxReplyBytes)")),
            "{out:?}"
        );
        assert_eq!(
            out.iter()
                .filter(|e| matches!(e, StreamEvent::Error(_)))
                .count(),
            1
        );
    }

    #[test]
    fn the_max_tokens_cap_applies_when_it_is_the_smaller_one() {
        let (cap, reason) = limit(DEFAULT_MAX_REPLY_BYTES, Some(100)).cap();
        assert_eq!(cap, 100 * BYTES_PER_TOKEN + TOKEN_SLACK);
        assert!(reason.contains("100 output tokens"), "{reason}");
        let (cap, reason) = limit(1024, Some(100)).cap();
        assert_eq!(cap, 1024);
        assert!(reason.contains("1 KiB size limit"), "{reason}");
    }

    #[test]
    fn wire_bytes_without_reply_content_are_capped() {
        let mut d = Capped::new(Script(Vec::new()), limit(16, None));
        let junk = vec![b' '; 64 * 1024];
        let mut out = Vec::new();
        for _ in 0..(MIN_IDLE_BYTES / junk.len() + 1) {
            out.extend(d.feed(&junk));
        }
        assert!(
            matches!(out.as_slice(), [StreamEvent::Error(ProviderError::Interrupted { message })]
                if message.contains("without any reply text")),
            "{out:?}"
        );
        assert!(d.finish().is_empty(), "nothing after the cut");
    }
}
