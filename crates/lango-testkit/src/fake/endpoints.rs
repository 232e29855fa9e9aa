//! The endpoints beside generation: model lists in each provider's format and deterministic
//! embeddings.

use super::errors::js;
use super::wire::Wire;
use crate::server::RecordedRequest;

pub(super) fn models_wire(req: &RecordedRequest, path: &str) -> Wire {
    if path.ends_with("/api/tags") {
        Wire::Ollama
    } else if req.header("anthropic-version").is_some() || req.header("x-api-key").is_some() {
        Wire::Anthropic
    } else if req.header("x-goog-api-key").is_some()
        || req.path.contains("key=")
        || path.contains("v1beta")
    {
        Wire::Gemini
    } else {
        Wire::OpenAi
    }
}

pub(super) fn models_body(wire: Wire, models: &[String]) -> String {
    let items: Vec<String> = models
        .iter()
        .map(|m| match wire {
            Wire::OpenAi => format!(r#"{{"id":{},"object":"model","created":1686935002,"owned_by":"lango-fake"}}"#, js(m)),
            Wire::Anthropic => format!(
                r#"{{"type":"model","id":{},"display_name":{},"created_at":"2025-02-19T00:00:00Z"}}"#,
                js(m),
                js(&display_name(m))
            ),
            Wire::Gemini => format!(
                r#"{{"name": {},"version": "001","displayName": {},"description": "A fake model.","inputTokenLimit": 1048576,"outputTokenLimit": 8192,"supportedGenerationMethods": ["generateContent","countTokens","streamGenerateContent"]}}"#,
                js(&format!("models/{m}")),
                js(&display_name(m))
            ),
            Wire::Ollama => format!(
                r#"{{"name":{0},"model":{0},"modified_at":"2025-05-04T17:37:44.706015396-07:00","size":2019393189,"digest":"a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72","details":{{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"}}}}"#,
                js(m)
            ),
        })
        .collect();
    let list = items.join(",");
    match wire {
        Wire::OpenAi => format!(r#"{{"object":"list","data":[{list}]}}"#),
        Wire::Anthropic => format!(
            r#"{{"data":[{list}],"has_more":false,"first_id":{},"last_id":{}}}"#,
            js(models.first().map(String::as_str).unwrap_or_default()),
            js(models.last().map(String::as_str).unwrap_or_default())
        ),
        Wire::Gemini => format!("{{\n  \"models\": [{list}]\n}}\n"),
        Wire::Ollama => format!(r#"{{"models":[{list}]}}"#),
    }
}

/// The embedding size of [`embed_text`].
pub const EMBEDDING_DIMS: usize = 64;

/// The fake's deterministic embedding: words hashed into [`EMBEDDING_DIMS`] buckets, then
/// L2-normalised, so texts sharing words are similar (cosine) and others are not.
pub fn embed_text(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; EMBEDDING_DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        // FNV-1a, stable across runs and platforms.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.to_lowercase().bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        v[(h % EMBEDDING_DIMS as u64) as usize] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else {
        v[0] = 1.0;
    }
    v
}

/// OpenAI `/embeddings` (`input`: string or array), Ollama `/api/embed` (same), Gemini
/// `:batchEmbedContents` (`requests[].content.parts[].text`).
pub(super) fn embeddings_body(path: &str, body: &serde_json::Value) -> String {
    let vector = |t: &str| serde_json::to_string(&embed_text(t)).unwrap_or_else(|_| "[]".into());
    if path.ends_with(":batchEmbedContents") {
        let texts: Vec<String> = body["requests"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let parts = r["content"]["parts"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("")
                    })
                    .collect()
            })
            .unwrap_or_default();
        let rows: Vec<String> = texts
            .iter()
            .map(|t| format!("{{\n      \"values\": {}\n    }}", vector(t)))
            .collect();
        return format!(
            "{{\n  \"embeddings\": [\n    {}\n  ]\n}}\n",
            rows.join(",\n    ")
        );
    }
    let texts: Vec<String> = match &body["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    let model = body["model"].as_str().unwrap_or("fake-embedding");
    if path.ends_with("/api/embed") {
        let rows: Vec<String> = texts.iter().map(|t| vector(t)).collect();
        return format!(
            r#"{{"model":{},"embeddings":[{}],"total_duration":14143917,"load_duration":1019500,"prompt_eval_count":{}}}"#,
            js(model),
            rows.join(","),
            texts.len()
        );
    }
    let rows: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                r#"{{"object":"embedding","index":{i},"embedding":{}}}"#,
                vector(t)
            )
        })
        .collect();
    let tokens: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
    format!(
        r#"{{"object":"list","data":[{}],"model":{},"usage":{{"prompt_tokens":{tokens},"total_tokens":{tokens}}}}}"#,
        rows.join(","),
        js(model)
    )
}

pub(super) fn display_name(model: &str) -> String {
    model
        .split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}
