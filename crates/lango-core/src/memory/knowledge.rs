//! Knowledge retrieval for the `## Semantic Context (RAG)` section (REFERENCE §3.8, spec 002
//! "Session key propagated to RAG retrieval").
//!
//! Always filtered by the session key, over the session's messages (archived ones included),
//! observations and reflections:
//!
//! - **BM25** (the embedded default, no setup): the store's full-text index (FTS5) finds the
//!   items holding ANY of the query's keywords (a whole user sentence rarely has all its words
//!   in one note); `knowledge_index` scores them with BM25 over the session's own statistics
//!   (cached per memory version), and items are ranked by how many keywords matched, then by
//!   that score.
//! - **Hybrid**, when an embedding model is configured: the same BM25 ranking and the cosine
//!   similarity of the query's embedding to the session's stored vectors (`memory_vectors`,
//!   filled by the embedding buffer), fused by reciprocal rank fusion. Without a query vector
//!   (no embedder, no vectors, or the embedder failed or was too slow) it is BM25 alone, byte
//!   for byte.
//!
//! [`candidates`] does the reads (one search, plus the vectors); [`select`] is the pure
//! filtering that picks at most [`KNOWLEDGE_LIMIT`] items for one request.

use std::collections::{HashMap, HashSet};

use super::embedding::cosine;
pub use super::knowledge_index::Candidate;
use super::knowledge_index::KnowledgeIndex;
use crate::agent::{roles, Content};
use crate::store::{
    has_set_apart, retrieval_words, MemoryState, SearchHitKind, Store, StoreResult,
};
use crate::tokens::TokenCounter;

pub const KNOWLEDGE_HEADING: &str = "## Semantic Context (RAG)";
/// Items in the section at most (REFERENCE §3.8: limit 5).
pub const KNOWLEDGE_LIMIT: usize = 5;
/// Default token budget of the knowledge section (item blocks only).
pub const DEFAULT_KNOWLEDGE_TOKEN_BUDGET: usize = 1000;
/// Keywords searched per query at most.
const MAX_KEYWORDS: usize = 8;
/// ... when the query holds Chinese, Japanese or Thai, whose runs give a keyword per pair of
/// characters (`store::retrieval_words`): most are not in the memory's vocabulary and cost
/// no read, and a question's subject is seldom in its first few pairs.
const MAX_KEYWORDS_UNSPACED: usize = 24;
/// Hits ranked per query (3× the limit, then filtered).
const HITS_PER_QUERY: usize = KNOWLEDGE_LIMIT * 3;

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "your", "all", "any", "can", "had", "her",
    "was", "one", "our", "out", "has", "him", "his", "how", "its", "let", "may", "who", "did",
    "get", "got", "use", "what", "when", "where", "which", "why", "with", "this", "that", "these",
    "those", "there", "their", "they", "them", "then", "than", "from", "into", "about", "would",
    "could", "should", "have", "been", "were", "will", "just", "also", "some", "more", "most",
    "such", "only", "very", "does", "doing", "done", "please", "tell", "know", "want", "like",
    "make", "need", "again", "here", "okay", "yes",
];

/// One retrieved item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnowledgeItem {
    /// `message`, `observation` or `reflection`.
    pub collection: &'static str,
    pub id: String,
    pub content: String,
}

/// The RAG query: the first non-empty text of the LAST `user` content; None → no retrieval.
pub fn rag_query(contents: &[Content]) -> Option<&str> {
    contents
        .iter()
        .rev()
        .find(|c| c.role == roles::USER)?
        .parts
        .iter()
        .filter(|p| !p.thought)
        .filter_map(|p| p.text.as_deref())
        .find(|t| !t.trim().is_empty())
}

/// The words of `query` worth searching: lowercased, deduplicated, no stopwords, at least
/// three characters (or any non-ASCII word, e.g. CJK), at most [`MAX_KEYWORDS`]
/// ([`MAX_KEYWORDS_UNSPACED`] with Chinese, Japanese or Thai).
pub fn keywords(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let max = if has_set_apart(query) {
        MAX_KEYWORDS_UNSPACED
    } else {
        MAX_KEYWORDS
    };
    // Split as the indexes split words: marks stay on their letters ("हिन्दी" is one word), a
    // Chinese or Thai run is its pairs of characters ("拉面" is found inside "吃拉面").
    retrieval_words(query)
        .into_iter()
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 || (!w.is_empty() && !w.is_ascii()))
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .take(max)
        .collect()
}

