//! Recognising a provider's refusal of a prompt longer than the model's context window.
//!
//! Lango's history budgets come from the model's name (spec 004: 32,000 tokens for a model of
//! no known family), but a local server may run the same model with a 4,096-token window. Its
//! refusal is the only place the real window shows, so each provider's wording is read here
//! for the window and what was sent; the runner then sends less history (runner::fit).
//! Owns the wordings only (no retry, no budgets).

use serde_json::Value;

/// What a provider said about a prompt too long for its model, in the provider's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextLimit {
    /// The model's context window, when the provider named it.
    pub window: Option<u64>,
    /// How many tokens the refused request held (for some providers its reply's room too).
    pub sent: Option<u64>,
}

/// The limit a refusal names, or `None` when `body` / `message` is not about the context.
///
/// Known wordings: llama.cpp (`exceed_context_size_error`, `n_ctx`), OpenAI and vLLM / DeepSeek
/// ("maximum context length is W tokens. However, your messages resulted in / you requested
/// N tokens (M in the messages …)", "exceed the configured limit of W tokens", code
/// `context_length_exceeded`; OpenRouter's "you requested about N"), Anthropic ("prompt is too
/// long: N tokens > W maximum", "exceed context limit: N + M > W"), Gemini ("The input token
/// count (N) exceeds the maximum number of tokens allowed (W)"), Mistral ("Prompt contains N
/// tokens … too large for model with W maximum context length"), LM Studio ("… loaded with
/// context length of only W tokens"), xAI ("maximum prompt length is W but the request
/// contains N tokens") and text-generation-inference ("… must be <= W. Given: N `inputs`
/// tokens").
pub fn context_limit(body: &str, message: &str) -> Option<ContextLimit> {
    if let Some(limit) = llama_cpp(body) {
        return Some(limit);
    }
    let text = message.to_lowercase();
    let code_says = serde_json::from_str::<Value>(body).ok().is_some_and(|v| {
        let e = v.get("error").unwrap_or(&v);
        e.get("code").and_then(Value::as_str) == Some("context_length_exceeded")
    });
    let limit = if let Some(window) = number_after(&text, "maximum context length is ") {
        // vLLM counts the reply's room in "requested"; the messages alone are in brackets.
        let sent = number_before(&text, " in the messages")
            .or_else(|| number_after(&text, "resulted in "))
            .or_else(|| number_after(&text, "you requested "));
        ContextLimit {
            window: Some(window),
            sent,
        }
    } else if let Some(window) = number_after(&text, "maximum prompt length is ") {
        // xAI: "This model's maximum prompt length is 131072 but the request contains 140000
        // tokens."
        ContextLimit {
            window: Some(window),
            sent: number_after(&text, "request contains "),
        }
    } else if let Some(window) = text
        .contains("max_new_tokens")
        .then(|| number_after(&text, "must be <= "))
        .flatten()
    {
        // Hugging Face's text-generation-inference (Together and others): "`inputs` tokens +
        // `max_new_tokens` must be <= 8193. Given: 9000 `inputs` tokens and 512 …".
        ContextLimit {
            window: Some(window),
            sent: number_after(&text, "given: "),
        }
    } else if let Some(window) = number_after(&text, "exceed the configured limit of ") {
        ContextLimit {
            window: Some(window),
            sent: number_after(&text, "resulted in "),
        }
    } else if let Some(sent) = number_after(&text, "exceed context limit: ") {
        // Anthropic, when the prompt fits but not with the reply's `max_tokens`: "N + M > W".
        ContextLimit {
            window: number_after(&text, "> "),
            sent: Some(sent),
        }
    } else if text.contains("prompt is too long") {
        ContextLimit {
            window: number_before(&text, " maximum"),
            sent: number_after(&text, "prompt is too long: "),
        }
    } else if text.contains("exceeds the maximum number of tokens allowed") {
        ContextLimit {
            window: number_after(&text, "maximum number of tokens allowed ("),
            sent: number_after(&text, "input token count ("),
        }
    } else if text.contains("too large for model with") {
        ContextLimit {
            window: number_after(&text, "too large for model with "),
            sent: number_after(&text, "prompt contains "),
        }
    } else if text.contains("context length of only") {
        ContextLimit {
            window: number_after(&text, "context length of only "),
            sent: number_after(&text, "keep the first "),
        }
    } else if code_says
        || ["context length", "context window", "context size"]
            .iter()
            .any(|words| {
                text.contains(words) && (text.contains("exceed") || text.contains("too long"))
            })
    {
        ContextLimit::default()
    } else {
        return None;
    };
    Some(limit)
}

