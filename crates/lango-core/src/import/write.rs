//! Writing converted conversations into the store (`Store::write_import`: a long one in
//! chunks of messages, a transaction each), and tallying what happened into the
//! [`ImportSummary`]. Token counts (the CPU-heavy part of a large import) are computed on a
//! blocking thread, never on the async runtime's workers.

use std::collections::BTreeMap;

use tokio_util::sync::CancellationToken;

use super::detect::Export;
use super::model::{Conversation, SkipReason};
use super::{ImportProgress, ImportSummary, ProgressFn, SkipCount};
use crate::store::{ImportOutcome, ImportRow, ImportWrite, Store, StoreError};
use crate::tokens::MessageParts;

/// Titles listed per skip reason in the summary (the count says how many there were).
const EXAMPLES: usize = 5;

/// Writes every conversation of `export` (see `store::imports` for what a re-import does).
/// Cancelled midway, the conversations written so far stay (each whole) and the summary says
/// so.
pub async fn write_export(
    store: &Store,
    export: Export,
    progress: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<ImportSummary, StoreError> {
    let total = export.conversations.len();
    let mut summary = ImportSummary {
        source: export.source,
        conversations: total,
        ..ImportSummary::default()
    };
    let mut skipped_conversations: BTreeMap<SkipReason, SkipCount> = BTreeMap::new();
    let mut skipped_messages: BTreeMap<SkipReason, usize> = BTreeMap::new();
    progress(ImportProgress::Writing { done: 0, total });
    for (done, conversation) in export.conversations.into_iter().enumerate() {
        if cancel.is_cancelled() {
            summary.cancelled = true;
            break;
        }
        for reason in &conversation.skipped {
            *skipped_messages.entry(*reason).or_default() += 1;
        }
        summary.notes += conversation.notes;
        let title = conversation.title.clone();
        let mut skip = |reason: SkipReason| {
            let entry = skipped_conversations
                .entry(reason)
                .or_insert_with(|| SkipCount::new(reason));
            entry.count += 1;
            if entry.titles.len() < EXAMPLES {
                entry.titles.push(title.clone());
            }
        };
        if conversation.messages.is_empty() {
            skip(SkipReason::EmptyConversation);
        } else if let Some(key) = unchanged(store, &conversation).await? {
            // The common case of a re-import: no token counting, no transaction. Its memory
            // can still be built from the summary (what it sends is only what is unobserved).
            summary.unchanged += 1;
            summary.sessions.push(key);
        } else {
            let write = prepare(store, conversation).await?;
            match store.write_import(&write).await? {
                ImportOutcome::Created { key, messages } => {
                    summary.created += 1;
                    summary.messages_imported += messages;
                    summary.sessions.push(key);
                }
                ImportOutcome::Appended { key, messages } => {
                    summary.updated += 1;
                    summary.messages_imported += messages;
                    summary.sessions.push(key);
                }
                ImportOutcome::Unchanged { .. } => summary.unchanged += 1,
                ImportOutcome::Changed { .. } => skip(SkipReason::ChangedSinceImport),
                ImportOutcome::Continued { .. } => skip(SkipReason::ContinuedInLango),
            }
        }
        // At most ~200 updates, however many conversations: a bar needs no more.
        if (done + 1) % (total / 200).max(1) == 0 || done + 1 == total {
            progress(ImportProgress::Writing {
                done: done + 1,
                total,
            });
        }
    }
    summary.skipped_conversations = skipped_conversations.into_values().collect();
    summary.skipped_messages = skipped_messages
        .into_iter()
        .map(|(reason, count)| SkipCount {
            count,
            ..SkipCount::new(reason)
        })
        .collect();
    Ok(summary)
}

/// Its session, when it was imported before and its last message then is still its last.
async fn unchanged(
    store: &Store,
    conversation: &Conversation,
) -> Result<Option<String>, StoreError> {
    let known = store
        .imported_last_message(conversation.source.as_str(), &conversation.external_id)
        .await?;
    Ok(known.and_then(|(key, last)| {
        (Some(last.as_str()) == conversation.messages.last().map(|m| m.external_id.as_str()))
            .then_some(key)
    }))
}

/// The store's rows for a conversation, token counts included (on a blocking thread).
async fn prepare(store: &Store, conversation: Conversation) -> Result<ImportWrite, StoreError> {
    let counter = store.counter().clone();
    let source = conversation.source.as_str().to_owned();
    let count = move || {
        let messages = conversation
            .messages
            .into_iter()
            .map(|m| {
                let cost = counter.message_cost(&MessageParts {
                    content: &m.content,
                    tool_calls: Vec::new(),
                });
                ImportRow {
                    external_id: m.external_id,
                    role: m.role.to_owned(),
                    content: m.content,
                    created_at: m.created_at,
                    token_count: i64::try_from(cost).unwrap_or(i64::MAX),
                }
            })
            .collect();
        ImportWrite {
            source,
            external_id: conversation.external_id,
            title: conversation.title,
            created_at: conversation.created_at,
            updated_at: conversation.updated_at,
            messages,
        }
    };
    match tokio::task::spawn_blocking(count).await {
        Ok(write) => Ok(write),
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // The runtime is shutting down (the app quits): stop here.
        Err(e) => Err(StoreError::Database(format!("the import was stopped: {e}"))),
    }
}
