//! The memory section of the system prompt and its fitting: which reflections and
//! observations fit the memory budget, rendered under `## Conversation Memory`.

use super::or_default;
use crate::tokens::TokenCounter;

/// Default memory section budget (spec 002 "Default memory token budget").
pub const DEFAULT_MEMORY_TOKEN_BUDGET: usize = 4000;
pub const MEMORY_HEADING: &str = "## Conversation Memory";

/// The memory section (REFERENCE §3.8, acceptance 54–55): reflections (oldest first) under
/// `### Summary`, then observations under `### Recent Observations` as `- <obs>` lines.
/// Reflections are walked first, then observations only if `used < budget`; each list stops
/// at the first item with `used + count(content) > budget`. Only contents count. Empty
/// headings are omitted; nothing fits → None. `budget` 0 → 4000.
pub fn memory_section<R: AsRef<str>, O: AsRef<str>>(
    reflections: &[R],
    observations: &[O],
    counter: &dyn TokenCounter,
    budget: usize,
) -> Option<(String, usize)> {
    let fit = fit_memory(reflections, observations, counter, budget);
    fit.text.map(|t| (t, fit.used))
}

pub(crate) struct MemoryFit {
    pub(crate) text: Option<String>,
    pub(crate) used: usize,
    pub(crate) reflections: usize,
    pub(crate) observations: usize,
}

pub(crate) fn fit_memory<R: AsRef<str>, O: AsRef<str>>(
    reflections: &[R],
    observations: &[O],
    counter: &dyn TokenCounter,
    budget: usize,
) -> MemoryFit {
    let budget = or_default(budget, DEFAULT_MEMORY_TOKEN_BUDGET);
    let mut used = 0usize;
    let take = |items: &[&str], used: &mut usize| -> usize {
        let mut n = 0;
        for item in items {
            let cost = counter.count(item);
            if *used + cost > budget {
                break;
            }
            *used += cost;
            n += 1;
        }
        n
    };
    let refl: Vec<&str> = reflections.iter().map(AsRef::as_ref).collect();
    let obs: Vec<&str> = observations.iter().map(AsRef::as_ref).collect();
    let n_refl = take(&refl, &mut used);
    let n_obs = if used < budget {
        take(&obs, &mut used)
    } else {
        0
    };
    if n_refl == 0 && n_obs == 0 {
        return MemoryFit {
            text: None,
            used: 0,
            reflections: 0,
            observations: 0,
        };
    }
    let mut s = format!("{MEMORY_HEADING}\n");
    if n_refl > 0 {
        s.push_str("\n### Summary\n");
        for r in &refl[..n_refl] {
            s.push_str(r);
            s.push('\n');
        }
    }
    if n_obs > 0 {
        s.push_str("\n### Recent Observations\n");
        for o in &obs[..n_obs] {
            s.push_str("- ");
            s.push_str(o);
            s.push('\n');
        }
    }
    MemoryFit {
        text: Some(s),
        used,
        reflections: n_refl,
        observations: n_obs,
    }
}
