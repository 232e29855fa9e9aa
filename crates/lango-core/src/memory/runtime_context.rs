//! The runtime context (REFERENCE §3.8 [KEEP], spec 002 "Session key propagated to
//! RuntimeContextAdapter"): which session and channel the current model call serves, and
//! which engine features are on. The context adapter updates it on every call that carries a
//! session key; it is rendered under `## Runtime Context` per call ([`RuntimeContext::render_for`]),
//! so sessions served at once never see each other's key.

use std::sync::Mutex;

/// The heading of the rendered runtime context.
pub const RUNTIME_CONTEXT_HEADING: &str = "## Runtime Context";

/// Channels recognised from a session key prefix; everything else is `direct`.
const CHANNELS: [&str; 3] = ["telegram", "discord", "slack"];

/// The channel of a session key: the prefix before the first `:` when it is `telegram`,
/// `discord` or `slack`, else `direct` (empty key, no colon, `http:x`, `tui-1`, a UUID).
pub fn channel_type(session_key: &str) -> &'static str {
    session_key
        .split_once(':')
        .and_then(|(prefix, _)| CHANNELS.iter().copied().find(|c| *c == prefix))
        .unwrap_or("direct")
}

/// A snapshot of the runtime context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeState {
    pub session_key: String,
    pub channel: &'static str,
    pub tools: usize,
    pub encryption: bool,
    pub knowledge: bool,
    pub memory: bool,
}

impl Default for RuntimeState {
    fn default() -> Self {
        Self {
            session_key: String::new(),
            channel: "direct",
            tools: 0,
            encryption: false,
            knowledge: false,
            memory: false,
        }
    }
}

impl RuntimeState {
    /// `## Runtime Context\nSession: <key> | Channel: <c> | Tools: <n> | Encryption: <b> |
    /// Knowledge: <b> | Memory: <b>`.
    pub fn render(&self) -> String {
        format!(
            "{RUNTIME_CONTEXT_HEADING}\nSession: {} | Channel: {} | Tools: {} | Encryption: {} | Knowledge: {} | Memory: {}",
            self.session_key,
            self.channel,
            self.tools,
            self.encryption,
            self.knowledge,
            self.memory
        )
    }
}

/// Shared, thread-safe runtime context. Cheap to read; written once per model call.
#[derive(Debug, Default)]
pub struct RuntimeContext {
    state: Mutex<RuntimeState>,
}

impl RuntimeContext {
    pub fn new(encryption: bool, knowledge: bool, memory: bool) -> Self {
        Self {
            state: Mutex::new(RuntimeState {
                encryption,
                knowledge,
                memory,
                ..RuntimeState::default()
            }),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut RuntimeState) -> R) -> R {
        // A poisoned lock only means a panic elsewhere mid-update of plain data; keep going.
        let mut guard = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut guard)
    }

    /// Records the session key and its derived channel (`SetSession`).
    pub fn set_session(&self, session_key: &str) {
        self.with(|s| {
            s.session_key = session_key.to_owned();
            s.channel = channel_type(session_key);
        });
    }

    pub fn set_tool_count(&self, tools: usize) {
        self.with(|s| s.tools = tools);
    }

    pub fn set_features(&self, encryption: bool, knowledge: bool, memory: bool) {
        self.with(|s| {
            s.encryption = encryption;
            s.knowledge = knowledge;
            s.memory = memory;
        });
    }

    pub fn set_knowledge(&self, knowledge: bool) {
        self.with(|s| s.knowledge = knowledge);
    }

    pub fn set_memory(&self, memory: bool) {
        self.with(|s| s.memory = memory);
    }

    pub fn session_key(&self) -> String {
        self.with(|s| s.session_key.clone())
    }

    pub fn channel(&self) -> &'static str {
        self.with(|s| s.channel)
    }

    pub fn snapshot(&self) -> RuntimeState {
        self.with(|s| s.clone())
    }

    /// The rendered section (see [`RuntimeState::render`]).
    pub fn render(&self) -> String {
        self.snapshot().render()
    }

    /// The section for one call of `session_key` offering `tools` tools: the shared
    /// features with the call's own session, channel and tool count, so concurrent
    /// sessions each see their own (the shared session key is only the latest call's).
    pub fn render_for(&self, session_key: &str, tools: usize) -> String {
        let mut state = self.snapshot();
        state.session_key = session_key.to_owned();
        state.channel = channel_type(session_key);
        state.tools = tools;
        state.render()
    }
}

#[cfg(test)]
mod tests {
    use super::channel_type;

    #[test]
    fn channels() {
        for key in ["", "noseparator", "unknown:1:2", "http:x", "tui-1"] {
            assert_eq!(channel_type(key), "direct", "{key:?}");
        }
        assert_eq!(channel_type("telegram:1:2"), "telegram");
        assert_eq!(channel_type("discord:g:c"), "discord");
        assert_eq!(channel_type("slack:t:c"), "slack");
    }
}
