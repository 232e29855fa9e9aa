//! Which wire format a request speaks, from its path.

/// The wire format of a request (from its path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

impl Wire {
    /// The format of a generate request's path, None for anything else.
    pub fn of_generate_path(path: &str) -> Option<Self> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/chat/completions") {
            Some(Self::OpenAi)
        } else if path.ends_with("/api/chat") {
            Some(Self::Ollama)
        } else if path.ends_with("/messages") {
            Some(Self::Anthropic)
        } else if path.contains("/models/") && path.ends_with(":streamGenerateContent") {
            Some(Self::Gemini)
        } else {
            None
        }
    }
}
