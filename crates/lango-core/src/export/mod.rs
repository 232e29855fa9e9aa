//! Exporting a conversation to Markdown or JSON: everything the user saw, archived
//! (compacted) messages included, in order.
//!
//! Owns only the formats and the file name (`file_name`). It reads through the store and
//! writes nothing. API keys cannot appear: they are never in the store, and nothing here
//! reads settings or secrets.
//!
//! Line endings: LF on every OS, deliberately. An export is then the same bytes wherever it
//! was made (diffable, checksummable, moved between machines), and every editor and Markdown
//! viewer in use on Windows reads LF (Notepad since 2018). Text that arrived with CRLF or a
//! lone CR (pasted on Windows, some models) is normalised to LF in Markdown, where a stray CR
//! would break the layout; JSON keeps the text exactly (escaped, so it is still one line
//! ending style on disk).

mod file_name;
mod files;

pub use file_name::portable_stem;
pub use files::{attachment_files, ExportFile, Links};

use serde::Serialize;

use crate::store::{Session, Store, StoreResult, StoredMessage};

/// Messages fetched per store round trip while walking a session backwards.
const PAGE: u32 = 500;

/// The whole conversation, oldest first (archived rows included, summaries left out).
pub async fn all_messages(store: &Store, key: &str) -> StoreResult<Vec<StoredMessage>> {
    let mut pages: Vec<Vec<StoredMessage>> = Vec::new();
    let mut before = None;
    loop {
        let page = store.page_messages(key, before, PAGE).await?;
        let Some(first) = page.first() else { break };
        before = Some(first.seq);
        let full = page.len() == PAGE as usize;
        pages.push(page);
        if !full {
            break;
        }
    }
    Ok(pages.into_iter().rev().flatten().collect())
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonExport {
    pub format: &'static str,
    pub exported_at: String,
    pub session: Session,
    pub messages: Vec<StoredMessage>,
}

pub async fn to_json(store: &Store, key: &str) -> StoreResult<JsonExport> {
    let session = store.get_session(key).await?;
    let mut messages = all_messages(store, key).await?;
    // JSON carries everything: each large tool result whole, not the start a page holds.
    store.with_whole_tool_results(key, &mut messages).await?;
    Ok(JsonExport {
        format: "lango-session-v1",
        exported_at: chrono::Utc::now().to_rfc3339(),
        session,
        messages,
    })
}

/// The conversation as Markdown, attached files by description only (nothing to link to:
/// printed, or written without its folder).
pub async fn to_markdown(store: &Store, key: &str) -> StoreResult<String> {
    let session = store.get_session(key).await?;
    let messages = all_messages(store, key).await?;
    Ok(render_markdown(&session, &messages, &Links::new()))
}

/// The conversation as Markdown with its attached files, to be written under `folder`
/// beside it (a path relative to the `.md`), each linked from its message.
pub async fn to_markdown_with_files(
    store: &Store,
    key: &str,
    folder: &str,
) -> StoreResult<(String, Vec<ExportFile>)> {
    let session = store.get_session(key).await?;
    let messages = all_messages(store, key).await?;
    let (files, links) = attachment_files(store, &messages, folder).await?;
    Ok((render_markdown(&session, &messages, &links), files))
}

fn speaker(role: &str) -> &'static str {
    match role {
        "user" => "You",
        "assistant" | "model" => "Assistant",
        "tool" | "function" => "Tool result",
        "system" => "System",
        _ => "Message",
    }
}

/// A fence longer than any backtick run inside `text`, so model output cannot break out.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// `links`: where each attached file (by hash) was written, relative to the Markdown; a
/// file without one is listed by its description.
pub fn render_markdown(session: &Session, messages: &[StoredMessage], links: &Links) -> String {
    let title = if session.title.is_empty() {
        session.key.as_str()
    } else {
        session.title.as_str()
    };
    let mut out = format!(
        "# {title}\n\n_Exported from Lango · session `{}`",
        session.key
    );
    if !session.model.is_empty() {
        out.push_str(&format!(" · model `{}`", session.model));
    }
    out.push_str(&format!(" · {} messages_\n", messages.len()));
    for m in messages {
        out.push_str(&format!(
            "\n---\n\n**{}** · {}",
            speaker(&m.role),
            time(m.created_at)
        ));
        if let Some(reply) = m.reply.as_ref().filter(|r| !r.model.is_empty()) {
            // Backticks cannot be escaped inside a code span: a model id never has one, but
            // a hand-edited database might.
            out.push_str(&format!(" · `{}`", reply.model.replace('`', "'")));
        }
        if m.archived {
            out.push_str(" · _compacted into memory_");
        }
        if m.status != crate::store::MessageStatus::Complete {
            out.push_str(&format!(" · _{}_", m.status.as_str()));
        }
        out.push_str("\n\n");
        let is_tool = matches!(m.role.as_str(), "tool" | "function");
        if is_tool {
            let f = fence(&m.content);
            let name = m.tool_calls.first().map(|c| c.name.as_str()).unwrap_or("");
            out.push_str(&format!(
                "`{name}` returned:\n\n{f}json\n{}\n{f}\n",
                m.content
            ));
        } else if !m.content.is_empty() {
            out.push_str(&m.content);
            out.push('\n');
        }
        for a in &m.attachments {
            let description = a.description.replace('\n', " ");
            match links.get(&a.hash) {
                // `<…>` lets a path hold spaces; `[` `]` in a name cannot end the link text.
                Some((path, image)) => {
                    let label = a.name.replace(['[', ']'], "");
                    let bang = if *image { "!" } else { "" };
                    out.push_str(&format!(
                        "\n{bang}[{label}](<{path}>)\n\n> Attached: {description}\n"
                    ));
                }
                None => out.push_str(&format!("\n> Attached: {description}\n")),
            }
        }
        for call in m.tool_calls.iter().filter(|c| !c.input.is_empty()) {
            let f = fence(&call.input);
            out.push_str(&format!(
                "\nCalled `{}` (`{}`):\n\n{f}json\n{}\n{f}\n",
                call.name, call.id, call.input
            ));
        }
    }
    to_lf(out)
}

/// CRLF and lone CR → LF.
fn to_lf(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}
