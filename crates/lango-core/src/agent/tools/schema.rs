//! Input-schema normalisation (REFERENCE §1.5): whatever form a tool declares its parameters
//! in, the model sees one strict JSON Schema object.
//!
//! Three forms are accepted:
//! 1. a full JSON Schema (top-level `properties` is an object, or `"type":"object"`):
//!    its properties are kept as given, `required` = the string items of its list, in order;
//! 2. name → typed definition `{type, description, required: bool, enum}` ([`ParamDef`]);
//! 3. name → raw object: `type`, `description`, `enum`, `items` (recursive), `properties` /
//!    `required` (recursive); a boolean `"required": true` adds the name.
//!
//! Any other property value becomes `{"type":"string"}`. Forms 2 and 3 list `required` in
//! declaration order ([FIX]: the reference's order was random). `serde_json` maps iterate by
//! name, so for a parsed `Value` declaration order is name order. Only the top level gets
//! `additionalProperties: false`; an empty `required` is left out.

use serde_json::{json, Map, Value};

/// A typed parameter definition (form 2), for tools that describe their inputs by hand.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParamDef {
    /// JSON Schema type: `string`, `integer`, `number`, `boolean`, `array`, `object`.
    pub kind: String,
    pub description: String,
    pub required: bool,
    pub enum_values: Vec<String>,
}

impl ParamDef {
    pub fn new(kind: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            description: description.into(),
            ..Self::default()
        }
    }

    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    pub fn with_enum<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
        self.enum_values = values.into_iter().map(Into::into).collect();
        self
    }

    /// The form-2 JSON value of this definition.
    pub fn to_value(&self) -> Value {
        let mut def = Map::new();
        def.insert("type".into(), Value::String(self.kind.clone()));
        if !self.description.is_empty() {
            def.insert(
                "description".into(),
                Value::String(self.description.clone()),
            );
        }
        def.insert("required".into(), Value::Bool(self.required));
        if !self.enum_values.is_empty() {
            def.insert("enum".into(), json!(self.enum_values));
        }
        Value::Object(def)
    }
}

/// Builds a form-2 parameter map from `(name, definition)` pairs.
pub fn params<'a>(defs: impl IntoIterator<Item = (&'a str, ParamDef)>) -> Value {
    Value::Object(
        defs.into_iter()
            .map(|(name, def)| (name.to_owned(), def.to_value()))
            .collect(),
    )
}

/// Normalises a tool's declared parameters to
/// `{"type":"object","properties":…,"required":[…],"additionalProperties":false}`.
pub fn normalize_schema(params: &Value) -> Value {
    let Some(obj) = params.as_object() else {
        return finish(Map::new(), Vec::new());
    };

    if is_json_schema(obj) {
        let properties = obj
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        return finish(properties, string_items(obj.get("required")));
    }

    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, value) in obj {
        if let Some(def) = value.as_object() {
            if def.get("required").and_then(Value::as_bool) == Some(true) {
                required.push(name.clone());
            }
            properties.insert(name.clone(), convert_property(def));
        } else {
            properties.insert(name.clone(), json!({"type": "string"}));
        }
    }
    finish(properties, required)
}

/// Form 1: top-level `properties` is an object. A bare `{"type":"object"}` (no properties)
/// is also a JSON Schema, not a parameter named "type".
fn is_json_schema(obj: &Map<String, Value>) -> bool {
    obj.get("properties").is_some_and(Value::is_object)
        || obj.get("type").and_then(Value::as_str) == Some("object")
}

fn finish(properties: Map<String, Value>, required: Vec<String>) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), Value::Bool(false));
    Value::Object(schema)
}

/// The string items of a `required` list (anything else → none), in their order.
fn string_items(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Forms 2 and 3: one property definition, recursively for array items and object
/// properties. A missing type is inferred (`properties` → object, `items` → array, else
/// string) so that strict providers always see one.
fn convert_property(def: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    let kind = match def
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        Some(kind) => kind.to_owned(),
        None if def.get("properties").is_some_and(Value::is_object) => "object".to_owned(),
        None if def.get("items").is_some_and(Value::is_object) => "array".to_owned(),
        None => "string".to_owned(),
    };
    out.insert("type".into(), Value::String(kind));
    if let Some(description) = def
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
    {
        out.insert("description".into(), Value::String(description.to_owned()));
    }
    if let Some(values) = def
        .get("enum")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())
    {
        out.insert("enum".into(), Value::Array(values.clone()));
    }
    if let Some(items) = def.get("items") {
        let items = match items.as_object() {
            Some(items) => convert_property(items),
            None => json!({"type": "string"}),
        };
        out.insert("items".into(), items);
    }
    if let Some(props) = def.get("properties").and_then(Value::as_object) {
        let mut required = string_items(def.get("required"));
        let mut properties = Map::new();
        for (name, value) in props {
            if let Some(child) = value.as_object() {
                if child.get("required").and_then(Value::as_bool) == Some(true)
                    && !required.contains(name)
                {
                    required.push(name.clone());
                }
                properties.insert(name.clone(), convert_property(child));
            } else {
                properties.insert(name.clone(), json!({"type": "string"}));
            }
        }
        out.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            out.insert("required".into(), json!(required));
        }
    }
    Value::Object(out)
}
