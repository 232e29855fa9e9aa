//! What replies cost: the provider's token counts × the user's prices (`prices` in Settings,
//! US dollars per million tokens). Nothing is estimated: a reply without usage or a model
//! without a price has no cost, shown blank, and a total says how many replies it misses.

use serde::Serialize;

use super::reply::ReplyInfo;
use crate::config::{Price, Prices};

/// The price of `model`: its exact id, else the same id in another case.
fn price_of<'a>(prices: &'a Prices, model: &str) -> Option<&'a Price> {
    prices.get(model).or_else(|| {
        prices
            .iter()
            .find(|(id, _)| id.eq_ignore_ascii_case(model))
            .map(|(_, p)| p)
    })
}

/// A reply's cost in US dollars, `None` without usage or a price.
pub fn reply_cost(reply: &ReplyInfo, prices: &Prices) -> Option<f64> {
    let price = price_of(prices, &reply.model)?;
    let (input, output) = (reply.input_tokens?, reply.output_tokens?);
    Some((input as f64 * price.input + output as f64 * price.output) / 1_000_000.0)
}

/// A conversation's replies, added up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationUsage {
    /// Tokens the providers reported (replies without usage add nothing).
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub replies: u64,
    /// The priced replies' total; `None` when none has a price.
    pub cost: Option<f64>,
    /// Replies left out of `cost` (no usage reported, or no price for their model).
    pub unpriced_replies: u64,
}

impl ConversationUsage {
    pub fn of<'a>(replies: impl IntoIterator<Item = &'a ReplyInfo>, prices: &Prices) -> Self {
        let mut usage = Self::default();
        for reply in replies {
            usage.replies += 1;
            usage.input_tokens += reply.input_tokens.unwrap_or(0);
            usage.output_tokens += reply.output_tokens.unwrap_or(0);
            match reply_cost(reply, prices) {
                Some(c) => *usage.cost.get_or_insert(0.0) += c,
                None => usage.unpriced_replies += 1,
            }
        }
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(model: &str, tokens: Option<(u64, u64)>) -> ReplyInfo {
        ReplyInfo {
            provider: "p".into(),
            model: model.into(),
            input_tokens: tokens.map(|t| t.0),
            output_tokens: tokens.map(|t| t.1),
            cost: None,
        }
    }

    fn prices() -> Prices {
        let mut p = Prices::new();
        p.insert(
            "gpt-4o-mini".into(),
            Price {
                input: 0.15,
                output: 0.6,
            },
        );
        p
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-12)
    }

    #[test]
    fn a_reply_costs_its_tokens_at_the_price_per_million() {
        let cost = reply_cost(&reply("GPT-4o-mini", Some((1_000_000, 500_000))), &prices());
        assert!(close(cost, 0.45), "{cost:?}");
    }

    #[test]
    fn no_usage_or_no_price_means_no_cost_never_zero() {
        assert_eq!(reply_cost(&reply("gpt-4o-mini", None), &prices()), None);
        assert_eq!(
            reply_cost(&reply("llama3.2", Some((10, 10))), &prices()),
            None
        );
    }

    #[test]
    fn a_conversation_total_counts_the_replies_it_could_not_price() {
        let replies = [
            reply("gpt-4o-mini", Some((1_000_000, 0))),
            reply("llama3.2", Some((7, 3))),
            reply("gpt-4o-mini", None),
        ];
        let usage = ConversationUsage::of(&replies, &prices());
        assert_eq!((usage.input_tokens, usage.output_tokens), (1_000_007, 3));
        assert_eq!((usage.replies, usage.unpriced_replies), (3, 2));
        assert!(close(usage.cost, 0.15), "{:?}", usage.cost);
        assert_eq!(ConversationUsage::of(&replies[1..], &prices()).cost, None);
    }
}
