//! What an attachment costs in tokens — an **estimate** for the history budget and the
//! context meter, never a bill: each provider counts images its own way (Anthropic
//! ≈ w·h/750, Gemini 258 per 768-px tile) and wraps text in its own framing.

use crate::tokens::TokenCounter;

/// Tokens for `text` with the engine's counter (the same one stored messages use).
pub fn text_tokens(counter: &dyn TokenCounter, text: &str) -> usize {
    counter.count(text)
}

/// Tokens for a `width`×`height` image by OpenAI's high-detail formula: scaled to fit
/// 2048×2048, then so its shortest side is at most 768; 170 per 512-px tile, plus 85. It
/// sits between Anthropic's and Gemini's counts for the sizes Lango sends (≤ 1568 px), so
/// one number serves every provider's budget.
pub fn image_tokens(width: u32, height: u32) -> usize {
    if width == 0 || height == 0 {
        return 0;
    }
    let (mut w, mut h) = (f64::from(width), f64::from(height));
    let fit = (2048.0 / w.max(h)).min(1.0);
    w *= fit;
    h *= fit;
    let shortest = (768.0 / w.min(h)).min(1.0);
    w = (w * shortest).floor().max(1.0);
    h = (h * shortest).floor().max(1.0);
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    // At most 4×2 tiles after the scaling: the cast cannot truncate.
    170 * tiles as usize + 85
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::FixedCostCounter;

    #[test]
    fn image_costs_follow_openais_published_examples() {
        // OpenAI's vision guide: 1024×1024 → 768×768, 4 tiles → 765 tokens;
        // 2048×4096 → 1024×2048 → 768×1536, 6 tiles → 1105 tokens.
        assert_eq!(image_tokens(1024, 1024), 765);
        assert_eq!(image_tokens(2048, 4096), 1105);
        // A small image is one tile.
        assert_eq!(image_tokens(300, 200), 255);
        // The largest image Lango sends.
        assert_eq!(image_tokens(1568, 1568), 765);
        assert_eq!(image_tokens(0, 10), 0);
    }

    #[test]
    fn text_costs_come_from_the_engines_counter() {
        assert_eq!(text_tokens(&FixedCostCounter { cost: 7 }, "anything"), 7);
    }
}
