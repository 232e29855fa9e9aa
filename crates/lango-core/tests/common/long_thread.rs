//! A long imported conversation (ChatGPT threads run to thousands of messages) for the
//! import's tests and `make bench`'s send-during-import figure: `#[path = …] mod long_thread;`
//! in each.

use lango_core::store::{ImportRow, ImportWrite};

/// A ChatGPT conversation of `messages` alternating user and assistant messages, message `i`
/// saying "message {i} about …".
pub fn long_thread(messages: usize) -> ImportWrite {
    ImportWrite {
        source: "chatgpt".into(),
        external_id: "long-thread".into(),
        title: "A long thread".into(),
        created_at: 1_700_000_000_000,
        updated_at: 1_700_000_000_000 + messages as i64,
        messages: (0..messages)
            .map(|i| ImportRow {
                external_id: format!("m-{i}"),
                role: if i % 2 == 0 { "user" } else { "assistant" }.into(),
                content: format!(
                    "message {i} about the garden, the tiles and the plumber's visit on Thursday"
                ),
                created_at: 1_700_000_000_000 + i as i64,
                token_count: 20,
            })
            .collect(),
    }
}
