//! Token counting and history budgets.
//!
//! Owns how many tokens a text or a stored message costs (REFERENCE §3.2) and how many
//! tokens of history a model family gets (spec 004). It must not read the store or config:
//! callers pass in what they count.

mod budget;
mod counter;

pub use budget::{model_token_budget, DEFAULT_TOKEN_BUDGET};
pub use counter::{
    default_counter, FixedCostCounter, MessageParts, TiktokenCounter, TokenCounter, ToolCallParts,
};
