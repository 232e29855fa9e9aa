//! The [`TokenCounter`] trait, its tiktoken implementation and a fixed-cost one for tests.

use std::sync::{Arc, OnceLock};

use tiktoken_rs::CoreBPE;

/// Fixed per-message overhead (role, separators) in the message cost formula.
const MESSAGE_OVERHEAD: usize = 4;

/// The parts of a tool call that cost tokens. Borrowed, so the store and the agent can
/// count their own types without copying.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolCallParts<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: &'a str,
    pub output: &'a str,
}

/// The parts of a message that cost tokens. Role and author are not counted (REFERENCE §3.2).
#[derive(Debug, Clone, Default)]
pub struct MessageParts<'a> {
    pub content: &'a str,
    pub tool_calls: Vec<ToolCallParts<'a>>,
}

/// Counts tokens. Implementations must be cheap to call and thread-safe.
pub trait TokenCounter: Send + Sync + std::fmt::Debug {
    /// Tokens in a plain text.
    fn count(&self, text: &str) -> usize;

    /// Cost of one message: `4 + content + Σ calls (id + name + input + output)`.
    fn message_cost(&self, message: &MessageParts<'_>) -> usize {
        MESSAGE_OVERHEAD
            + self.count(message.content)
            + message
                .tool_calls
                .iter()
                .map(|c| {
                    self.count(c.id)
                        + self.count(c.name)
                        + self.count(c.input)
                        + self.count(c.output)
                })
                .sum::<usize>()
    }
}

/// `o200k_base` through tiktoken-rs; the BPE tables are compiled into the binary, so this
/// works offline. Loading them takes ~0.2 s, so the encoder is built once per process.
#[derive(Debug, Default, Clone, Copy)]
pub struct TiktokenCounter;

fn o200k() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    // The tables are embedded in the crate with include_str!, so building them cannot fail
    // at run time unless the crate itself is broken.
    BPE.get_or_init(|| {
        tiktoken_rs::o200k_base().expect("o200k_base tables are embedded in tiktoken-rs")
    })
}

impl TiktokenCounter {
    /// Loads the tables now (e.g. on a background thread at start-up) instead of on first use.
    pub fn warm_up() {
        let _ = o200k();
    }
}

impl TokenCounter for TiktokenCounter {
    fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        o200k().encode_ordinary(text).len()
    }
}

/// Every message costs exactly `cost` tokens and every text `cost` too ("cost N" in the
/// REFERENCE acceptance cases). For tests that need predictable budgets.
#[derive(Debug, Clone, Copy)]
pub struct FixedCostCounter {
    pub cost: usize,
}

impl TokenCounter for FixedCostCounter {
    fn count(&self, _text: &str) -> usize {
        self.cost
    }

    fn message_cost(&self, _message: &MessageParts<'_>) -> usize {
        self.cost
    }
}

/// The counter the app uses unless a test injects another one.
pub fn default_counter() -> Arc<dyn TokenCounter> {
    Arc::new(TiktokenCounter)
}
