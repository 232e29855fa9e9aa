//! Text from outside Lango (a model, a tool, a server's stderr, a provider's error body) made
//! safe to show: `sanitize` removes terminal control sequences. Used by the CLI for everything
//! it prints and by the MCP client for the server logs it keeps. Also where text may be cut
//! without splitting a character ([`floor_char_boundary`]).

pub mod sanitize;

/// The largest index <= `at` that is a char boundary of `text`.
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut i = at.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
