//! The BM25 ranking of knowledge retrieval: FTS5's `bm25()` formula (k1 1.2, b 0.75, IDF
//! `ln((N - n + 0.5) / (n + 0.5))`, at least 1e-6) over the session's own statistics rather
//! than the whole database's: an item's score does not depend on what other conversations
//! contain, and no query scans other sessions' rows. Lengths are the stored token counts.
//!
//! Items are ranked by how many distinct keywords they hold (a whole user sentence rarely
//! has all its words in one note), then by that score; only the best few are put in order.
//! What is ranked — the cached memory items and the history's messages — comes from
//! `memory::knowledge_index`.

use super::knowledge_index::Candidate;
use super::knowledge_session::SessionIndex;
use crate::store::{plain_snippet, term_frequencies, KnowledgeDoc, SearchHitKind, SNIPPET_TOKENS};

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Where a ranked item is: a cached memory item (index into `SessionIndex::docs`) or a
/// message of the history read for this call (index into `live`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Memory(usize),
    History(usize),
}

/// Every item holding a keyword — the cached memory items of `index` and the history's
/// messages `live` —, by keywords held, then BM25; best `limit` first, as candidates.
pub(super) fn rank(
    index: &SessionIndex,
    words: &[String],
    live: Vec<KnowledgeDoc>,
    limit: usize,
) -> Vec<Candidate> {
    let doc = |source: Source| match source {
        Source::Memory(d) => &index.docs[d],
        Source::History(d) => &live[d],
    };
    let live_tf: Vec<Vec<u32>> = live
        .iter()
        .map(|d| term_frequencies(&d.text, words))
        .collect();
    // Items and tokens per collection; messages are the archive's and the history's.
    let stats = index.stats.unwrap_or_default();
    let (mut items, mut tokens) = (stats.items, stats.tokens);
    items[0] += live.len() as i64;
    tokens[0] += live.iter().map(|d| d.tokens.max(0)).sum::<i64>();
    let avg_len: [f64; 3] = std::array::from_fn(|c| {
        if items[c] > 0 && tokens[c] > 0 {
            tokens[c] as f64 / items[c] as f64
        } else {
            1.0
        }
    });

    // Per item, (keywords held, score): a slot per cached item, then per history message —
    // indexing, not hashing, as a common word brings hundreds of items per call.
    let slot = |source: Source| match source {
        Source::Memory(d) => d,
        Source::History(d) => index.docs.len() + d,
    };
    let mut scores: Vec<(usize, f64)> = vec![(0, 0.0); index.docs.len() + live.len()];
    let mut scored: Vec<Source> = Vec::new();
    for (w, word) in words.iter().enumerate() {
        let cached = index.postings.get(word).map(Vec::as_slice).unwrap_or(&[]);
        let holding: Vec<(Source, u32)> = cached
            .iter()
            .map(|&(d, tf)| (Source::Memory(d), tf))
            .chain(
                (live_tf.iter().enumerate())
                    .filter(|(_, tf)| tf[w] > 0)
                    .map(|(d, tf)| (Source::History(d), tf[w])),
            )
            .collect();
        let mut holders = [0usize; 3];
        for &(source, _) in &holding {
            holders[doc(source).kind.position()] += 1;
        }
        for (source, tf) in holding {
            let item = doc(source);
            let c = item.kind.position();
            let tf = f64::from(tf);
            let norm = 1.0 - B + B * (item.tokens.max(0) as f64) / avg_len[c];
            let term =
                idf(items[c] as f64, holders[c] as f64) * (tf * (K1 + 1.0)) / (tf + K1 * norm);
            let entry = &mut scores[slot(source)];
            if entry.0 == 0 {
                scored.push(source);
            }
            entry.0 += 1;
            entry.1 += term;
        }
    }

    let mut ranked: Vec<Ranked<'_>> = scored
        .into_iter()
        .map(|source| {
            let (held, score) = scores[slot(source)];
            let doc = doc(source);
            Ranked {
                held,
                score,
                // Parsed once when the item was recorded, for cached ones.
                number: match source {
                    Source::Memory(d) => index.number(d),
                    Source::History(_) => doc.item_id.parse().ok(),
                },
                doc,
            }
        })
        .collect();
    // Only the best `limit` are sorted: a common word in a long memory holds up to
    // MATCHES_PER_COLLECTION items per collection, and sorting them all was the part of a
    // turn that grew with the memory (`make soak`).
    if ranked.len() > limit {
        ranked.select_nth_unstable_by(limit, Ranked::order);
        ranked.truncate(limit);
    }
    ranked.sort_by(Ranked::order);
    ranked
        .into_iter()
        .map(|Ranked { doc, .. }| Candidate {
            kind: doc.kind,
            id: doc.item_id.clone(),
            content: match doc.kind {
                SearchHitKind::Message => plain_snippet(&doc.text, words, SNIPPET_TOKENS),
                _ => doc.text.clone(),
            },
        })
        .collect()
}

