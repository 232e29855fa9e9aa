//! The ranking of a user's search: BM25 over the candidates' own text (term frequencies,
//! text lengths, and a term's rarity among the candidates), newest first among equals.
//! Which candidates are ranked — a bounded set, newest matches first — is `store::search`'s.

use super::query_terms::{term_counts, QueryTerms};

/// BM25's usual constants (as FTS5's `bm25()`).
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// A candidate as the search reads it: what ranks it and what its hit shows.
pub(super) struct CandidateRow {
    /// 0 message, 1 observation, 2 reflection.
    pub kind: i64,
    pub id: i64,
    pub item_id: String,
    pub session_id: i64,
    pub seq: Option<i64>,
    pub content: String,
    pub created_at: i64,
    pub archived: i64,
}

/// The candidates best first.
pub(super) fn rank(rows: Vec<CandidateRow>, terms: &QueryTerms) -> Vec<CandidateRow> {
    let counted: Vec<(Vec<u32>, usize)> = rows
        .iter()
        .map(|r| term_counts(&r.content, terms))
        .collect();
    let n = counted.len().max(1) as f64;
    let avg_len = counted.iter().map(|(_, len)| *len as f64).sum::<f64>() / n;
    let idf: Vec<f64> = (0..terms.count())
        .map(|t| {
            let df = counted.iter().filter(|(c, _)| c[t] > 0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scored: Vec<(f64, CandidateRow)> = rows
        .into_iter()
        .zip(&counted)
        .map(|(row, (counts, len))| {
            let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * *len as f64 / avg_len.max(1.0));
            let score = counts
                .iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (BM25_K1 + 1.0) / (tf + norm)
                })
                .sum::<f64>();
            (score, row)
        })
        .collect();
    scored.sort_by(|(a, ra), (b, rb)| {
        b.total_cmp(a)
            .then(rb.created_at.cmp(&ra.created_at))
            .then(ra.kind.cmp(&rb.kind))
            .then(rb.id.cmp(&ra.id))
    });
    scored.into_iter().map(|(_, row)| row).collect()
}
