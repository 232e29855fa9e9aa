//! Schema normalisation (acceptance 16, 17): what a tool's parameters become before a provider sees them.

use super::*;

#[test]
fn acceptance_16_full_json_schema_keeps_properties_and_required() {
    let input = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "offset": {"type": "integer"},
            "limit": {"type": "integer"}
        },
        "required": ["path"]
    });
    let schema = normalize_schema(&input);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": input["properties"].clone(),
            "required": ["path"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_full_json_schema_keeps_its_required_order_and_only_strings() {
    let input = json!({
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
        "required": ["c", 7, "a", null]
    });
    assert_eq!(normalize_schema(&input)["required"], json!(["c", "a"]));
    // A non-list `required` gives none.
    let input = json!({"properties": {"a": {"type": "string"}}, "required": "a"});
    assert!(normalize_schema(&input).get("required").is_none());
}

#[test]
fn acceptance_16_typed_definitions_required_flag() {
    let input = params([
        (
            "command",
            ParamDef::new("string", "The command to run").required(),
        ),
        ("timeout", ParamDef::new("integer", "Seconds")),
    ]);
    let schema = normalize_schema(&input);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command to run"},
                "timeout": {"type": "integer", "description": "Seconds"}
            },
            "required": ["command"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_typed_definition_enum_is_kept() {
    let input = params([(
        "mode",
        ParamDef::new("string", "")
            .with_enum(["fast", "slow"])
            .required(),
    )]);
    assert_eq!(
        normalize_schema(&input),
        json!({
            "type": "object",
            "properties": {"mode": {"type": "string", "enum": ["fast", "slow"]}},
            "required": ["mode"],
            "additionalProperties": false
        })
    );
}

#[test]
fn acceptance_16_raw_objects_with_boolean_required_and_nested_items() {
    let input = json!({
        "arg": {"type": "string", "required": true},
        "tags": {"type": "array", "description": "Tags", "items": {"type": "string"}},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "label": {"type": "string", "enum": ["x", "y"]}},
                "required": ["id"]
            }
        }
    });
    let schema = normalize_schema(&input);
    assert_eq!(schema["required"], json!(["arg"]));
    assert_eq!(schema["properties"]["arg"], json!({"type": "string"}));
    assert_eq!(
        schema["properties"]["tags"],
        json!({"type": "array", "description": "Tags", "items": {"type": "string"}})
    );
    assert_eq!(
        schema["properties"]["rows"],
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "label": {"type": "string", "enum": ["x", "y"]}},
                "required": ["id"]
            }
        })
    );
    // Only the top level is closed.
    assert_eq!(schema["additionalProperties"], json!(false));
    assert!(schema["properties"]["rows"]["items"]
        .get("additionalProperties")
        .is_none());
}

#[test]
fn acceptance_16_nested_boolean_required_adds_nested_names() {
    let input = json!({
        "filter": {"type": "object", "properties": {"from": {"type": "string", "required": true}, "to": {"type": "string"}}}
    });
    let schema = normalize_schema(&input);
    assert_eq!(
        schema["properties"]["filter"],
        json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from"]})
    );
    assert!(
        schema.get("required").is_none(),
        "a nested flag does not make the parent required"
    );
}

#[test]
fn required_order_is_declaration_order_fix() {
    // Parsed JSON objects iterate by name, so declaration order here is name order; the
    // reference's order was random (map iteration). Repeat to catch any nondeterminism.
    let input = json!({
        "zeta": {"type": "string", "required": true},
        "alpha": {"type": "string", "required": true},
        "mid": {"type": "string"},
        "beta": {"type": "string", "required": true}
    });
    for _ in 0..20 {
        assert_eq!(
            normalize_schema(&input)["required"],
            json!(["alpha", "beta", "zeta"])
        );
    }
}

#[test]
fn acceptance_17_unknown_value_type_becomes_string() {
    let input = json!({"a": 42, "b": "text", "c": [1, 2], "d": null, "e": true});
    let schema = normalize_schema(&input);
    for name in ["a", "b", "c", "d", "e"] {
        assert_eq!(
            schema["properties"][name],
            json!({"type": "string"}),
            "{name}"
        );
    }
    assert!(schema.get("required").is_none());
}

#[test]
fn acceptance_17_empty_params() {
    let empty = json!({"type": "object", "properties": {}, "additionalProperties": false});
    assert_eq!(normalize_schema(&json!({})), empty);
    assert_eq!(normalize_schema(&Value::Null), empty);
    assert_eq!(
        normalize_schema(&json!({"type": "object"})),
        empty,
        "a bare object schema has no parameter named type"
    );
}

#[test]
fn missing_type_is_inferred() {
    let input = json!({
        "o": {"properties": {"x": {"type": "integer"}}},
        "l": {"items": {"type": "number"}},
        "s": {"description": "plain"}
    });
    let schema = normalize_schema(&input);
    assert_eq!(schema["properties"]["o"]["type"], "object");
    assert_eq!(schema["properties"]["l"]["type"], "array");
    assert_eq!(
        schema["properties"]["s"],
        json!({"type": "string", "description": "plain"})
    );
}