/// FTS5's IDF: `ln((N - n + 0.5) / (n + 0.5))`, at least 1e-6 (a word in most items still
/// counts a little, never negatively).
fn idf(items: f64, holders: f64) -> f64 {
    let idf = ((items - holders + 0.5) / (holders + 0.5)).ln();
    if idf.is_finite() && idf > 1e-6 {
        idf
    } else {
        1e-6
    }
}

/// A scored item and what orders it, its id's number read once (not in every comparison).
struct Ranked<'a> {
    /// Keywords the item holds.
    held: usize,
    /// Its BM25 score.
    score: f64,
    /// Its id as a number, when it is one (message ids: newest = largest).
    number: Option<i64>,
    doc: &'a KnowledgeDoc,
}

impl Ranked<'_> {
    /// Most keywords first, then best score; equal ones by collection in a fixed order,
    /// newest first within one, so a ranking never depends on the order items were scored in.
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.held
            .cmp(&a.held)
            .then(b.score.total_cmp(&a.score))
            .then(a.doc.kind.position().cmp(&b.doc.kind.position()))
            .then(match (a.number, b.number) {
                (Some(x), Some(y)) => y.cmp(&x),
                // Observation and reflection ids compare as text.
                _ => b.doc.item_id.cmp(&a.doc.item_id),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::KnowledgeStats;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn idf_is_positive_and_rarer_words_weigh_more() {
        assert!(idf(100.0, 2.0) > idf(100.0, 20.0));
        assert_eq!(
            idf(10.0, 9.0),
            1e-6,
            "a word in most items still counts a little"
        );
        assert_eq!(idf(0.0, 0.0), 1e-6);
    }

    fn doc(kind: SearchHitKind, id: &str, text: &str) -> KnowledgeDoc {
        KnowledgeDoc {
            kind,
            item_id: id.into(),
            text: text.into(),
            tokens: text.split_whitespace().count() as i64,
        }
    }

    #[test]
    fn items_with_more_and_rarer_words_rank_first() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [20, 2, 0],
            tokens: [100, 10, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["heron", "lake"]);
        index.add(
            &w,
            vec![
                doc(SearchHitKind::Message, "1", "the lake"),
                doc(SearchHitKind::Message, "2", "a heron by the lake"),
                doc(SearchHitKind::Message, "3", "a heron"),
                doc(SearchHitKind::Message, "4", "lake again"),
                doc(SearchHitKind::Message, "5", "lake and lake"),
            ],
        );
        let hits = rank(&index, &w, Vec::new(), 10);
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids[0], "2", "both words");
        assert_eq!(ids[1], "3", "the rarer word");
        assert_eq!(hits.len(), 5);
        assert_eq!(hits[0].content, "a heron by the lake");
    }

    #[test]
    fn history_items_rank_with_the_cached_ones_and_the_limit_applies() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [3, 0, 0],
            tokens: [9, 0, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["otter"]);
        index.add(&w, vec![doc(SearchHitKind::Message, "1", "an otter swims")]);
        let live = vec![doc(SearchHitKind::Message, "9", "otter otter otter")];
        let hits = rank(&index, &w, live, 1);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "9", "more occurrences rank first");
    }
    #[test]
    fn the_best_few_of_many_matches_are_the_head_of_the_full_ranking() {
        let mut index = SessionIndex::new(1);
        index.stats = Some(KnowledgeStats {
            items: [400, 100, 0],
            tokens: [4000, 1000, 0],
            ..KnowledgeStats::default()
        });
        let w = words(&["heron", "lake"]);
        let texts = [
            "the lake",
            "a heron by the lake",
            "a heron",
            "lake and lake",
        ];
        let messages = (0..300).map(|i| {
            let text = texts[i % texts.len()];
            doc(SearchHitKind::Message, &(i * 7 % 300).to_string(), text)
        });
        let observations = (0..100).map(|i| {
            let text = texts[i % texts.len()];
            doc(SearchHitKind::Observation, &format!("obs-{i:03}"), text)
        });
        index.add(&w, messages.chain(observations).collect());
        let ids = |limit| -> Vec<(SearchHitKind, String)> {
            rank(&index, &w, Vec::new(), limit)
                .into_iter()
                .map(|c| (c.kind, c.id))
                .collect()
        };
        let all = ids(usize::MAX);
        assert_eq!(all.len(), 400);
        for limit in [0, 1, 7, 50, 399, 400, 401] {
            let head: Vec<_> = all.iter().take(limit).cloned().collect();
            assert_eq!(ids(limit), head, "limit {limit}");
        }
        // The 75 messages holding both words score the same: newest (largest) id first,
        // compared as numbers ("100" before "99").
        let best: Vec<i64> = all
            .iter()
            .take(75)
            .map(|(kind, id)| {
                assert_eq!(*kind, SearchHitKind::Message);
                id.parse().unwrap_or(-1)
            })
            .collect();
        assert!(best.windows(2).all(|p| p[0] > p[1]), "{best:?}");
        assert!(best.iter().any(|&id| id >= 100) && best.iter().any(|&id| id < 100));
    }
}
