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
use crate::text::floor_char_boundary;

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
    fn hard_cap(&self) -> usize {
        usize::try_from(self.max_bytes).unwrap_or(usize::MAX)
    }

    /// The cap derived from max tokens. Thoughts are not counted against it: some servers
    /// (DeepSeek's reasoner) stream reasoning outside the max tokens.
    fn token_cap(&self) -> Option<usize> {
        self.max_tokens.map(|t| {
            (t as usize)
                .saturating_mul(BYTES_PER_TOKEN)
                .saturating_add(TOKEN_SLACK)
        })
    }

    fn hard_reason(&self) -> String {
        format!(
            "it passed the {} size limit (agent.maxReplyBytes), so Lango stopped it",
            human_size(self.max_bytes)
        )
    }

    fn token_reason(&self) -> String {
        format!(
            "the provider sent far more than the {} output tokens asked for (agent.maxTokens), \
             so Lango stopped it",
            self.max_tokens.unwrap_or_default()
        )
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

/// A decoder whose reply may not pass its caps. The text delta that crosses a cap is cut to
/// fit (on a char boundary), so what the caller keeps is at most the cap; then `Interrupted`.
/// Also cut: more than `max(hard cap, 1 MiB)` wire bytes in a row without any reply content.
pub struct Capped<D> {
    inner: D,
    limit: ReplyLimit,
    hard_cap: usize,
    token_cap: Option<usize>,
    idle_cap: usize,
    /// Content bytes let through so far: all of it, and without thoughts.
    total: usize,
    answer: usize,
    /// Wire bytes since the last reply content.
    idle: usize,
    ended: bool,
}

impl<D: Decoder> Capped<D> {
    pub fn new(inner: D, limit: ReplyLimit) -> Self {
        let hard_cap = limit.hard_cap();
        Self {
            inner,
            limit,
            hard_cap,
            token_cap: limit.token_cap(),
            idle_cap: hard_cap.max(MIN_IDLE_BYTES),
            total: 0,
            answer: 0,
            idle: 0,
            ended: false,
        }
    }

    fn cut(&mut self, out: &mut Vec<StreamEvent>, message: String) {
        tracing::warn!(received = self.total, %message, "stopping an oversized reply");
        self.ended = true;
        out.push(StreamEvent::Error(ProviderError::Interrupted { message }));
    }

    /// How many more content bytes fit, and why the cut when they do not: the cap that is
    /// closer (thoughts only count against the hard one).
    fn room(&self, thought: bool) -> (usize, String) {
        let hard = self.hard_cap.saturating_sub(self.total);
        match self.token_cap.filter(|_| !thought) {
            Some(cap) if cap.saturating_sub(self.answer) < hard => {
                (cap.saturating_sub(self.answer), self.limit.token_reason())
            }
            _ => (hard, self.limit.hard_reason()),
        }
    }

    /// Passes `events` on until a cap or a terminal event.
    fn admit(&mut self, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        let mut out = Vec::with_capacity(events.len());
        for event in events {
            let size = content_bytes(&event);
            let thought = matches!(event, StreamEvent::Thought(_));
            if size > 0 {
                self.idle = 0;
            }
            let (room, reason) = self.room(thought);
            if size > room {
                if let StreamEvent::TextDelta(text) = &event {
                    let fit = floor_char_boundary(text, room);
                    if fit > 0 {
                        self.total += fit;
                        self.answer += fit;
                        out.push(StreamEvent::TextDelta(text[..fit].to_string()));
                    }
                }
                self.cut(&mut out, reason);
                return out;
            }
            self.total += size;
            if !thought {
                self.answer += size;
            }
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
    fn the_max_tokens_cap_applies_when_it_is_the_smaller_one_and_ignores_thoughts() {
        let token_cap = 10 * BYTES_PER_TOKEN + TOKEN_SLACK;
        let big = "x".repeat(token_cap / 2 + 1);
        // Thoughts past the token cap pass (they count against the hard cap only)…
        let script = vec![
            vec![StreamEvent::Thought(big.clone())],
            vec![StreamEvent::Thought(big.clone())],
            vec![StreamEvent::TextDelta(big.clone())],
            vec![StreamEvent::TextDelta(big)],
        ];
        let mut d = Capped::new(Script(script), limit(DEFAULT_MAX_REPLY_BYTES, Some(10)));
        let mut out = Vec::new();
        for _ in 0..4 {
            out.extend(d.feed(b"x"));
        }
        assert_eq!(
            out.iter()
                .filter(|e| matches!(e, StreamEvent::Thought(_)))
                .count(),
            2
        );
        // …the answer is cut at the token cap.
        assert_eq!(text(&out).len(), token_cap);
        assert!(
            matches!(out.last(), Some(StreamEvent::Error(ProviderError::Interrupted { message }))
                if message.contains("10 output tokens asked for")),
            "{out:?}"
        );
        // With a smaller hard cap, the hard cap applies.
        let d = Capped::new(Script(Vec::new()), limit(1024, Some(10)));
        assert_eq!(d.room(false), (1024, limit(1024, None).hard_reason()));
        assert!(d.room(false).1.contains("1 KiB size limit"));
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
