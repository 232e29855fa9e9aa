//! `run_and_collect` (REFERENCE §1.6, spec 003): play a turn and return its text, with one
//! correction retry when the model transferred to an agent that does not exist.
//!
//! Text collection: partial events append their non-empty, non-thought text and set
//! `saw_partial`; a non-partial event's text is appended only when `saw_partial` is false.
//! [FIX] `saw_partial` is reset after each non-partial model response, so a later
//! non-streamed step is not lost. Nothing is ever collected twice.

use futures_util::StreamExt;

use super::Runner;
use crate::agent::context::RequestContext;
use crate::agent::error::AgentError;
use crate::agent::types::{roles, Event, UserInput};

const MISSING_AGENT_PHRASE: &str = "failed to find agent: ";

/// Plays one user turn and returns the collected text and the outcome. On failure the text
/// is what was collected before it. After a failed run the session's dangling tool calls are
/// closed (REFERENCE §2.6). A transfer to a missing agent, when the root agent has
/// sub-agents, is retried ONCE with a persisted correction turn ([`correction_message`]);
/// if the retry fails too, its error is returned with the longer of the two texts.
pub async fn run_and_collect(
    runner: &Runner,
    ctx: RequestContext,
    session_key: &str,
    input: impl Into<UserInput>,
    stream: bool,
) -> (String, Result<(), AgentError>) {
    run_and_collect_with(runner, ctx, session_key, input, stream, &mut |_, _| {}).await
}

/// [`run_and_collect`] that also hands every event, as it arrives, to `on_event` together
/// with the reply text that event adds (never the same text twice), so a caller can stream
/// the reply and still get the correction retry and the cleanup.
pub async fn run_and_collect_with(
    runner: &Runner,
    ctx: RequestContext,
    session_key: &str,
    input: impl Into<UserInput>,
    stream: bool,
    on_event: &mut (dyn FnMut(&Event, &str) + Send),
) -> (String, Result<(), AgentError>) {
    let (first_text, first) = run_once(
        runner,
        ctx.clone(),
        session_key,
        input.into(),
        stream,
        on_event,
    )
    .await;
    let Err(first_error) = first else {
        return (first_text, Ok(()));
    };
    runner.close_dangling_calls(session_key).await;

    let sub_agents = runner.root().sub_agent_names();
    let missing = extract_missing_agent(&first_error.to_string());
    let (Some(missing), false) = (missing, sub_agents.is_empty()) else {
        return (first_text, Err(first_error));
    };
    tracing::info!(session = %session_key, agent = %missing, "model named a missing agent; retrying once with a correction");
    let correction = correction_message(&missing, &sub_agents);
    let (retry_text, retry) = run_once(
        runner,
        ctx,
        session_key,
        correction.into(),
        stream,
        on_event,
    )
    .await;
    match retry {
        Ok(()) => (retry_text, Ok(())),
        Err(retry_error) => {
            runner.close_dangling_calls(session_key).await;
            let text = if retry_text.len() > first_text.len() {
                retry_text
            } else {
                first_text
            };
            (text, Err(retry_error))
        }
    }
}

/// One run: collects text until the stream ends or fails.
async fn run_once(
    runner: &Runner,
    ctx: RequestContext,
    session_key: &str,
    input: UserInput,
    stream: bool,
    on_event: &mut (dyn FnMut(&Event, &str) + Send),
) -> (String, Result<(), AgentError>) {
    let mut events = runner.run(ctx, session_key, input, stream);
    let mut collector = Collector::default();
    while let Some(item) = events.next().await {
        match item {
            Ok(event) => {
                let added = collector.push(&event);
                on_event(&event, &collector.text[collector.text.len() - added..]);
            }
            Err(e) => return (collector.text, Err(e)),
        }
    }
    (collector.text, Ok(()))
}

#[derive(Default)]
struct Collector {
    text: String,
    saw_partial: bool,
}

impl Collector {
    /// Collects the event's text by the rules above; returns how many bytes it added (the
    /// new text is the tail of `self.text`).
    fn push(&mut self, event: &Event) -> usize {
        let before = self.text.len();
        let Some(content) = &event.content else {
            return 0;
        };
        let texts = content
            .parts
            .iter()
            .filter(|p| !p.thought)
            .filter_map(|p| p.text.as_deref());
        if event.partial {
            for text in texts.filter(|t| !t.is_empty()) {
                self.text.push_str(text);
                self.saw_partial = true;
            }
            return self.text.len() - before;
        }
        if !self.saw_partial {
            texts.for_each(|t| self.text.push_str(t));
        }
        if content.role == roles::MODEL || content.role == roles::ASSISTANT {
            self.saw_partial = false;
        }
        self.text.len() - before
    }
}

/// The agent name in an error containing "failed to find agent: <name>" (the regex
/// `failed to find agent: (\S+)`, leftmost match); `None` when there is no such name.
pub fn extract_missing_agent(message: &str) -> Option<String> {
    // RE2's \s: space, \t, \n, \f, \r.
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r');
    let mut rest = message;
    while let Some(at) = rest.find(MISSING_AGENT_PHRASE) {
        let after = &rest[at + MISSING_AGENT_PHRASE.len()..];
        let name: &str = after.split(is_space).next().unwrap_or_default();
        if !name.is_empty() {
            return Some(name.to_owned());
        }
        rest = &rest[at + 1..];
    }
    None
}

/// The correction turn, exactly as spec 003 words it. `"` and `\` in the missing name are
/// backslash-escaped; `valid` = the root's immediate sub-agents in registration order.
pub fn correction_message(missing: &str, valid: &[&str]) -> String {
    let mut escaped = String::with_capacity(missing.len());
    for c in missing.chars() {
        if c == '"' || c == '\\' {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    format!(
        "[System: Agent \"{escaped}\" does not exist. Valid agents: {}. Please retry using one of the valid agent names listed above.]",
        valid.join(", ")
    )
}
