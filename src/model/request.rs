//! The canonical request and its key, and the endpoint it is sent to.
//!
//! A request is what decides a reply: the endpoint's path (never its host,
//! so a cassette recorded against one server replays against another), the
//! body (model, messages, parameters, schema) and, for `--repeat`, which
//! sample it is. Its canonical form is that JSON with its keys sorted, and
//! its key the SHA-256 of those bytes: the same request always has the same
//! key, on any machine, and any change to the context block changes it.

use serde_json::{json, Map, Value};

use super::prompt::{Message, ANSWER_SCHEMA_NAME};
use super::Settings;

/// Where requests go: `base_url` + `/chat/completions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL requests are sent to.
    pub url: String,
    /// Its path, part of every request's key (`/v1/chat/completions`).
    pub path: String,
}

impl Endpoint {
    /// Reads a base URL (`http://localhost:11434/v1`). It must be `http` or
    /// `https`, name a host, and carry no credentials, query or fragment;
    /// the error says what to change.
    pub fn parse(base_url: &str) -> Result<Endpoint, String> {
        let trimmed = base_url.trim();
        let rest = trimmed
            .strip_prefix("http://")
            .or_else(|| trimmed.strip_prefix("https://"))
            .ok_or("it must start with http:// or https://")?;
        if rest.contains(['?', '#']) {
            return Err("it must have no query (`?`) or fragment (`#`): give the base URL that ends in /v1".into());
        }
        if rest.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("it must not contain spaces or control characters".into());
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(
                "it must not carry credentials (`user:key@`): put the key in the variable named by `api_key_env`"
                    .into(),
            );
        }
        if authority.is_empty() || authority.starts_with(':') {
            return Err("it names no host".into());
        }
        let path = format!("{}/chat/completions", path.trim_end_matches('/'));
        let scheme = &trimmed[..trimmed.len() - rest.len()];
        Ok(Endpoint { url: format!("{scheme}{authority}{path}"), path })
    }
}

impl Endpoint {
    /// Whether the URL is plain `http` to a host other than this machine
    /// (`localhost`, `127.0.0.0/8`, `[::1]`).
    pub fn is_plain_http_off_machine(&self) -> bool {
        let Some(rest) = self.url.strip_prefix("http://") else { return false };
        let authority = rest.split('/').next().unwrap_or("");
        let host = if let Some(v6) = authority.strip_prefix('[') {
            v6.split(']').next().unwrap_or("")
        } else {
            authority.rsplit_once(':').map_or(authority, |(h, _)| h)
        };
        let host = host.to_ascii_lowercase();
        let loopback = host == "localhost"
            || host.ends_with(".localhost")
            || host == "::1"
            || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback());
        !loopback
    }
}

/// One request of the model stage.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The endpoint's path.
    pub path: String,
    /// The JSON body sent.
    pub body: Value,
    /// Which of `--repeat` samples (0 for the first: a run without
    /// `--repeat` uses the same keys as the first sample of one with it).
    pub sample: usize,
}

impl ChatRequest {
    /// The request for these messages. `structured`: ask for the answer
    /// schema with `response_format` (when the settings allow it).
    pub fn new(settings: &Settings, path: &str, messages: &[Message], structured: bool, sample: usize) -> ChatRequest {
        let mut body = Map::new();
        body.insert("model".into(), Value::String(settings.model.clone()));
        body.insert(
            "messages".into(),
            Value::Array(messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect()),
        );
        body.insert("temperature".into(), json!(settings.temperature));
        if let Some(seed) = settings.seed {
            body.insert("seed".into(), json!(seed));
        }
        body.insert("max_tokens".into(), json!(settings.max_tokens));
        if structured && settings.structured {
            body.insert("response_format".into(), response_format());
        }
        ChatRequest { path: path.to_string(), body: Value::Object(body), sample }
    }

    /// `{"body": ..., "path": ..., "sample": n}` (no `sample` for the first).
    pub fn canonical(&self) -> Value {
        let mut map = Map::new();
        map.insert("path".into(), Value::String(self.path.clone()));
        map.insert("body".into(), self.body.clone());
        if self.sample > 0 {
            map.insert("sample".into(), json!(self.sample));
        }
        sorted(Value::Object(map))
    }

    /// Reads a canonical request back (from a cassette).
    pub fn from_canonical(value: &Value) -> Result<ChatRequest, String> {
        let Value::Object(map) = value else { return Err("`request` is not an object".into()) };
        if let Some(other) = map.keys().find(|k| !matches!(k.as_str(), "path" | "body" | "sample")) {
            return Err(format!("`request` has an unknown key `{other}`"));
        }
        let path = map.get("path").and_then(Value::as_str).ok_or("`request.path` is not a string")?;
        let body = map.get("body").filter(|b| b.is_object()).ok_or("`request.body` is not an object")?;
        let sample = match map.get("sample") {
            None => 0,
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or("`request.sample` is not a whole number above 0")?,
        };
        Ok(ChatRequest { path: path.to_string(), body: body.clone(), sample })
    }

