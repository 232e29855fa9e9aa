//! The embedding model setting is validated.

use super::*;

#[test]
fn the_embedding_model_setting_is_validated() {
    let check = |providers: Value, memory: Value| {
        validate_value(&json!({
            "providers": providers,
            "observationalMemory": memory,
        }))
    };
    let openai = json!({"o": {"type": "openai"}});
    // Default: off.
    let (s, warnings) = check(openai.clone(), json!({"enabled": true})).unwrap();
    assert_eq!(s.observational_memory.embedding_model, "");
    assert!(warnings.is_empty(), "{warnings:?}");
    let (s, warnings) = check(
        openai.clone(),
        json!({"enabled": true, "embeddingModel": " text-embedding-3-small "}),
    )
    .unwrap();
    assert_eq!(
        s.observational_memory.embedding_model,
        "text-embedding-3-small"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        s.to_value()["observationalMemory"]["embeddingModel"],
        "text-embedding-3-small"
    );

    let problems = check(openai.clone(), json!({"embeddingModel": "text embedding"})).unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");
    assert!(
        problems[0].message.contains("without spaces"),
        "{problems:?}"
    );
    let problems = check(openai.clone(), json!({"embeddingModel": 3})).unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");

    // Anthropic has no embeddings API: an error naming the way out.
    let problems = check(
        json!({"c": {"type": "anthropic"}}),
        json!({"enabled": true, "embeddingModel": "voyage-3"}),
    )
    .unwrap_err();
    assert_eq!(problems[0].field, "observationalMemory.embeddingModel");
    assert!(
        problems[0].message.contains("no")
            && problems[0].message.contains("observationalMemory.provider"),
        "{problems:?}"
    );
    // …unless the memory uses another provider that can embed.
    let (_, warnings) = check(
        json!({"c": {"type": "anthropic"}, "o": {"type": "openai"}}),
        json!({"enabled": true, "provider": "o", "embeddingModel": "text-embedding-3-small"}),
    )
    .unwrap_or_else(|p| panic!("{p:?}"));
    assert!(
        warnings.iter().all(|w| !w.contains("embeddingModel")),
        "{warnings:?}"
    );
    // Warnings: memory off; a Gemini model that is not an embedding model.
    let (_, warnings) = check(openai, json!({"embeddingModel": "text-embedding-3-small"})).unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("no effect")),
        "{warnings:?}"
    );
    let (_, warnings) = check(
        json!({"g": {"type": "gemini"}}),
        json!({"enabled": true, "embeddingModel": "gemini-2.0-flash"}),
    )
    .unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("Gemini")),
        "{warnings:?}"
    );
}
