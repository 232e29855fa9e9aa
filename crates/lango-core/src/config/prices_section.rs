//! The `prices` section: what a model's tokens cost, typed in by the user (no network
//! look-ups). `{ "<model id>": { "input": 0.15, "output": 0.6 } }`, US dollars per million
//! tokens. A model not listed has no price: its cost shows blank, never as zero.
//!
//! Owns parsing and the per-entry rules. Computing a reply's cost is `crate::conversation`'s.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::{describe, Fields, Report};

/// US dollars per million tokens of one model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// Prices by model id, as typed (ids are matched exactly, then ignoring case).
pub type Prices = BTreeMap<String, Price>;

pub(crate) fn parse(value: Option<&Value>, report: &mut Report) -> Prices {
    let mut prices = Prices::new();
    let Some(section) = Fields::open_any_keys(value, "prices", report) else {
        return prices;
    };
    for (model, entry) in section.map() {
        let path = section.path(model);
        if model.trim().is_empty() {
            report.problem(&path, format!("{path}: a model id must not be empty"));
            continue;
        }
        let Some(fields) = Fields::open(Some(entry), &path, &["input", "output"], report) else {
            if entry.is_null() {
                report.problem(&path, format!("{path} must be an object like {{\"input\": 0.15, \"output\": 0.6}}, got null"));
            }
            continue;
        };
        let input = per_million(&fields, "input", report);
        let output = per_million(&fields, "output", report);
        if let (Some(input), Some(output)) = (input, output) {
            prices.insert(model.trim().to_owned(), Price { input, output });
        }
    }
    prices
}

/// One price: required, a number ≥ 0.
fn per_million(fields: &Fields<'_>, key: &str, report: &mut Report) -> Option<f64> {
    let path = fields.path(key);
    let Some(raw) = fields.raw(key) else {
        report.problem(
            &path,
            format!("{path} is required: US dollars per million {key} tokens"),
        );
        return None;
    };
    let n = fields.number(key, report)?;
    if n.is_finite() && n >= 0.0 {
        Some(n)
    } else {
        report.problem(
            &path,
            format!("{path} must be 0 or more, got {}", describe(raw)),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(v: Value) -> (Prices, Vec<String>) {
        let mut report = Report::default();
        let prices = parse(Some(&v), &mut report);
        (
            prices,
            report.problems.into_iter().map(|p| p.field).collect(),
        )
    }

    #[test]
    fn prices_per_million_tokens_are_read_by_model_id() {
        let (prices, problems) = parsed(json!({"gpt-4o-mini": {"input": 0.15, "output": 0.6}}));
        assert!(problems.is_empty());
        assert_eq!(
            prices["gpt-4o-mini"],
            Price {
                input: 0.15,
                output: 0.6
            }
        );
    }

    #[test]
    fn a_negative_missing_or_wrongly_typed_price_is_a_problem_naming_its_field() {
        let (prices, problems) = parsed(json!({
            "a": {"input": -1, "output": 1},
            "b": {"input": 1},
            "c": {"input": "cheap", "output": 1},
            "d": {"input": 1, "output": 2, "cached": 0}
        }));
        assert!(["a", "b", "c"].iter().all(|m| !prices.contains_key(*m)));
        assert_eq!(
            problems,
            vec![
                "prices.a.input",
                "prices.b.output",
                "prices.c.input",
                "prices.d.cached"
            ]
        );
    }
}
