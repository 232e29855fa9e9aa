//! Runtime shapes (REFERENCE §1.1). Serde matches the reference: `{"text"}`,
//! `{"functionCall":{id,name,args}}`, `{"functionResponse":{id,name,response}}`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::provider::{ToolSpec, Usage};
use crate::store::{AttachmentRef, ToolCallMeta};

/// The author of model events when the root agent has no name (spec 003 "Model role mapping").
pub const DEFAULT_AGENT_NAME: &str = "lango-agent";

/// Content roles. Stored rows may also carry the legacy `model`/`function` (read, never written).
pub mod roles {
    pub const USER: &str = "user";
    pub const MODEL: &str = "model";
    pub const ASSISTANT: &str = "assistant";
    pub const FUNCTION: &str = "function";
    pub const TOOL: &str = "tool";
    pub const SYSTEM: &str = "system";
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FunctionCall {
    pub id: String,
    pub name: String,
    pub args: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FunctionResponse {
    pub id: String,
    pub name: String,
    pub response: Map<String, Value>,
    /// How the call went, for the user's tool card; never sent to a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolCallMeta>,
}

/// One part of a content: text, a function call or a function response, with thought flags.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thought: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<Vec<u8>>,
    /// A file attached to the user's message. Stored as the row's reference, never as text;
    /// what the model gets (the file's text in `text`, or the image in `inline_data`) is
    /// filled in before each call (`SessionService::resolve_attachments`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment: Option<AttachmentRef>,
    /// An image for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<InlineData>,
}

/// Bytes sent to the model as they are (an attached image).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InlineData {
    pub mime_type: String,
    /// Base64.
    pub data: String,
}

/// What the user sends in one turn: text, attached files (stored beforehand), or both.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserInput {
    pub text: String,
    pub attachments: Vec<AttachmentRef>,
}

impl From<String> for UserInput {
    fn from(text: String) -> Self {
        Self {
            text,
            attachments: Vec::new(),
        }
    }
}

impl From<&str> for UserInput {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

impl From<&String> for UserInput {
    fn from(text: &String) -> Self {
        text.clone().into()
    }
}

impl Part {
    /// A reference to an attached file, filled in before a model call.
    pub fn attachment(attachment: AttachmentRef) -> Self {
        Self {
            attachment: Some(attachment),
            ..Self::default()
        }
    }

    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    pub fn function_call(
        id: impl Into<String>,
        name: impl Into<String>,
        args: Map<String, Value>,
    ) -> Self {
        Self {
            function_call: Some(FunctionCall {
                id: id.into(),
                name: name.into(),
                args,
            }),
            ..Self::default()
        }
    }

    pub fn function_response(
        id: impl Into<String>,
        name: impl Into<String>,
        response: Map<String, Value>,
    ) -> Self {
        Self {
            function_response: Some(FunctionResponse {
                id: id.into(),
                name: name.into(),
                response,
                meta: None,
            }),
            ..Self::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Content {
    pub role: String,
    pub parts: Vec<Part>,
}

impl Content {
    pub fn new(role: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            role: role.into(),
            parts,
        }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(roles::USER, vec![Part::text(text)])
    }

    pub fn model_text(text: impl Into<String>) -> Self {
        Self::new(roles::MODEL, vec![Part::text(text)])
    }

    /// The non-thought text parts concatenated (an attached file's text left out).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| !p.thought && p.attachment.is_none())
            .filter_map(|p| p.text.as_deref())
            .collect()
    }
}

/// What an event asks the runtime to do besides showing content.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventActions {
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub state_delta: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_to_agent: Option<String>,
}

/// One step of a conversation. Only non-partial events are persisted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub id: String,
    pub author: String,
    /// Unix ms; 0 = now when persisted.
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    #[serde(default)]
    pub partial: bool,
    #[serde(default)]
    pub turn_complete: bool,
    #[serde(default)]
    pub actions: EventActions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A failure the runner reports as an event (the UI shows it inline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The model stopped at its output limit: the reply is cut short (stored as truncated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// A model reply's provider id and model (stored with it, with `usage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelRef>,
}

/// A provider id and one of its models.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    pub provider: String,
    /// `""` = the provider's default.
    pub model: String,
}

impl Event {
    /// A new event with a fresh id and the current time.
    pub fn new(author: impl Into<String>, content: Option<Content>) -> Self {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            author: author.into(),
            timestamp: chrono::Utc::now().timestamp_millis(),
            content,
            ..Self::default()
        }
    }

    /// A complete (non-partial) reply of the model: the events whose `truncated` says how a
    /// turn's answer ended.
    pub fn is_model_reply(&self) -> bool {
        !self.partial
            && self
                .content
                .as_ref()
                .is_some_and(|c| c.role == roles::MODEL || c.role == roles::ASSISTANT)
    }
}

/// Generation settings of one model call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GenerateConfig {
    pub system_instruction: Option<Content>,
    pub temperature: Option<f32>,
    pub max_output_tokens: Option<u32>,
    /// In declaration order.
    pub tools: Vec<ToolSpec>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LlmRequest {
    /// Empty = the provider's default model.
    pub model: String,
    pub contents: Vec<Content>,
    pub config: GenerateConfig,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LlmResponse {
    pub content: Option<Content>,
    pub partial: bool,
    pub turn_complete: bool,
    pub usage: Option<Usage>,
    /// The provider stopped at the output limit: the content is cut short.
    pub truncated: bool,
}

impl LlmResponse {
    /// A whole reply of plain model text that ends the turn (no usage reported): what a
    /// scripted or stand-in model answers.
    pub fn complete_text(text: impl Into<String>) -> Self {
        Self {
            content: Some(Content::model_text(text)),
            turn_complete: true,
            ..Self::default()
        }
    }
}
