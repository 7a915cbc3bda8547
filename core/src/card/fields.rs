//! Looking up a card's JSON fields: the camelCase name (JSON) or the snake_case one
//! (ProtoJSON's original field names, which some servers send), `null` counting as absent.

use serde_json::{Map, Value};

/// The value of field `camel` (or `snake`) of `obj`, `None` when absent or `null`.
pub(crate) fn field<'v>(
    obj: &'v Map<String, Value>,
    camel: &str,
    snake: &str,
) -> Option<&'v Value> {
    obj.get(camel)
        .or_else(|| obj.get(snake))
        .filter(|v| !v.is_null())
}

/// The field as a string, `None` when absent, `null` or not a string.
pub(crate) fn str_field<'v>(
    obj: &'v Map<String, Value>,
    camel: &str,
    snake: &str,
) -> Option<&'v str> {
    field(obj, camel, snake).and_then(Value::as_str)
}
