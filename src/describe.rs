/*!
How input problems are put into words, in one place, so that every message
names a type the same way ("a list", never "an array" in one message and "a
list" in the next) and quotes a `serde_json` error without the position it
appends (the callers place the error themselves, as `path:line:column`).

A leaf: it depends on nothing in the crate.
*/

/// The type of a JSON value as a message names it: "null", "a boolean",
/// "a number", "a string", "a list", "an object".
pub(crate) fn json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A `serde_json` error's message without the " at line L column C" that
/// `serde_json` appends: callers report the position in their own form.
pub(crate) fn json_error(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rsplit_once(" at line ") {
        Some((head, tail)) if tail.contains(" column ") => head.to_string(),
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        let v: serde_json::Value = serde_json::from_str(r#"[null, true, 1, "s", [], {}]"#).unwrap();
        let names: Vec<_> = v.as_array().unwrap().iter().map(json_type).collect();
        assert_eq!(names, ["null", "a boolean", "a number", "a string", "a list", "an object"]);
    }

    #[test]
    fn error_without_position() {
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": }").unwrap_err();
        assert_eq!(json_error(&e), "expected value");
        assert!(e.to_string().contains(" at line 1 column"), "serde_json still appends it: {e}");
    }
}
