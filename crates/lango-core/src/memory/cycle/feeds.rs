//! What a memory cycle hands to the background buffers: texts without a vector to the
//! embedding buffer (messages by id, observations and reflections by text, each queued once
//! per text), and the REFERENCE §3.9 triples of what it saved to the graph buffer. Never fails
//! the cycle: a full queue or a store error leaves the rest for the next cycle.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::MemoryCycle;
use crate::memory::embedding::EmbedItem;
use crate::memory::graph::{meta_reflection_triples, observation_triples, reflection_triples};
use crate::memory::reflector::Condensed;
use crate::store::Observation;

/// Messages queued for embedding per cycle at most (the queue holds 256).
const MESSAGES_PER_CYCLE: u32 = 128;
/// Longest text sent for embedding, in characters (embedding models take a few thousand
/// tokens; the start of a long message is what it is about).
const MAX_EMBED_CHARS: usize = 4000;

/// What one session handed to the embedding buffer.
#[derive(Debug, Default)]
pub(super) struct EmbedProgress {
    /// Messages up to this id were queued.
    through_message: i64,
    /// `collection:id` → hash of the text queued (an edited text is queued again).
    queued: HashMap<String, u64>,
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

fn embed_item(key: &str, collection: &str, id: &str, text: &str) -> EmbedItem {
    let text = match text.char_indices().nth(MAX_EMBED_CHARS) {
        Some((cut, _)) => &text[..cut],
        None => text,
    };
    EmbedItem {
        session_key: key.to_owned(),
        collection: collection.to_owned(),
        item_id: id.to_owned(),
        text: text.to_owned(),
    }
}

impl MemoryCycle {
    /// Queues the session's texts without a vector (by the buffer's model) for embedding:
    /// messages with an id above the last one queued (at most [`MESSAGES_PER_CYCLE`]; the rest
    /// next cycle), then observations and reflections (new, edited since their vector was
    /// made, or embedded by another model) not already queued with the same text. Stops at
    /// the first drop (full queue): what was not queued is found again next cycle. A batch
    /// whose embedding failed is tried again after a restart. Never fails the cycle.
    pub(super) async fn embed_pending(&self, key: &str) {
        let Some(buffer) = &self.embeddings else {
            return;
        };
        let after = self
            .embedded
            .lock()
            .map(|p| p.get(key).map_or(0, |p| p.through_message))
            .unwrap_or(0);
        let (messages, items) = tokio::join!(
            self.store
                .messages_to_embed(key, buffer.model(), after, MESSAGES_PER_CYCLE),
            self.store.memory_items_to_embed(key, buffer.model()),
        );
        let messages = messages.unwrap_or_else(|e| {
            tracing::debug!(session = key, error = %e, "memory: could not list messages to embed");
            Vec::new()
        });
        let mut through = after;
        for (id, text) in messages {
            if !buffer.enqueue(embed_item(key, "message", &id.to_string(), &text)) {
                break;
            }
            through = id;
        }
        let Ok(mut progress) = self.embedded.lock() else {
            return;
        };
        let progress = progress.entry(key.to_owned()).or_default();
        progress.through_message = progress.through_message.max(through);
        let Ok(items) = items else {
            return;
        };
        // Forget what has a vector now; keep what is still queued.
        let pending: std::collections::HashSet<String> = items
            .iter()
            .map(|(collection, id, _)| format!("{collection}:{id}"))
            .collect();
        progress.queued.retain(|k, _| pending.contains(k));
        for (collection, id, text) in items {
            let name = format!("{collection}:{id}");
            let hash = text_hash(&text);
            if progress.queued.get(&name) == Some(&hash) {
                continue;
            }
            if !buffer.enqueue(embed_item(key, &collection, &id, &text)) {
                break;
            }
            progress.queued.insert(name, hash);
        }
    }

    /// Queues one just-saved observation or reflection for embedding.
    pub(super) fn embed_saved(&self, key: &str, collection: &str, id: &str, text: &str) {
        let Some(buffer) = &self.embeddings else {
            return;
        };
        if buffer.enqueue(embed_item(key, collection, id, text)) {
            if let Ok(mut progress) = self.embedded.lock() {
                progress
                    .entry(key.to_owned())
                    .or_default()
                    .queued
                    .insert(format!("{collection}:{id}"), text_hash(text));
            }
        }
    }

    /// Queues the triples of a new observation: in its session, following the one before it.
    pub(super) async fn graph_observation(&self, key: &str, observation: &Observation) {
        let Some(graph) = &self.graph else { return };
        // [FIX] the previous observation comes from the store, not from memory.
        let previous = match self.store.list_observations(key).await {
            Ok(all) => {
                let at = all.iter().position(|o| o.id == observation.id);
                at.and_then(|i| i.checked_sub(1))
                    .and_then(|i| all.get(i))
                    .map(|o| o.id.clone())
            }
            Err(_) => None,
        };
        graph.enqueue(
            key,
            observation_triples(&observation.id, key, previous.as_deref()),
        );
    }

    /// Queues the triples of a new reflection or meta-reflection: what it condensed.
    pub(super) fn graph_reflection(&self, key: &str, done: &Condensed, meta: bool) {
        let Some(graph) = &self.graph else { return };
        let triples = if meta {
            meta_reflection_triples(&done.reflection.id, key, &done.condensed_ids)
        } else {
            reflection_triples(&done.reflection.id, key, &done.condensed_ids)
        };
        graph.enqueue(key, triples);
    }
}
