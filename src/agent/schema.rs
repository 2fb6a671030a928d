//! Checks a tool call's input against the tool's `input_schema` before the tool runs, so a model
//! that got the arguments wrong gets a validation error back as the tool's result and can retry.
//!
//! The JSON Schema subset checked (what tool schemas use in practice): `type` (one name or a
//! list; `integer` is a number with no fraction), `properties` and `required` of objects,
//! `items` of arrays, `enum`, `minimum` / `maximum`, `minLength` / `maxLength`. Every other
//! keyword is accepted without a check.

use serde_json::Value;

use crate::json::to_json;

/// `Err` names the first place where `input` breaks `schema`, e.g. `input.city: expected string`.
pub fn check(schema: &Value, input: &Value) -> Result<(), String> {
    check_at(schema, input, "input")
}

fn check_at(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else { return Ok(()) };
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::String(k) => vec![k.as_str()],
            Value::Array(ks) => ks.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !kinds.is_empty() && !kinds.iter().any(|k| is_type(k, value)) {
            return Err(format!("{path}: expected {}, got {}", kinds.join(" or "), type_name(value)));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            return Err(format!("{path}: must be one of {}", to_json(options)));
        }
    }
    if let Some(n) = value.as_f64() {
        if schema.get("minimum").and_then(Value::as_f64).is_some_and(|min| n < min) {
            return Err(format!("{path}: below the minimum {}", to_json(&schema["minimum"])));
        }
        if schema.get("maximum").and_then(Value::as_f64).is_some_and(|max| n > max) {
            return Err(format!("{path}: above the maximum {}", to_json(&schema["maximum"])));
        }
    }
    if let Some(s) = value.as_str() {
        let chars = s.chars().count() as u64;
        if schema.get("minLength").and_then(Value::as_u64).is_some_and(|min| chars < min) {
            return Err(format!("{path}: shorter than {}", to_json(&schema["minLength"])));
        }
        if schema.get("maxLength").and_then(Value::as_u64).is_some_and(|max| chars > max) {
            return Err(format!("{path}: longer than {}", to_json(&schema["maxLength"])));
        }
    }
    if let Some(object) = value.as_object() {
        for key in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !object.contains_key(key) {
                return Err(format!("{path}.{key}: required"));
            }
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (key, property) in properties {
                if let Some(v) = object.get(key) {
                    check_at(property, v, &format!("{path}.{key}"))?;
                }
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            check_at(items, item, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn is_type(kind: &str, value: &Value) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_subset_is_checked_and_the_first_fault_named() {
        let schema = json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "minLength": 2},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"enum": ["c", "f"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        }});
        assert_eq!(check(&schema, &json!({"city": "Paris", "days": 3, "unit": "c", "tags": ["a"]})), Ok(()));
        assert_eq!(check(&schema, &json!({})), Err("input.city: required".into()));
        assert_eq!(check(&schema, &json!({"city": 5})), Err("input.city: expected string, got number".into()));
        assert_eq!(check(&schema, &json!({"city": "P"})), Err("input.city: shorter than 2".into()));
        assert_eq!(
            check(&schema, &json!({"city": "Paris", "days": 1.5})),
            Err("input.days: expected integer, got number".into())
        );
        assert_eq!(check(&schema, &json!({"city": "Paris", "days": 9})), Err("input.days: above the maximum 7".into()));
        assert_eq!(
            check(&schema, &json!({"city": "Paris", "unit": "k"})),
            Err("input.unit: must be one of [\"c\",\"f\"]".into())
        );
        assert_eq!(
            check(&schema, &json!({"city": "Paris", "tags": [1]})),
            Err("input.tags[0]: expected string, got number".into())
        );
        assert_eq!(check(&schema, &json!("Paris")), Err("input: expected object, got string".into()));
    }
}