/// True when the model already sees this message text in `visible` (e.g. the current turn).
fn is_echo(snippet: &str, visible: &[String]) -> bool {
    let longest = snippet
        .split('…')
        .map(str::trim)
        .max_by_key(|f| f.len())
        .unwrap_or("");
    !longest.is_empty() && visible.iter().any(|v| v.contains(longest))
}

/// Vector hits considered per query (like the BM25 side: 3× the limit).
const VECTOR_CANDIDATES: usize = KNOWLEDGE_LIMIT * 3;
/// Vectors less similar than this to the query are not candidates.
pub const MIN_SIMILARITY: f32 = 0.2;
/// Reciprocal rank fusion constant: `score = Σ 1 / (RRF_K + rank)` over the two rankings.
const RRF_K: f64 = 60.0;
/// A message found only by its vector is shown as its first this-many characters.
const EXCERPT_CHARS: usize = 400;

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The session's items most similar to `query_vector`, best first, at most
/// [`VECTOR_CANDIDATES`], none below [`MIN_SIMILARITY`]: `(kind, id, similarity)`.
async fn rank_vectors(
    store: &Store,
    key: &str,
    query_vector: &[f32],
) -> StoreResult<Vec<(SearchHitKind, String, f32)>> {
    let mut similar: Vec<(SearchHitKind, String, f32)> = store
        .session_vectors(key, None)
        .await?
        .into_iter()
        .filter_map(|(collection, id, vector)| {
            let kind = SearchHitKind::from_name(&collection)?;
            let similarity = cosine(query_vector, &vector);
            (similarity >= MIN_SIMILARITY).then_some((kind, id, similarity))
        })
        .collect();
    similar.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    similar.truncate(VECTOR_CANDIDATES);
    Ok(similar)
}

