//! Responses: reading the file a scenario names and parsing a structured
//! (`.json`) answer, every problem in one line (scenarios.md §3). The file
//! is read as the loader reads suite files (`scenarios::read_inside`): only
//! inside the canonical suite root, only a regular file, at most the cap the
//! loader put in the [`ResponseRef`], through the folder it resolved when
//! it can vouch for the file.

use serde::Serialize;

use crate::describe::{json_error, json_type};
use crate::scenarios::{Cap, Refusal, ResponseFormat, ResponseRef};

/// A `.json` response (scenarios.md §3); every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StructuredResponse {
    pub refused: bool,
    pub files_changed: Vec<String>,
    pub dependencies_added: Vec<String>,
    pub text: String,
}

/// A response as read from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    Structured(StructuredResponse),
    /// A text response (native text, or a Mneme `.txt` side).
    Text(String),
}

impl Response {
    /// The text the text assertions look at.
    pub fn text(&self) -> &str {
        match self {
            Response::Structured(s) => &s.text,
            Response::Text(t) => t,
        }
    }

    pub fn refused(&self) -> bool {
        matches!(self, Response::Structured(s) if s.refused)
    }
}

const STRUCTURED_FIELDS: &str = "refused, files_changed, dependencies_added, text";

/// Parses a structured response. Invalid JSON, a non-object, a wrong type
/// or an unknown field is an error (one line, every problem listed). `null`
/// is read as the field's default.
pub fn parse_structured(src: &str) -> Result<StructuredResponse, String> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let value: serde_json::Value = serde_json::from_str(src).map_err(|e| {
        // serde_json says column 0 when the error is at the very start of a
        // line (typically the end of the file); columns here are 1-based.
        format!("invalid JSON at line {}, column {}: {}", e.line(), e.column().max(1), json_error(&e))
    })?;
    let serde_json::Value::Object(map) = value else {
        return Err(format!(
            "a structured response must be a JSON object with {STRUCTURED_FIELDS}; found {}",
            json_kind(&value)
        ));
    };
    let mut out = StructuredResponse::default();
    let mut problems = Vec::new();
    for (key, v) in &map {
        if v.is_null() {
            continue;
        }
        match key.as_str() {
            "refused" => match v.as_bool() {
                Some(b) => out.refused = b,
                None => problems.push(format!("`refused` must be true or false, found {}", json_kind(v))),
            },
            "text" => match v.as_str() {
                Some(t) => out.text = t.to_string(),
                None => problems.push(format!("`text` must be a string, found {}", json_kind(v))),
            },
            "files_changed" | "dependencies_added" => {
                let list = match v.as_array() {
                    Some(items) if items.iter().all(serde_json::Value::is_string) => {
                        items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()
                    }
                    Some(items) => {
                        let bad = items.iter().find(|i| !i.is_string()).map(json_kind);
                        problems.push(format!(
                            "`{key}` must be a list of strings, found an entry that is {}",
                            bad.unwrap_or_default()
                        ));
                        continue;
                    }
                    None => {
                        problems.push(format!("`{key}` must be a list of strings, found {}", json_kind(v)));
                        continue;
                    }
                };
                if key == "files_changed" {
                    out.files_changed = list;
                } else {
                    out.dependencies_added = list;
                }
            }
            other => problems.push(format!("unknown field `{other}` (the fields are {STRUCTURED_FIELDS})")),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("; "))
    }
}

/// Parses a Mneme `.json` answer as Mneme 0.10.0 does (profile `mneme`):
/// an object whose `refused` is a boolean and whose `files_changed` and
/// `dependencies_added` are lists of strings, each optional (`null` is a
/// wrong type, not an absent field); any other key is ignored (`text`
/// included); a byte-order mark is invalid JSON, as for Python's `json`.
pub fn parse_mneme_structured(src: &str) -> Result<StructuredResponse, String> {
    let value: serde_json::Value = serde_json::from_str(src)
        .map_err(|e| format!("invalid JSON at line {}, column {}: {}", e.line(), e.column().max(1), json_error(&e)))?;
    let serde_json::Value::Object(map) = value else {
        return Err(format!("a structured response must be a JSON object; found {}", json_kind(&value)));
    };
    let mut out = StructuredResponse::default();
    if let Some(v) = map.get("refused") {
        out.refused = v.as_bool().ok_or_else(|| format!("`refused` must be true or false, found {}", json_kind(v)))?;
    }
    for (key, slot) in [("files_changed", &mut out.files_changed), ("dependencies_added", &mut out.dependencies_added)]
    {
        let Some(v) = map.get(key) else { continue };
        match v.as_array() {
            Some(items) if items.iter().all(serde_json::Value::is_string) => {
                *slot = items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect();
            }
            _ => return Err(format!("`{key}` must be a list of strings, found {}", json_kind(v))),
        }
    }
    Ok(out)
}

/// A value as these messages name it: its type, but a boolean or a number
/// as itself (`true`, the number 1), which says more.
fn json_kind(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Bool(b) => format!("`{b}`"),
        serde_json::Value::Number(n) => format!("the number {n}"),
        other => json_type(other).to_string(),
    }
}

/// Reads a response named by a scenario: only if it resolves inside the
/// suite root (symlinks followed), is a regular file and holds at most its
/// `max_bytes`. The error is the reason the scenario is MALFORMED (one
/// line, names the file, and a symlink that leads outside with its target).
pub fn read_response(response: &ResponseRef) -> Result<Response, String> {
    let (declared, path, format, root, max_bytes, digest, folder) = match response {
        ResponseRef::Unusable { reason, .. } => return Err(reason.clone()),
        ResponseRef::Answer { declared, format, text } => return parse_answer(declared, *format, text.clone()),
        ResponseRef::Resolved { declared, path, format, canonical_root, max_bytes, digest, folder } => {
            (declared, path, *format, canonical_root, *max_bytes, digest, folder)
        }
    };
    let bytes = folder.read(root, path, max_bytes).map_err(|refusal| match refusal {
        Refusal::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
            format!("`{declared}` does not exist (looked for {}); create it or fix the path", path.display())
        }
        Refusal::Io(e) => format!("cannot read `{declared}` ({}): {e}", path.display()),
        other => other.reason(&format!("`{declared}`"), Cap::Response),
    })?;
    // For the suite's fingerprint, which then need not read the file again.
    digest.set(crate::digest::sha256_hex(&bytes));
    let text = String::from_utf8(bytes).map_err(|_| format!("`{declared}` is not valid UTF-8; save it as UTF-8"))?;
    parse_answer(declared, format, text)
}

/// A response's text, read as its format.
fn parse_answer(declared: &str, format: ResponseFormat, text: String) -> Result<Response, String> {
    match format {
        ResponseFormat::Structured => {
            parse_structured(&text).map(Response::Structured).map_err(|e| format!("`{declared}`: {e}"))
        }
        ResponseFormat::MnemeStructured => {
            parse_mneme_structured(&text).map(Response::Structured).map_err(|e| format!("`{declared}`: {e}"))
        }
        ResponseFormat::Text | ResponseFormat::MnemeText => {
            Ok(Response::Text(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()))
        }
    }
}
