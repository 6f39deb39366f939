//! A chat completion, read from the server's bytes: the first choice's
//! message, the usage, and the model's own name and `system_fingerprint`.
//! Everything else the server sends is ignored; nothing is trusted: a body
//! that is not a completion is an error that says what it is instead.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::describe::{json_error, json_type};

/// What a reply said, as kept in a cassette.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The first choice's `message.content` (`null` for a refusal or a
    /// tool call).
    pub content: Option<String>,
    /// The first choice's `message.refusal` (structured outputs).
    #[serde(default)]
    pub refusal: Option<String>,
    /// `stop`, `length`, ...
    pub finish_reason: Option<String>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// The server's configuration fingerprint, when it gives one.
    pub system_fingerprint: Option<String>,
}

/// Tokens the request cost, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
}

/// Reads a chat completion (`{"choices": [{"message": {...}}], "usage": ...}`).
/// The error is one line.
pub fn parse_completion(body: &[u8]) -> Result<(Reply, Usage), String> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| format!("invalid JSON at line {}, column {}: {}", e.line(), e.column().max(1), json_error(&e)))?;
    let Value::Object(map) = &value else {
        return Err(format!("a completion is a JSON object, found {}", json_type(&value)));
    };
    let choice = match map.get("choices") {
        Some(Value::Array(choices)) => choices.first().ok_or("`choices` is empty")?,
        Some(other) => return Err(format!("`choices` must be a list, found {}", json_type(other))),
        None => return Err("no `choices`".into()),
    };
    let message = choice.get("message").filter(|m| m.is_object()).ok_or("`choices[0].message` is not an object")?;
    let text = |v: Option<&Value>, name: &str| -> Result<Option<String>, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{name}` must be a string, found {}", json_type(other))),
        }
    };
    let count = |name: &str| -> Option<u64> { map.get("usage").and_then(|u| u.get(name)).and_then(Value::as_u64) };
    let reply = Reply {
        content: text(message.get("content"), "choices[0].message.content")?,
        refusal: text(message.get("refusal"), "choices[0].message.refusal")?,
        finish_reason: text(choice.get("finish_reason"), "choices[0].finish_reason")?,
        model: text(map.get("model"), "model")?,
        system_fingerprint: text(map.get("system_fingerprint"), "system_fingerprint")?,
    };
    Ok((reply, Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") }))
}

/// The error message a server put in an error reply (`{"error": {"message":
/// ...}}`, or `{"error": "..."}`), if any.
pub fn error_message(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let error = value.get("error")?;
    error.get("message").and_then(Value::as_str).or_else(|| error.as_str()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_gives_its_first_message_usage_and_fingerprint() {
        let body =
            br#"{"id":"x","object":"chat.completion","model":"gpt-4.1-mini-2025-04-14","system_fingerprint":"fp_1",
            "choices":[{"index":0,"message":{"role":"assistant","content":"hi","refusal":null},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#;
        let (reply, usage) = parse_completion(body).unwrap();
        assert_eq!(reply.content.as_deref(), Some("hi"));
        assert_eq!(reply.model.as_deref(), Some("gpt-4.1-mini-2025-04-14"));
        assert_eq!(reply.system_fingerprint.as_deref(), Some("fp_1"));
        assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
        assert_eq!(usage, Usage { prompt_tokens: Some(12), completion_tokens: Some(3) });
        let (bare, usage) = parse_completion(br#"{"choices":[{"message":{"content":null}}]}"#).unwrap();
        assert_eq!((bare, usage), (Reply::default(), Usage::default()));
    }

    #[test]
    fn what_is_not_a_completion_says_what_it_is() {
        for (body, why) in [
            (&b"{\"choices\": [1,"[..], "invalid JSON at line 1"),
            (b"[]", "found a list"),
            (b"{}", "no `choices`"),
            (b"{\"choices\": []}", "`choices` is empty"),
            (b"{\"choices\": {}}", "must be a list, found an object"),
            (b"{\"choices\": [{}]}", "message` is not an object"),
            (b"{\"choices\": [{\"message\": {\"content\": 3}}]}", "content` must be a string, found a number"),
        ] {
            let e = parse_completion(body).unwrap_err();
            assert!(e.contains(why), "{}: {e}", String::from_utf8_lossy(body));
        }
        assert_eq!(error_message(br#"{"error":{"message":"bad key"}}"#).as_deref(), Some("bad key"));
        assert_eq!(error_message(br#"{"error":"nope"}"#).as_deref(), Some("nope"));
        assert_eq!(error_message(b"<html>"), None);
    }
}
