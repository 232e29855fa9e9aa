//! History token budgets per model family (spec 004, REFERENCE §2.5).

/// Budget used for a model of no known family, and whenever a configured budget is ≤ 0
/// (spec 003 "Default token budget").
pub const DEFAULT_TOKEN_BUDGET: usize = 32_000;

/// How many tokens of history to send a model, from its name (case-insensitive substring,
/// first match wins, so "gpt-4o" must be tested before "gpt-4").
pub fn model_token_budget(model: &str) -> usize {
    let name = model.to_lowercase();
    if name.contains("claude") {
        100_000 // ~50% of a 200K context
    } else if name.contains("gemini") {
        200_000 // ~20% of a 1M context
    } else if name.contains("gpt-4o") || name.contains("gpt-4-turbo") {
        64_000 // ~50% of 128K
    } else if name.contains("gpt-4") {
        32_000
    } else if name.contains("gpt-3.5") {
        8_000 // ~50% of 16K
    } else {
        DEFAULT_TOKEN_BUDGET
    }
}