/// llama.cpp's server: `{"error":{"type":"exceed_context_size_error","n_prompt_tokens":6010,
/// "n_ctx":4096}}` (from its Anthropic endpoint too, in the same OpenAI-shaped body).
fn llama_cpp(body: &str) -> Option<ContextLimit> {
    let v: Value = serde_json::from_str(body).ok()?;
    let e = v.get("error")?;
    (e.get("type")?.as_str()? == "exceed_context_size_error").then(|| ContextLimit {
        window: e.get("n_ctx").and_then(Value::as_u64),
        sent: e.get("n_prompt_tokens").and_then(Value::as_u64),
    })
}

/// The number starting right after the first `marker` in `text` (digits, `,` and `_` allowed
/// inside it, as some providers group thousands). Also how the plain-words headlines read
/// the numbers in a provider's refusal (app::plain).
pub(crate) fn number_after(text: &str, marker: &str) -> Option<u64> {
    let start = text.find(marker)? + marker.len();
    // OpenRouter: "you requested about 140000 tokens".
    let rest = text[start..].trim_start_matches("about ");
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, ',' | '_'))
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The number ending right before the first `marker` in `text`.
fn number_before(text: &str, marker: &str) -> Option<u64> {
    let end = text.find(marker)?;
    let digits: String = text[..end]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || matches!(c, ',' | '_'))
        .filter(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::error::error_message;

    fn limit_of(body: &str) -> Option<ContextLimit> {
        context_limit(body, &error_message(body))
    }

    fn limit(window: u64, sent: u64) -> Option<ContextLimit> {
        Some(ContextLimit {
            window: Some(window),
            sent: Some(sent),
        })
    }

    #[test]
    fn llama_cpp_names_its_window_and_the_prompt() {
        // shared/fixtures/openai-compatible/llama-server/error_http400_exceed_context_size.json
        let body = r#"{"error":{"code":400,"message":"request (6010 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":6010,"n_ctx":4096}}"#;
        assert_eq!(limit_of(body), limit(4096, 6010));
    }

    #[test]
    fn openai_and_vllm_wordings() {
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9125 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(limit_of(openai), limit(8192, 9125));
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","code":400}"#;
        assert_eq!(limit_of(vllm), limit(4096, 4000));
        let openrouter = r#"{"error":{"message":"This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens. Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400}}"#;
        assert_eq!(limit_of(openrouter), limit(131_072, 140_000));
        let configured = r#"{"error":{"message":"Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300123 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(limit_of(configured), limit(272_000, 300_123));
        let xai = r#"{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 140000 tokens."}"#;
        assert_eq!(limit_of(xai), limit(131_072, 140_000));
        let tgi = r#"{"error":"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8193. Given: 9000 `inputs` tokens and 512 `max_new_tokens`","error_type":"validation"}"#;
        assert_eq!(limit_of(tgi), limit(8193, 9000));
        let code_only = r#"{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        assert_eq!(limit_of(code_only), Some(ContextLimit::default()));
    }

    #[test]
    fn anthropic_gemini_mistral_and_lm_studio_wordings() {
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#;
        assert_eq!(limit_of(anthropic), limit(200_000, 208_310));
        let anthropic_with_reply = r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}"#;
        assert_eq!(limit_of(anthropic_with_reply), limit(200_000, 198_000));
        let gemini = r#"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#;
        assert_eq!(limit_of(gemini), limit(1_048_576, 1_200_000));
        let mistral = r#"{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_message_error"}"#;
        assert_eq!(limit_of(mistral), limit(32_768, 40_000));
        let lm_studio = r#"{"error":"Trying to keep the first 5003 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"}"#;
        assert_eq!(limit_of(lm_studio), limit(4096, 5003));
    }

    #[test]
    fn other_refusals_are_not_about_the_context() {
        for body in [
            r#"{"error":{"message":"'messages' is required","type":"invalid_request_error"}}"#,
            r#"{"error":{"message":"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 150 instead.","code":"array_above_max_length"}}"#,
            r#"{"error":{"message":"temperature: must be at most 2"}}"#,
            "Bad Request",
        ] {
            assert_eq!(limit_of(body), None, "{body}");
        }
    }
}
