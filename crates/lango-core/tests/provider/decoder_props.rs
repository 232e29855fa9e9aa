//! Property tests of the four stream decoders (OpenAI-compatible, Anthropic, Gemini, Ollama):
//! however a recorded stream is split into reads, the events are the same as reading it
//! whole; and arbitrary bytes — alone or spliced into a recording — never panic and always end
//! in exactly one terminal event, last.

use std::path::Path;
use std::sync::OnceLock;

use lango_core::provider::anthropic::AnthropicDecoder;
use lango_core::provider::gemini::GeminiDecoder;
use lango_core::provider::http::Decoder;
use lango_core::provider::ollama::OllamaDecoder;
use lango_core::provider::openai::ChatCompletionsDecoder;
use lango_core::provider::StreamEvent;
use lango_testkit::fixtures::body_for;
use lango_testkit::fixtures_dir;
use proptest::prelude::*;

/// The decoder for a fixture's folder.
fn decoder_for(fixture: &str) -> Box<dyn Decoder> {
    if fixture.starts_with("anthropic/") {
        Box::new(AnthropicDecoder::new())
    } else if fixture.starts_with("gemini/") {
        Box::new(GeminiDecoder::new())
    } else if fixture.starts_with("ollama/") {
        Box::new(OllamaDecoder::new())
    } else {
        Box::new(ChatCompletionsDecoder::new())
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, out);
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let streamed = [".sse", ".ndjson", ".chunks.jsonl"];
        if streamed.iter().any(|s| relative.ends_with(s)) {
            let raw = std::fs::read(&path).expect("read fixture");
            let (_, body) = body_for(&relative, &raw);
            out.push((relative, body));
        }
    }
}

/// Every recorded stream, as served on the wire.
fn fixtures() -> &'static [(String, Vec<u8>)] {
    static ALL: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let root = fixtures_dir();
        let mut out = Vec::new();
        for folder in [
            "openai",
            "openai-compatible",
            "anthropic",
            "gemini",
            "ollama",
        ] {
            collect(&root, &root.join(folder), &mut out);
        }
        assert!(out.len() > 40, "fixtures missing: {}", out.len());
        out
    })
}

/// Feeds `body` cut at `cuts` (sorted, clamped), then finishes.
fn decode(fixture: &str, body: &[u8], cuts: &[usize]) -> Vec<StreamEvent> {
    let mut d = decoder_for(fixture);
    let mut cuts: Vec<usize> = cuts.iter().map(|c| (*c).min(body.len())).collect();
    cuts.sort_unstable();
    let (mut events, mut start) = (Vec::new(), 0);
    for c in cuts {
        events.extend(d.feed(&body[start..c]));
        start = c;
    }
    events.extend(d.feed(&body[start..]));
    events.extend(d.finish());
    events
}

fn assert_one_terminal_last(events: &[StreamEvent]) -> Result<(), TestCaseError> {
    let terminal = |e: &StreamEvent| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error(_));
    prop_assert_eq!(
        events.iter().filter(|e| terminal(e)).count(),
        1,
        "{:?}",
        events
    );
    prop_assert!(events.last().is_some_and(terminal), "{:?}", events);
    Ok(())
}

#[test]
fn every_recorded_stream_read_whole_ends_in_one_terminal_event() {
    for (name, body) in fixtures() {
        let events = decode(name, body, &[]);
        let terminals = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error(_)))
            .count();
        assert_eq!(terminals, 1, "{name}: {events:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    // Any split of a recording into reads gives the events of reading it whole.
    #[test]
    fn chunking_a_recorded_stream_never_changes_its_events(
        pick in any::<prop::sample::Index>(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let (name, body) = pick.get(fixtures());
        let cuts: Vec<usize> = cuts.iter().map(|c| c.index(body.len() + 1)).collect();
        let whole = decode(name, body, &[]);
        let pieces = decode(name, body, &cuts);
        prop_assert_eq!(pieces, whole, "{}", name);
    }

    // Arbitrary bytes, in any wire format, never panic and end in exactly one terminal event.
    #[test]
    fn arbitrary_bytes_end_in_exactly_one_terminal_event(
        pick in any::<prop::sample::Index>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
        cuts in proptest::collection::vec(0usize..512, 0..6),
    ) {
        let (name, _) = pick.get(fixtures());
        assert_one_terminal_last(&decode(name, &bytes, &cuts))?;
    }

    // A recording with garbage spliced in (or cut short) still never panics and still ends
    // in exactly one terminal event.
    #[test]
    fn a_damaged_recording_ends_in_exactly_one_terminal_event(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        garbage in proptest::collection::vec(any::<u8>(), 0..64),
        keep in any::<prop::sample::Index>(),
        cuts in proptest::collection::vec(0usize..4096, 0..6),
    ) {
        let (name, body) = pick.get(fixtures());
        let at = at.index(body.len() + 1);
        let mut damaged = body[..at].to_vec();
        damaged.extend_from_slice(&garbage);
        damaged.extend_from_slice(&body[at..]);
        damaged.truncate(keep.index(damaged.len() + 1));
        assert_one_terminal_last(&decode(name, &damaged, &cuts))?;
    }
}
