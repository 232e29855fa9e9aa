//! What an export becomes before anything is written: conversations in Lango's terms (user
//! and assistant text, oldest first, with the source's ids and times), and the reasons a
//! conversation or message is left out. Plain data, shared by the parsers and the writer.

use serde::Serialize;

/// Which app's export a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    #[serde(rename = "chatgpt")]
    ChatGpt,
    Claude,
}

impl Source {
    /// The name the database stores (`imported_conversations.source`).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::ChatGpt => "chatgpt",
            Source::Claude => "claude",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Source::ChatGpt => "ChatGPT",
            Source::Claude => "Claude",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "chatgpt" => Some(Source::ChatGpt),
            "claude" => Some(Source::Claude),
            _ => None,
        }
    }
}

/// One conversation of an export, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    pub source: Source,
    /// The source's id of the conversation (what makes a re-import find it).
    pub external_id: String,
    /// Never empty: an untitled conversation is named after its first message.
    pub title: String,
    /// Unix ms.
    pub created_at: i64,
    pub updated_at: i64,
    /// Oldest first; only what Lango stores (user and assistant text).
    pub messages: Vec<Message>,
    /// What was left out of this conversation, one entry per message.
    pub skipped: Vec<SkipReason>,
    /// Parts the source had that Lango cannot show (images, files…), kept as a plain-text note
    /// such as `[image: file-abc]`.
    pub notes: usize,
}

/// One message to store.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The source's id of the message.
    pub external_id: String,
    /// `user` or `assistant`.
    pub role: &'static str,
    pub content: String,
    /// Unix ms.
    pub created_at: i64,
}

/// Why something was not imported, in words for the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SkipReason {
    /// A conversation without a single message with text.
    EmptyConversation,
    /// A system message the source itself hides (the model's instructions).
    HiddenSystemMessage,
    /// Any other message the source marks as hidden (custom instructions, memory updates).
    HiddenMessage,
    /// The model's private reasoning ("thoughts"), not part of the visible conversation.
    Reasoning,
    /// A message with nothing in it.
    EmptyMessage,
    /// The conversation changed in the source since it was imported (an earlier message was
    /// edited or a different branch is current): the imported copy is left as it is.
    ChangedSinceImport,
    /// The imported conversation was continued in Lango: new messages from the source would
    /// interleave with it.
    ContinuedInLango,
}

impl SkipReason {
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::EmptyConversation => "empty conversation",
            SkipReason::HiddenSystemMessage => "hidden system message",
            SkipReason::HiddenMessage => "hidden message (custom instructions, memory updates)",
            SkipReason::Reasoning => "the model's hidden reasoning",
            SkipReason::EmptyMessage => "empty message",
            SkipReason::ChangedSinceImport => {
                "changed in the source since it was imported (delete the imported copy to import it again)"
            }
            SkipReason::ContinuedInLango => {
                "continued in Lango since it was imported (its new messages were not added)"
            }
        }
    }
}

/// Unix seconds (fractional, as ChatGPT writes them) → ms; None for nonsense.
pub(crate) fn seconds_to_ms(seconds: f64) -> Option<i64> {
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 32_503_680_000.0 {
        return None;
    }
    Some((seconds * 1000.0).round() as i64)
}

/// An RFC 3339 time (as Claude writes them) → Unix ms.
pub(crate) fn rfc3339_to_ms(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// Longest title made from a first message, in characters.
const TITLE_CHARS: usize = 60;

/// When a conversation began: the export's time, or its first message's when the export
/// gave none (0), or its last activity when it has no message either.
pub(crate) fn started_at(given: i64, updated_at: i64, messages: &[Message]) -> i64 {
    if given != 0 {
        return given;
    }
    messages.first().map_or(updated_at, |m| m.created_at)
}

/// The title to show: the source's, else the start of the first user message, else
/// "Imported conversation".
pub(crate) fn title_for(given: Option<&str>, messages: &[Message]) -> String {
    if let Some(t) = given.map(str::trim).filter(|t| !t.is_empty()) {
        return t.to_owned();
    }
    let content = messages
        .iter()
        .find(|m| m.role == "user")
        .or_else(|| messages.first())
        .map(|m| m.content.as_str())
        .unwrap_or("");
    // The first line of prose: not a note such as `[image: …]`, not a code fence.
    let lines = || content.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines()
        .find(|l| !l.starts_with('[') && !l.starts_with("```"))
        .or_else(|| lines().next())
        .unwrap_or("");
    let first = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if first.is_empty() {
        return "Imported conversation".to_owned();
    }
    match first.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => format!("{}…", first[..cut].trim_end()),
        None => first,
    }
}

/// A fence longer than any backtick run inside `text`, so quoted code cannot break out.
pub(crate) fn fenced(language: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{text}\n{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &'static str, content: &str) -> Message {
        Message {
            external_id: String::new(),
            role,
            content: content.to_owned(),
            created_at: 0,
        }
    }

    #[test]
    fn an_untitled_conversation_is_named_after_its_first_user_message() {
        let messages = [
            msg("assistant", "Hi"),
            msg("user", "[image: f]\n  How do I  bake bread?  \nMore"),
        ];
        assert_eq!(title_for(Some("  "), &messages), "How do I bake bread?");
        assert_eq!(title_for(None, &[]), "Imported conversation");
        let long = "word ".repeat(40);
        let title = title_for(None, &[msg("user", &long)]);
        assert!(title.ends_with('…') && title.chars().count() <= TITLE_CHARS + 1);
    }

    #[test]
    fn times_in_seconds_and_rfc3339_become_milliseconds() {
        assert_eq!(seconds_to_ms(1_700_000_000.5), Some(1_700_000_000_500));
        assert_eq!(seconds_to_ms(f64::NAN), None);
        assert_eq!(seconds_to_ms(-1.0), None);
        assert_eq!(
            rfc3339_to_ms("2024-03-01T12:00:00.250000Z"),
            Some(1_709_294_400_250)
        );
        assert_eq!(rfc3339_to_ms("yesterday"), None);
    }

    #[test]
    fn quoted_code_cannot_close_its_fence() {
        let f = fenced("python", "print('```')");
        assert!(f.starts_with("````python\n"), "{f}");
    }
}
