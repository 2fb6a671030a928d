//! JSON objects that keep their fields in the order written, so simulated frames read like the real ones
//! (`{"id":…,"object":"chat.completion.chunk",…}`, `{"type":"message_start",…}`) rather than in the
//! alphabetical order of `serde_json::Value` (turning on serde_json's `preserve_order` here would change
//! the `chatstream` crate too wherever the workspace is built together).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

#[derive(Clone, Debug)]
pub enum Json {
    Object(Vec<(&'static str, Json)>),
    Array(Vec<Json>),
    Value(Value),
}

impl<T: Into<Value>> From<T> for Json {
    fn from(value: T) -> Json {
        Json::Value(value.into())
    }
}

impl Json {
    /// The value of field `key`, for an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Value(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Adds a field to an object (after the others) or, with `at`, at that position.
    pub fn insert(&mut self, at: Option<usize>, key: &'static str, value: impl Into<Json>) {
        if let Json::Object(fields) = self {
            let at = at.unwrap_or(fields.len()).min(fields.len());
            fields.insert(at, (key, value.into()));
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Value(value) => value.serialize(serializer),
        }
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Serializing plain JSON values into a String cannot fail.
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

/// `ordered!({"type": "ping", "index": (i + 1), "delta": {"text": piece}})`: like `serde_json::json!`, but
/// fields keep their written order. A value that is more than one token goes in parentheses.
macro_rules! ordered {
    ({ $($key:literal : $value:tt),* $(,)? }) => {
        $crate::ordered::Json::Object(vec![$(($key, ordered!($value))),*])
    };
    ([ $($value:tt),* $(,)? ]) => {
        $crate::ordered::Json::Array(vec![$(ordered!($value)),*])
    };
    (null) => {
        $crate::ordered::Json::Value(serde_json::Value::Null)
    };
    ($value:expr) => {
        $crate::ordered::Json::from($value)
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_keep_their_written_order() {
        let id = "x";
        let json = ordered!({"type": "b", "id": id, "a": [1, null, {"z": 1, "y": (1 + 1)}], "empty": {}});
        assert_eq!(json.to_string(), r#"{"type":"b","id":"x","a":[1,null,{"z":1,"y":2}],"empty":{}}"#);
    }
}
