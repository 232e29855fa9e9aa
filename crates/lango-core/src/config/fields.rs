//! The generic JSON walker every settings section is read with.
//!
//! Owns type checks, unknown-key detection and the problem/warning collector. It must not
//! know any setting's name, default or rule: the section modules pass those in.
//!
//! Every getter records a problem and returns `None` instead of stopping, so one load reports
//! every mistake in the file at once. `null` counts as "not set" (the settings screen sends it
//! for cleared inputs).

use serde_json::{Map, Value};

use super::error::Problem;

/// Problems (the file is rejected) and warnings (it loads) found so far.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub problems: Vec<Problem>,
    pub warnings: Vec<String>,
}

impl Report {
    pub fn problem(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            field: field.into(),
            message: message.into(),
        });
    }

    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }
}

/// Joins a prefix and a key into a dotted path (`""` + `agent` = `agent`).
pub(crate) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// A short rendering of a JSON value for messages: strings quoted, long values cut.
pub(crate) fn describe(value: &Value) -> String {
    const MAX: usize = 40;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}

/// One JSON object being read, with the keys it is allowed to have.
pub(crate) struct Fields<'a> {
    prefix: String,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// Opens `value` as the object at `prefix`. Absent or `null` → `None` (all defaults);
    /// not an object → a problem and `None`. Keys outside `known` are reported here.
    pub fn open(
        value: Option<&'a Value>,
        prefix: &str,
        known: &[&str],
        report: &mut Report,
    ) -> Option<Self> {
        let fields = Self::open_any_keys(value, prefix, report)?;
        fields.reject_unknown(known, report);
        Some(fields)
    }

    /// Like [`Fields::open`] but leaves key checking to the caller (maps keyed by ids).
    pub fn open_any_keys(
        value: Option<&'a Value>,
        prefix: &str,
        report: &mut Report,
    ) -> Option<Self> {
        match value {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(Self {
                prefix: prefix.to_owned(),
                map,
            }),
            Some(other) => {
                let what = if prefix.is_empty() {
                    "the settings file"
                } else {
                    prefix
                };
                report.problem(
                    prefix,
                    format!("{what} must be an object, got {}", describe(other)),
                );
                None
            }
        }
    }

    pub fn map(&self) -> &'a Map<String, Value> {
        self.map
    }

    pub fn path(&self, key: &str) -> String {
        join(&self.prefix, key)
    }

    /// The raw value of `key`, `None` when absent or `null`.
    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn reject_unknown(&self, known: &[&str], report: &mut Report) {
        for key in self.map.keys() {
            if !known.contains(&key.as_str()) {
                report_unknown_key(&self.path(key), key, known, report);
            }
        }
    }

    pub fn string(&self, key: &str, report: &mut Report) -> Option<String> {
        match self.raw(key)? {
            Value::String(s) => Some(s.clone()),
            other => self.wrong_type(key, "a string", other, report),
        }
    }

    pub fn boolean(&self, key: &str, report: &mut Report) -> Option<bool> {
        match self.raw(key)? {
            Value::Bool(b) => Some(*b),
            other => self.wrong_type(key, "true or false", other, report),
        }
    }

    pub fn number(&self, key: &str, report: &mut Report) -> Option<f64> {
        match self.raw(key)? {
            Value::Number(n) => n.as_f64(),
            other => self.wrong_type(key, "a number", other, report),
        }
    }

    /// A whole number. `5.0` is accepted (some editors write it); `5.5` is not.
    pub fn integer(&self, key: &str, report: &mut Report) -> Option<i64> {
        let value = self.raw(key)?;
        let whole = match value {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < i64::MAX as f64)
                    .map(|f| f as i64)
            }),
            _ => None,
        };
        match whole {
            Some(i) => Some(i),
            None => self.wrong_type(key, "a whole number", value, report),
        }
    }

    fn wrong_type<T>(
        &self,
        key: &str,
        expected: &str,
        got: &Value,
        report: &mut Report,
    ) -> Option<T> {
        let path = self.path(key);
        report.problem(
            &path,
            format!("{path} must be {expected}, got {}", describe(got)),
        );
        None
    }
}

/// Records `<path> is not a known setting`, with a hint when a known key is one typo away.
pub(crate) fn report_unknown_key(path: &str, key: &str, known: &[&str], report: &mut Report) {
    let hint = known
        .iter()
        .map(|k| (edit_distance(&key.to_lowercase(), &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| format!(" (did you mean {k}?)"))
        .unwrap_or_default();
    report.problem(path, format!("{path} is not a known setting{hint}"));
}

/// Levenshtein distance; keys are short, so the O(n·m) table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Range check shared by the integer settings: `value` must fit `u32`.
pub(crate) fn to_u32(path: &str, value: i64, report: &mut Report) -> Option<u32> {
    match u32::try_from(value) {
        Ok(v) => Some(v),
        Err(_) => {
            report.problem(path, format!("{path} is too large, got {value}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_typos() {
        assert_eq!(
            edit_distance("messageTokenTreshold", "messageTokenThreshold"),
            1
        );
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
