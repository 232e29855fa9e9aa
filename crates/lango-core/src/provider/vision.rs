//! Which models take images: [`accepts_images`] from the model's name, for the UI to warn
//! before an image is sent to a model that would refuse it (or silently ignore it).
//!
//! Names only — no network call. Families are matched after dropping a `models/` or vendor
//! prefix (`meta-llama/…`) and an Ollama tag (`:7b`). `None` means "unknown": the caller
//! sends the image and lets the provider answer.

use crate::config::ProviderType;

/// Some(true) for a model known to take images, Some(false) for one known not to, None when
/// the name says nothing either way.
pub fn accepts_images(kind: ProviderType, model: &str) -> Option<bool> {
    let lower = model.trim().to_ascii_lowercase();
    let without_prefix = lower.rsplit('/').next().unwrap_or(&lower);
    let (name, tag) = match without_prefix.split_once(':') {
        Some((name, tag)) => (name, tag),
        None => (without_prefix, ""),
    };
    if name.is_empty() {
        return None;
    }
    if not_a_chat_model(name) {
        return Some(false);
    }
    if has_vision_marker(name) {
        return Some(true);
    }
    if text_only(name, tag) {
        return Some(false);
    }
    if vision_family(name) {
        return Some(true);
    }
    // Every model Anthropic serves takes images (Claude 3 on); names the rules above do not
    // know are still Claude models.
    (kind == ProviderType::Anthropic).then_some(true)
}

/// Embedding, speech and image-generation models: they take no chat images at all.
fn not_a_chat_model(name: &str) -> bool {
    [
        "embed",
        "tts",
        "whisper",
        "transcribe",
        "realtime",
        "-audio",
        "dall-e",
        "moderation",
    ]
    .iter()
    .any(|m| name.contains(m))
}

/// A name that says it sees: `…-vision…`, LLaVA and friends, Qwen's `-vl`/`2.5vl`,
/// DeepSeek's `vl2`, Pixtral, Moondream, MiniCPM-V, `…multimodal…`.
fn has_vision_marker(name: &str) -> bool {
    let words = [
        "vision",
        "llava",
        "pixtral",
        "moondream",
        "minicpm-v",
        "multimodal",
        "qvq",
    ];
    if words.iter().any(|w| name.contains(w)) {
        return true;
    }
    name.split(['-', '_']).any(|token| {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        token == "vl"
            || token.strip_prefix("vl").is_some_and(digits)
            || token
                .strip_suffix("vl")
                .is_some_and(|head| head.ends_with(|c: char| c.is_ascii_digit()))
    })
}

/// Families known to take text only (their vision variants were caught by the marker).
fn text_only(name: &str, tag: &str) -> bool {
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| name.starts_with(p));
    // GPT-4 before Turbo, and GPT-4 Turbo's preview (the April 2024 Turbo sees).
    let turbo_that_sees = name.starts_with("gpt-4-turbo") && !name.contains("preview");
    let old_gpt4 = (name == "gpt-4" || name.starts_with("gpt-4-")) && !turbo_that_sees;
    let one_b =
        tag == "1b" || tag.starts_with("1b-") || name.ends_with("-1b") || name.contains("-1b-");
    old_gpt4
        || starts(&[
            "gpt-3.5",
            "gpt-35",
            "o1-mini",
            "o1-preview",
            "o3-mini",
            "davinci",
            "babbage",
            "text-",
        ])
        || starts(&[
            "deepseek",
            "claude-2",
            "claude-instant",
            "gemini-1.0-pro",
            "codellama",
            "codestral",
        ])
        || name == "gemini-pro"
        || starts(&[
            "llama2",
            "llama3",
            "llama-2",
            "llama-3",
            "meta-llama-3",
            "mixtral",
            "mistral-7b",
            "mistral-nemo",
        ])
        || name == "mistral"
        || starts(&[
            "phi3", "phi-3", "phi4", "phi-4", "gemma2", "gemma-2", "qwq", "qwen2",
        ])
        || name == "gemma"
        || (name.starts_with("qwen3") && !name.starts_with("qwen3."))
        || (starts(&["gemma3", "gemma-3"]) && one_b)
}

