//! API keys never show up in Debug/Display output or error messages.

use lango_core::secrets::{env_var_name, ApiKey, SecretsError};

#[derive(Debug)]
#[allow(dead_code)] // only read through Debug
struct ProviderClient {
    name: String,
    key: ApiKey,
    keys: Vec<ApiKey>,
    maybe: Option<ApiKey>,
}

#[test]
fn debug_of_a_struct_holding_an_api_key_never_contains_the_key() {
    let secret = "sk-proj-VERYSECRET-0123456789";
    let client = ProviderClient {
        name: "openai".into(),
        key: ApiKey::new(secret),
        keys: vec![ApiKey::new(secret)],
        maybe: Some(ApiKey::new(secret)),
    };
    for text in [format!("{client:?}"), format!("{client:#?}")] {
        assert!(!text.contains(secret), "{text}");
        assert!(!text.contains("VERYSECRET"), "{text}");
        assert!(text.contains("ApiKey(***)"), "{text}");
    }
    assert_eq!(format!("{}", client.key), "ApiKey(***)");
    assert_eq!(client.key.expose(), secret);
}

#[test]
fn api_key_trims_pasted_whitespace() {
    assert_eq!(ApiKey::new("  sk-abc\n").expose(), "sk-abc");
}

#[test]
fn env_var_name_uppercases_and_replaces_non_alphanumerics() {
    assert_eq!(env_var_name("openai"), "LANGO_OPENAI_API_KEY");
    assert_eq!(
        env_var_name("my-ollama.local"),
        "LANGO_MY_OLLAMA_LOCAL_API_KEY"
    );
}

#[test]
fn no_secure_store_message_lists_the_options() {
    let err = SecretsError::NoSecureStore {
        provider: "openai".into(),
        env_var: env_var_name("openai"),
        reason: "no D-Bus session".into(),
    };
    let text = err.to_string();
    assert!(text.contains("LANGO_OPENAI_API_KEY"), "{text}");
    assert!(text.contains("allowFileStore"), "{text}");
    assert!(text.contains("no D-Bus session"), "{text}");
}