/// Reciprocal rank fusion of the BM25 ranking and the vector ranking; items only the vectors
/// found get their text from the store (deleted ones are dropped). Ties keep BM25 order.
async fn fuse(
    store: &Store,
    key: &str,
    bm25: Vec<Candidate>,
    vectors: Vec<(SearchHitKind, String, f32)>,
) -> StoreResult<Vec<Candidate>> {
    if vectors.is_empty() {
        return Ok(bm25);
    }
    let rrf = |position: usize| 1.0 / (RRF_K + position as f64 + 1.0);
    // (kind, id) → (score, bm25 position, vector position, candidate if known)
    type Fused = (f64, usize, usize, Option<Candidate>);
    let mut fused: HashMap<(&'static str, String), Fused> = HashMap::new();
    for (i, c) in bm25.into_iter().enumerate() {
        fused.insert(
            (c.kind.name(), c.id.clone()),
            (rrf(i), i, usize::MAX, Some(c)),
        );
    }
    for (j, (kind, id, _)) in vectors.into_iter().enumerate() {
        let entry = fused
            .entry((kind.name(), id))
            .or_insert((0.0, usize::MAX, usize::MAX, None));
        entry.0 += rrf(j);
        entry.2 = j;
    }
    let missing: Vec<(String, String)> = fused
        .iter()
        .filter(|(_, v)| v.3.is_none())
        .map(|((c, id), _)| ((*c).to_owned(), id.clone()))
        .collect();
    let texts: HashMap<(String, String), String> = store
        .item_texts(key, &missing)
        .await?
        .into_iter()
        .map(|(c, id, text)| ((c, id), text))
        .collect();
    let mut ranked: Vec<(f64, usize, usize, Candidate)> = fused
        .into_iter()
        .filter_map(|((c, id), (score, i, j, candidate))| {
            let candidate = match candidate {
                Some(candidate) => candidate,
                None => {
                    let text = texts.get(&(c.to_owned(), id.clone()))?;
                    let kind = SearchHitKind::from_name(c)?;
                    let content = match kind {
                        SearchHitKind::Message => excerpt(text),
                        _ => text.clone(),
                    };
                    Candidate { kind, id, content }
                }
            };
            Some((score, i, j, candidate))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    Ok(ranked.into_iter().map(|r| r.3).collect())
}

/// The BM25-ranked candidates of session `key` for `query`, best first: its memory and the
/// messages still in its history, ranked afresh (no cache; context assembly uses
/// [`bm25_candidates_in`] with the adapter's index). Unknown session → none.
pub async fn bm25_candidates(store: &Store, key: &str, query: &str) -> StoreResult<Vec<Candidate>> {
    let Some(state) = store.memory_state(key).await? else {
        return Ok(Vec::new());
    };
    bm25_candidates_in(&KnowledgeIndex::default(), store, key, &state, query).await
}

/// [`bm25_candidates`] through `index` for the session at `state`: the memory's matches and
/// statistics from the index's cache for that memory version, the history's matched afresh.
pub async fn bm25_candidates_in(
    index: &KnowledgeIndex,
    store: &Store,
    key: &str,
    state: &MemoryState,
    query: &str,
) -> StoreResult<Vec<Candidate>> {
    let words = keywords(query);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    index
        .search(store, key, state.version, &words, HITS_PER_QUERY)
        .await
}

/// `bm25` fused with the ranking of the session's vectors by similarity to `query_vector`
/// (reciprocal rank fusion). When the vectors cannot be read, `bm25` as it is (logged).
pub async fn with_vector_ranking(
    store: &Store,
    key: &str,
    bm25: Vec<Candidate>,
    query_vector: &[f32],
) -> StoreResult<Vec<Candidate>> {
    let vectors = match rank_vectors(store, key, query_vector).await {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(session = %key, error = %e, "loading the session's vectors failed; BM25 only");
            return Ok(bm25);
        }
    };
    fuse(store, key, bm25, vectors).await
}

/// The ranked candidates of session `key` for `query`, best first: BM25 alone, or fused with
/// the vector ranking when `query_vector` is given (the query's embedding by the model the
/// session's vectors were made with).
pub async fn candidates(
    store: &Store,
    key: &str,
    query: &str,
    query_vector: Option<&[f32]>,
) -> StoreResult<Vec<Candidate>> {
    let bm25 = bm25_candidates(store, key, query).await?;
    match query_vector {
        Some(vector) => with_vector_ranking(store, key, bm25, vector).await,
        None => Ok(bm25),
    }
}

/// Picks up to [`KNOWLEDGE_LIMIT`] of the ranked `candidates`: skips items whose ids are in
/// `exclude` (already in the memory section) and messages whose text the model already sees
/// in `visible` (the request's own contents, e.g. the current turn).
pub fn select(
    candidates: &[Candidate],
    visible: &[String],
    exclude: &HashSet<String>,
) -> Vec<KnowledgeItem> {
    let mut items = Vec::new();
    for c in candidates {
        if items.len() >= KNOWLEDGE_LIMIT {
            break;
        }
        if exclude.contains(&c.id) {
            continue;
        }
        if c.kind == SearchHitKind::Message && is_echo(&c.content, visible) {
            continue;
        }
        items.push(KnowledgeItem {
            collection: c.kind.name(),
            id: c.id.clone(),
            content: c.content.clone(),
        });
    }
    items
}

/// Retrieves up to [`KNOWLEDGE_LIMIT`] items of session `key` relevant to `query` by BM25,
/// best first. Skips messages whose text is already in `visible` (the request's own
/// contents), items whose ids are in `exclude` (already in the memory section) and items
/// deleted since they were indexed.
pub async fn retrieve(
    store: &Store,
    key: &str,
    query: &str,
    visible: &[String],
    exclude: &HashSet<String>,
) -> StoreResult<Vec<KnowledgeItem>> {
    retrieve_hybrid(store, key, query, None, visible, exclude).await
}

/// [`retrieve`] with the hybrid ranking when `query_vector` is given.
pub async fn retrieve_hybrid(
    store: &Store,
    key: &str,
    query: &str,
    query_vector: Option<&[f32]>,
    visible: &[String],
    exclude: &HashSet<String>,
) -> StoreResult<Vec<KnowledgeItem>> {
    let found = candidates(store, key, query, query_vector).await?;
    Ok(select(&found, visible, exclude))
}

/// `## Semantic Context (RAG)\n` + `\n### [<collection>] <id>\n<content>\n` per item, best
/// first, stopping at the first item whose block would exceed `budget` tokens (0 → the
/// default). Returns the section and the tokens of its item blocks; None when nothing fits.
pub fn format_knowledge(
    items: &[KnowledgeItem],
    counter: &dyn TokenCounter,
    budget: usize,
) -> Option<(String, usize)> {
    format_knowledge_with(items, |block| counter.count(block), budget)
}

/// One item's block in the knowledge section.
pub fn knowledge_block(collection: &str, id: &str, content: &str) -> String {
    format!("\n### [{collection}] {id}\n{content}\n")
}

/// [`format_knowledge`] with each block's tokens from `cost` (e.g. counted ahead of time,
/// off the send path).
pub fn format_knowledge_with(
    items: &[KnowledgeItem],
    cost: impl Fn(&str) -> usize,
    budget: usize,
) -> Option<(String, usize)> {
    let budget = if budget == 0 {
        DEFAULT_KNOWLEDGE_TOKEN_BUDGET
    } else {
        budget
    };
    let mut section = format!("{KNOWLEDGE_HEADING}\n");
    let mut used = 0usize;
    let mut any = false;
    for item in items {
        let block = knowledge_block(item.collection, &item.id, &item.content);
        let cost = cost(&block);
        if used + cost > budget {
            break;
        }
        used += cost;
        section.push_str(&block);
        any = true;
    }
    any.then_some((section, used))
}

/// Retrieval plus formatting for `query` in session `key` (the query's own message is not
/// echoed back). Ok(None) when nothing relevant fits.
pub async fn knowledge_section(
    store: &Store,
    key: &str,
    query: &str,
    counter: &dyn TokenCounter,
    budget: usize,
) -> StoreResult<Option<(String, usize)>> {
    knowledge_section_hybrid(store, key, query, None, counter, budget).await
}

/// [`knowledge_section`] with the hybrid ranking when `query_vector` is given.
pub async fn knowledge_section_hybrid(
    store: &Store,
    key: &str,
    query: &str,
    query_vector: Option<&[f32]>,
    counter: &dyn TokenCounter,
    budget: usize,
) -> StoreResult<Option<(String, usize)>> {
    let items = retrieve_hybrid(
        store,
        key,
        query,
        query_vector,
        &[query.to_owned()],
        &HashSet::new(),
    )
    .await?;
    Ok(format_knowledge(&items, counter, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_drop_stopwords_and_short_words() {
        assert_eq!(
            keywords("What language do I prefer? Rust, rust!"),
            vec!["language", "prefer", "rust"]
        );
    }

    #[test]
    fn query_is_the_first_text_of_the_last_user_content() {
        let contents = vec![
            Content::user_text("first"),
            Content::model_text("reply"),
            Content::new(
                roles::USER,
                vec![
                    crate::agent::Part::text(""),
                    crate::agent::Part::text("second"),
                ],
            ),
        ];
        assert_eq!(rag_query(&contents), Some("second"));
        assert_eq!(rag_query(&[Content::model_text("x")]), None);
    }

    #[test]
    fn an_excerpt_keeps_whole_characters() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(EXCERPT_CHARS + 10);
        let cut = excerpt(&long);
        assert!(cut.ends_with('…'));
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn selection_skips_excluded_items_and_echoes_and_stops_at_the_limit() {
        let c = |kind, id: &str, content: &str| Candidate {
            kind,
            id: id.into(),
            content: content.into(),
        };
        let mut found = vec![
            c(SearchHitKind::Message, "1", "what the user just asked"),
            c(
                SearchHitKind::Observation,
                "o1",
                "shown in the memory section",
            ),
            c(SearchHitKind::Reflection, "r1", "a reflection"),
        ];
        found.extend((2..10).map(|i| c(SearchHitKind::Message, &i.to_string(), "older")));
        let visible = vec!["so, what the user just asked?".to_owned()];
        let exclude: HashSet<String> = ["o1".to_owned()].into();
        let picked = select(&found, &visible, &exclude);
        let ids: Vec<&str> = picked.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["r1", "2", "3", "4", "5"]);
        assert_eq!(picked[0].collection, "reflection");
    }

    #[test]
    fn echo_detection_uses_the_longest_fragment() {
        let visible = vec!["tell me about the borrow checker in Rust".to_owned()];
        assert!(is_echo("…about the borrow checker…", &visible));
        assert!(!is_echo("…something else…", &visible));
    }
}