/// Families known to take images.
fn vision_family(name: &str) -> bool {
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| name.starts_with(p));
    let openai_reasoning = ["o1", "o3", "o4-mini"]
        .iter()
        .any(|p| name == *p || name.starts_with(&format!("{p}-")));
    openai_reasoning
        || starts(&[
            "gpt-4o",
            "chatgpt-4o",
            "gpt-4.1",
            "gpt-4.5",
            "gpt-5",
            "gpt-4-turbo",
        ])
        || starts(&[
            "claude-", "gemini-", "gemma3", "gemma-3", "llama4", "llama-4", "grok-4",
        ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(kind: ProviderType, cases: &[(&str, Option<bool>)]) {
        for (model, want) in cases {
            assert_eq!(accepts_images(kind, model), *want, "{model}");
        }
    }

    #[test]
    fn openai_vision_models_and_text_only_ones_are_told_apart() {
        check(
            ProviderType::OpenAi,
            &[
                ("gpt-4o", Some(true)),
                ("gpt-4o-mini-2024-07-18", Some(true)),
                ("chatgpt-4o-latest", Some(true)),
                ("gpt-4.1-nano", Some(true)),
                ("gpt-5", Some(true)),
                ("gpt-5-mini", Some(true)),
                ("o1", Some(true)),
                ("o3", Some(true)),
                ("o4-mini", Some(true)),
                ("gpt-4-turbo-2024-04-09", Some(true)),
                ("gpt-4-vision-preview", Some(true)),
                ("gpt-3.5-turbo", Some(false)),
                ("gpt-4", Some(false)),
                ("gpt-4-0613", Some(false)),
                ("gpt-4-turbo-preview", Some(false)),
                ("o1-mini", Some(false)),
                ("o1-preview", Some(false)),
                ("o3-mini", Some(false)),
                ("gpt-4o-audio-preview", Some(false)),
                ("text-embedding-3-small", Some(false)),
                ("some-finetune", None),
            ],
        );
    }

    #[test]
    fn claude_and_gemini_models_see_except_the_old_text_ones() {
        check(
            ProviderType::Anthropic,
            &[
                ("claude-3-5-sonnet-20241022", Some(true)),
                ("claude-3-haiku-20240307", Some(true)),
                ("claude-sonnet-4-5", Some(true)),
                ("claude-opus-4-1-20250805", Some(true)),
                ("claude-2.1", Some(false)),
                ("claude-instant-1.2", Some(false)),
                ("a-future-name", Some(true)),
            ],
        );
        check(
            ProviderType::Gemini,
            &[
                ("gemini-2.5-flash", Some(true)),
                ("models/gemini-2.0-flash", Some(true)),
                ("gemini-1.5-pro-002", Some(true)),
                ("gemini-pro", Some(false)),
                ("gemini-pro-vision", Some(true)),
                ("gemini-embedding-001", Some(false)),
                ("gemma-3-27b-it", Some(true)),
                ("gemma-3-1b-it", Some(false)),
            ],
        );
    }

    #[test]
    fn local_and_compatible_models_go_by_family_and_vision_markers() {
        check(
            ProviderType::Ollama,
            &[
                ("llama3.2", Some(false)),
                ("llama3.1:8b", Some(false)),
                ("llama3.2-vision:11b", Some(true)),
                ("llava:13b", Some(true)),
                ("qwen2.5vl:7b", Some(true)),
                ("qwen2.5-coder:7b", Some(false)),
                ("qwen3:8b", Some(false)),
                ("gemma3:4b", Some(true)),
                ("gemma3:1b", Some(false)),
                ("gemma3:12b", Some(true)),
                ("mistral", Some(false)),
                ("moondream", Some(true)),
                ("minicpm-v:8b", Some(true)),
                ("deepseek-r1:7b", Some(false)),
                ("llama4:scout", Some(true)),
                ("phi4", Some(false)),
                ("nomic-embed-text", Some(false)),
                ("granite3.2-vision", Some(true)),
                ("my-own-model", None),
                ("", None),
            ],
        );
        check(
            ProviderType::OpenAiCompatible,
            &[
                ("deepseek-chat", Some(false)),
                ("deepseek-reasoner", Some(false)),
                ("deepseek-vl2", Some(true)),
                ("meta-llama/llama-4-scout-17b-16e-instruct", Some(true)),
                ("llama-3.3-70b-versatile", Some(false)),
                ("llama-3.2-11b-vision-preview", Some(true)),
                ("Qwen/Qwen2.5-VL-72B-Instruct", Some(true)),
                ("pixtral-12b-2409", Some(true)),
                ("mixtral-8x7b-32768", Some(false)),
            ],
        );
    }
}
