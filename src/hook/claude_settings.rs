//! Installing the hook in a Claude Code settings file
//! (`.claude/settings.json`), keeping everything already there in its
//! order: the file is read as JSON whose objects keep their keys in the
//! order written, the two hook entries are appended where they are
//! missing, and it is written back with two-space indentation.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The command the settings run.
pub const COMMAND: &str = "mneme-gate hook claude";

/// The tools whose edits the hook answers, as a `PreToolUse` matcher.
pub const MATCHER: &str = "Edit|Write|MultiEdit|NotebookEdit";

/// JSON whose objects keep their keys in order.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "a list",
            Json::Object(_) => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(n).map(Json::Number).ok_or_else(|| E::custom("a number out of range"))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Json, E> {
                Ok(Json::String(s.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry()? {
                    entries.push((k, v));
                }
                Ok(Json::Object(entries))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

fn object(entries: &[(&str, Json)]) -> Json {
    Json::Object(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

fn string(s: &str) -> Json {
    Json::String(s.to_string())
}

/// Whether a list of Claude Code matcher groups already runs `command`.
fn runs(groups: &[Json], command: &str) -> bool {
    groups.iter().any(|group| match group.get("hooks") {
        Some(Json::Array(hooks)) => {
            hooks.iter().any(|h| matches!(h.get("command"), Some(Json::String(c)) if c.trim() == command))
        }
        _ => false,
    })
}

/// The settings file with the hook installed: `existing` (the file's text,
/// or `None` when there is none) with a `UserPromptSubmit` group and a
/// `PreToolUse` group for [`MATCHER`] running [`COMMAND`] appended where
/// they are missing. `Ok(None)`: both are there already. An error says
/// what in the file prevents it.
pub fn install(existing: Option<&str>) -> Result<Option<String>, String> {
    let mut settings = match existing {
        None => Json::Object(Vec::new()),
        Some(text) if text.trim().is_empty() => Json::Object(Vec::new()),
        Some(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let value = Json::deserialize(&mut de).and_then(|v| de.end().map(|()| v)).map_err(|e| {
                format!(
                    "is not valid JSON (line {}, column {}): {}",
                    e.line(),
                    e.column(),
                    crate::describe::json_error(&e)
                )
            })?;
            match value {
                Json::Object(_) => value,
                other => return Err(format!("is {}, not a JSON object", other.kind())),
            }
        }
    };
    if settings.get("hooks").is_none() {
        if let Json::Object(entries) = &mut settings {
            entries.push(("hooks".into(), Json::Object(Vec::new())));
        }
    }
    let hooks = settings.get_mut("hooks").expect("added above");
    if !matches!(hooks, Json::Object(_)) {
        return Err(format!("has `hooks` as {}, not an object", hooks.kind()));
    }
    let mut added = false;
    for (event, matcher) in [("UserPromptSubmit", None), ("PreToolUse", Some(MATCHER))] {
        if hooks.get(event).is_none() {
            if let Json::Object(entries) = hooks {
                entries.push((event.into(), Json::Array(Vec::new())));
            }
        }
        let Some(Json::Array(groups)) = hooks.get_mut(event) else {
            let kind = hooks.get(event).map_or("nothing", Json::kind);
            return Err(format!("has `hooks.{event}` as {kind}, not a list"));
        };
        if runs(groups, COMMAND) {
            continue;
        }
        let command = object(&[("type", string("command")), ("command", string(COMMAND))]);
        let mut group = Vec::new();
        if let Some(m) = matcher {
            group.push(("matcher", string(m)));
        }
        group.push(("hooks", Json::Array(vec![command])));
        groups.push(object(&group));
        added = true;
    }
    if !added {
        return Ok(None);
    }
    let mut text = serde_json::to_string_pretty(&settings).expect("JSON serialises");
    text.push('\n');
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_both_hooks() {
        let text = install(None).unwrap().unwrap();
        insta::assert_snapshot!("claude_settings_new", text);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], MATCHER);
        assert_eq!(v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"], COMMAND);
        assert_eq!(install(Some(&text)).unwrap(), None, "installing twice changes nothing");
    }

    #[test]
    fn what_is_there_stays_there_in_its_order() {
        let existing = r#"{
  "permissions": {"allow": ["Bash(npm test)"], "deny": []},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 1.5}]}]
  },
  "env": {"Z": "1", "A": "2"}
}"#;
        let text = install(Some(existing)).unwrap().unwrap();
        insta::assert_snapshot!("claude_settings_merged", text);
        let keys: Vec<usize> =
            ["permissions", "hooks", "env", "\"Z\"", "\"A\""].iter().map(|k| text.find(k).unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "the order is kept: {text}");
        // Only the missing group is added when one is there.
        let half = existing.replace("./check.sh", COMMAND).replace("\"Bash\"", &format!("\"{MATCHER}\""));
        let text = install(Some(&half)).unwrap().unwrap();
        assert_eq!(text.matches(COMMAND).count(), 2, "{text}");
    }

    #[test]
    fn a_file_that_is_not_settings_is_refused() {
        assert!(install(Some("{\"hooks\": ")).unwrap_err().starts_with("is not valid JSON (line 1, column 10)"));
        assert_eq!(install(Some("[]")).unwrap_err(), "is a list, not a JSON object");
        assert_eq!(install(Some("{\"hooks\": []}")).unwrap_err(), "has `hooks` as a list, not an object");
        assert_eq!(
            install(Some("{\"hooks\": {\"PreToolUse\": {}}}")).unwrap_err(),
            "has `hooks.PreToolUse` as an object, not a list"
        );
        assert!(install(Some("{} {}")).is_err(), "one JSON value");
        assert_eq!(
            install(Some("  \n")).unwrap().map(|t| t.contains(COMMAND)),
            Some(true),
            "an empty file is no settings yet"
        );
    }
}