    /// The SHA-256 of the canonical request, lower-case hex.
    pub fn key(&self) -> String {
        let bytes = serde_json::to_vec(&self.canonical()).expect("a request always serialises");
        crate::digest::sha256_hex(&bytes)
    }

    /// The key of the same request as a first sample: what `cassettes
    /// prune` compares, so the samples of `--repeat` are not pruned.
    pub fn base_key(&self) -> String {
        ChatRequest { sample: 0, ..self.clone() }.key()
    }

    /// The bytes sent.
    pub fn body_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.body).expect("a request always serialises")
    }

    /// The model the body asks for.
    pub fn model(&self) -> &str {
        self.body.get("model").and_then(Value::as_str).unwrap_or("")
    }
}

/// `response_format` asking for the structured answer (scenarios.md,
/// Responses): every field required and no other, as strict mode wants.
pub fn response_format() -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": ANSWER_SCHEMA_NAME,
            "strict": true,
            "schema": {
                "type": "object",
                "properties": {
                    "refused": {"type": "boolean"},
                    "files_changed": {"type": "array", "items": {"type": "string"}},
                    "dependencies_added": {"type": "array", "items": {"type": "string"}},
                    "text": {"type": "string"}
                },
                "required": ["refused", "files_changed", "dependencies_added", "text"],
                "additionalProperties": false
            }
        }
    })
}

/// A JSON value with every object's keys in sorted order, whatever order
/// the map type keeps.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::prompt::Message;
    use crate::model::{Mode, Settings};

    pub(crate) fn settings() -> Settings {
        Settings {
            endpoint: Endpoint::parse("http://127.0.0.1:9/v1").unwrap(),
            model: "m".into(),
            api_key_env: None,
            key_refused: None,
            temperature: 0.0,
            seed: Some(7),
            max_tokens: 64,
            timeout: std::time::Duration::from_secs(5),
            concurrency: 2,
            retries: 0,
            structured: true,
            cassettes: "cassettes".into(),
            prices: None,
            mode: Mode::Replay,
            repeat: 1,
        }
    }

    #[test]
    fn endpoints_take_the_path_and_refuse_what_would_leak_or_mislead() {
        let e = Endpoint::parse("http://localhost:11434/v1/").unwrap();
        assert_eq!(
            (e.url.as_str(), e.path.as_str()),
            ("http://localhost:11434/v1/chat/completions", "/v1/chat/completions")
        );
        let e = Endpoint::parse("https://api.openai.com").unwrap();
        assert_eq!(e.path, "/chat/completions");
        for (bad, why) in [
            ("localhost:11434/v1", "http://"),
            ("https://user:sk-secret@host/v1", "credentials"),
            ("https://host/v1?api-version=1", "query"),
            ("http:///v1", "no host"),
            ("http://ho st/v1", "spaces"),
        ] {
            let e = Endpoint::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(!e.contains("sk-secret"), "{e}");
        }
    }

    #[test]
    fn the_key_is_the_hash_of_the_sorted_canonical_request_and_reads_back() {
        let s = settings();
        let messages = [Message::system("block"), Message::user("task")];
        let r = ChatRequest::new(&s, "/v1/chat/completions", &messages, true, 0);
        let canonical = serde_json::to_string(&r.canonical()).unwrap();
        assert!(
            canonical.starts_with(r#"{"body":{"max_tokens":64,"messages":[{"content":"block","role":"system"}"#),
            "{canonical}"
        );
        assert!(canonical.ends_with(r#""seed":7,"temperature":0.0},"path":"/v1/chat/completions"}"#), "{canonical}");
        assert_eq!(r.key().len(), 64);
        assert_eq!(ChatRequest::from_canonical(&r.canonical()).unwrap(), r);
        // Another sample, another key; the same base key.
        let second = ChatRequest { sample: 1, ..r.clone() };
        assert_ne!(second.key(), r.key());
        assert_eq!(second.base_key(), r.key());
        assert_eq!(ChatRequest::from_canonical(&second.canonical()).unwrap(), second);
        // Every part of the request is in the key.
        let other_block =
            ChatRequest::new(&s, "/v1/chat/completions", &[Message::system("block!"), Message::user("task")], true, 0);
        assert_ne!(other_block.key(), r.key());
        let text = ChatRequest::new(&s, "/v1/chat/completions", &messages, false, 0);
        assert_ne!(text.key(), r.key());
        assert!(text.body.get("response_format").is_none());
        let unstructured = Settings { structured: false, ..settings() };
        assert!(ChatRequest::new(&unstructured, "/x", &messages, true, 0).body.get("response_format").is_none());
        let other_path = ChatRequest::new(&s, "/openai/v1/chat/completions", &messages, true, 0);
        assert_ne!(other_path.key(), r.key());
    }

    #[test]
    fn a_canonical_request_from_a_file_is_checked() {
        for (bad, why) in [
            (json!([]), "not an object"),
            (json!({"path": 1, "body": {}}), "request.path"),
            (json!({"path": "/p", "body": []}), "request.body"),
            (json!({"path": "/p", "body": {}, "sample": 0}), "request.sample"),
            (json!({"path": "/p", "body": {}, "extra": 1}), "unknown key `extra`"),
        ] {
            let e = ChatRequest::from_canonical(&bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
