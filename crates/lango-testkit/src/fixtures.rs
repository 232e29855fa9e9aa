//! The fixture replay server: serves any file under `shared/fixtures` byte for byte.
//!
//! Point a client's base URL at `{server}/replay/<fixture path>`; whatever path the client
//! appends (`/chat/completions`, `/v1/messages`, `/models/x:streamGenerateContent?alt=sse`,
//! `/api/chat`) is ignored and the fixture is the response. The status comes from the file
//! name (`…http400…`, `…_429_…`, else 200), the content type from the suffix:
//! `.sse` text/event-stream, `.ndjson` application/x-ndjson, `.json` application/json.
//! `.chunks.jsonl` files (payloads only) are rebuilt as SSE the way the fixtures README says:
//! `data: <line>\n\n` each, plus `data: [DONE]` for OpenAI-style folders and an
//! `event: <type>` line for Anthropic.

use std::path::{Path, PathBuf};

use crate::server::{Action, RecordedRequest, Reply, TestServer};

/// `shared/fixtures` beside the repository (`LANGO_FIXTURES` overrides).
pub fn fixtures_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LANGO_FIXTURES") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
}

pub struct FixtureServer {
    pub server: TestServer,
}

impl FixtureServer {
    pub async fn start() -> Self {
        let root = fixtures_dir();
        // Without the recordings every replay would answer 404 and each test fail on an empty
        // reply: say what is missing instead.
        assert!(
            root.is_dir(),
            "the recorded provider streams are not at {}: the repository is expected beside \
             `shared/` (or set LANGO_FIXTURES to the fixtures folder)",
            root.display()
        );
        let server =
            TestServer::start(move |req: &RecordedRequest, _| reply_for(&root, &req.path)).await;
        Self { server }
    }

    /// The base URL that replays `fixture` (a path relative to the fixtures folder).
    pub fn base_url_for(&self, fixture: &str) -> String {
        format!("{}/replay/{}", self.server.base_url(), fixture)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }
}

/// Status from the file name: `http<NNN>` or `_<NNN>_` with NNN in 400..=599.
pub fn status_for(name: &str) -> u16 {
    let bytes = name.as_bytes();
    for i in 0..bytes.len().saturating_sub(2) {
        if let Ok(n) = name[i..i + 3].parse::<u16>() {
            let before = if i == 0 { b'_' } else { bytes[i - 1] };
            if (400..=599).contains(&n)
                && (before == b'_' || name[..i].ends_with("http"))
                && !bytes.get(i + 3).is_some_and(u8::is_ascii_digit)
            {
                return n;
            }
        }
    }
    200
}

/// The bytes to serve for a fixture, converting `.chunks.jsonl` to SSE.
pub fn body_for(relative: &str, raw: &[u8]) -> (String, Vec<u8>) {
    if relative.ends_with(".sse") {
        return ("text/event-stream".into(), raw.to_vec());
    }
    if relative.ends_with(".ndjson") {
        return ("application/x-ndjson".into(), raw.to_vec());
    }
    if relative.ends_with(".chunks.jsonl") {
        let text = String::from_utf8_lossy(raw);
        let anthropic = relative.starts_with("anthropic/");
        let openai_style = relative.starts_with("openai");
        let mut out = String::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if anthropic {
                let kind = serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
                    .unwrap_or_default();
                out.push_str(&format!("event: {kind}\n"));
            }
            out.push_str(&format!("data: {line}\n\n"));
        }
        if openai_style {
            out.push_str("data: [DONE]\n\n");
        }
        return ("text/event-stream".into(), out.into_bytes());
    }
    ("application/json".into(), raw.to_vec())
}

fn reply_for(root: &Path, path: &str) -> Reply {
    let Some(rest) = path.strip_prefix("/replay/") else {
        return Reply::full(404, "text/plain", "not a replay path");
    };
    let rest = rest.split('?').next().unwrap_or(rest);
    // The longest prefix of the path that is a file is the fixture.
    let segments: Vec<&str> = rest.split('/').collect();
    for n in (1..=segments.len()).rev() {
        let relative = segments[..n].join("/");
        let file = root.join(&relative);
        if file.is_file() {
            return match std::fs::read(&file) {
                Ok(raw) => {
                    let (content_type, body) = body_for(&relative, &raw);
                    let name = relative.rsplit('/').next().unwrap_or(&relative);
                    Reply::head(status_for(name), &content_type, &[]).then(Action::Write(body))
                }
                Err(e) => Reply::full(500, "text/plain", format!("cannot read fixture: {e}")),
            };
        }
    }
    Reply::full(404, "text/plain", format!("no fixture at {rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_comes_from_the_file_name() {
        assert_eq!(status_for("error_http400_invalid_json.json"), 400);
        assert_eq!(status_for("error_http500_assistant_content_null.json"), 500);
        assert_eq!(status_for("vercel_error_429_retry_info.json"), 429);
        assert_eq!(status_for("text_stream.sse"), 200);
        assert_eq!(status_for("genai_haiku45_usage_stream.sse"), 200);
    }

    #[test]
    fn chunks_files_become_sse_per_family() {
        let (_, b) = body_for("openai/x.chunks.jsonl", b"{\"a\":1}\n{\"b\":2}");
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"
        );
        let (_, b) = body_for("anthropic/x.chunks.jsonl", b"{\"type\":\"ping\"}\n");
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        );
        let (_, b) = body_for("gemini/x.chunks.jsonl", b"{\"c\":1}\n");
        assert_eq!(String::from_utf8(b).unwrap(), "data: {\"c\":1}\n\n");
    }
}
