//! The YAML front matter of a Markdown source file (`---` lines around
//! `key: value` lines at the top), read leniently, with the place of every
//! value.
//!
//! Why lenient: Cursor, Copilot and Claude Code read their front matter with
//! forgiving parsers, and real rule files rely on it. Two mistakes are common
//! enough that a strict YAML reader would refuse a large share of real files
//! (about four in five of the `.mdc` files of a public collection):
//!
//! - a value that starts with `*`, such as `globs: **/*.ts` or `- *.md`, which
//!   YAML reads as an alias (`*name`) and refuses;
//! - a value that holds `: `, such as `description: Go: idiomatic rules`, which
//!   YAML reads as a second mapping on one line and refuses.
//!
//! Both are repaired here, line by line, before YAML reads the text: such a
//! plain value is quoted as it is written (`'**/*.ts'`), and nothing else is
//! changed, so every line keeps its number. A third habit, a comma-separated
//! string where a list is meant (`globs: src/**, test/**`), is valid YAML and
//! is split by [`split_list`] where a list is meant.
//!
//! Whatever still cannot be read is one error at its line (of the file, not of
//! the front matter); the rest of the file is read without the front matter.
//! It deliberately knows nothing of what the keys mean: `adr` and `rules` read
//! them.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A front matter value, whatever its YAML type (numbers and dates are
/// kept as written, as text).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Text(String),
    List(Vec<Value>),
    Map,
}

impl Value {
    /// A YAML type in words, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "nothing",
            Value::Bool(_) => "true or false",
            Value::Text(_) => "a string",
            Value::List(_) => "a list",
            Value::Map => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Text(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            out.push(v);
        }
        Ok(Value::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        while map.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
        Ok(Value::Map)
    }
}

/// The keys the sources read; any other key is read past.
#[derive(Debug, Default, serde::Deserialize)]
struct Keys {
    title: Option<Spanned<Value>>,
    description: Option<Spanned<Value>>,
    id: Option<Spanned<Value>>,
    summary: Option<Spanned<Value>>,
    status: Option<Spanned<Value>>,
    tags: Option<Spanned<Value>>,
    globs: Option<Spanned<Value>>,
    #[serde(rename = "alwaysApply")]
    always_apply: Option<Spanned<Value>>,
    #[serde(rename = "applyTo")]
    apply_to: Option<Spanned<Value>>,
    paths: Option<Spanned<Value>>,
    #[serde(rename = "superseded-by", alias = "superseded_by", alias = "supersededBy")]
    superseded_by: Option<Spanned<Value>>,
}

/// One front matter value and the line of the file it is on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    pub value: Value,
    pub line: usize,
}

/// The front matter of a file, as the sources read it.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct FrontMatter {
    pub title: Option<Field>,
    pub description: Option<Field>,
    /// An ADR's own id (`id: 0037-reject-message-on-error-handler`).
    pub id: Option<Field>,
    /// An ADR's one-paragraph summary.
    pub summary: Option<Field>,
    pub status: Option<Field>,
    pub tags: Option<Field>,
    pub globs: Option<Field>,
    pub always_apply: Option<Field>,
    pub apply_to: Option<Field>,
    pub paths: Option<Field>,
    pub superseded_by: Option<Field>,
}

/// A problem with the front matter, at a line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A file split into its front matter and its body.
#[derive(Debug)]
pub(crate) struct Split<'t> {
    /// The front matter read, empty when there is none or it is unreadable.
    pub front: FrontMatter,
    /// Why the front matter could not be read.
    pub problem: Option<Problem>,
    /// The byte offset of the body in the file, and the body.
    pub body_start: usize,
    pub body: &'t str,
}

/// The largest front matter read, in bytes: front matter is a few lines.
const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// Splits `text` (a whole file) into front matter and body, and reads the
/// front matter. A file without front matter is all body.
pub(crate) fn split(text: &str) -> Split<'_> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let whole = |problem: Option<Problem>| Split {
        front: FrontMatter::default(),
        problem,
        body_start: bom,
        body: &text[bom..],
    };
    let rest = &text[bom..];
    let Some(first_end) = line_end(rest, 0) else { return whole(None) };
    if rest[..first_end].trim_end() != "---" {
        return whole(None);
    }
    // The closing `---` (or `...`), on a line of its own.
    let mut at = next_line(rest, first_end);
    let close = loop {
        if at >= rest.len() {
            break None;
        }
        let end = line_end(rest, at).unwrap_or(rest.len());
        let l = rest[at..end].trim_end();
        if l == "---" || l == "..." {
            break Some((at, next_line(rest, end)));
        }
        at = next_line(rest, end);
    };
    let Some((yaml_end, body_at)) = close else {
        let problem = Problem {
            line: 1,
            column: 1,
            message: "the front matter opened here (`---`) is never closed: end it with a line `---`".into(),
        };
        let body_at = next_line(rest, first_end);
        return Split {
            front: FrontMatter::default(),
            problem: Some(problem),
            body_start: bom + body_at,
            body: &rest[body_at..],
        };
    };
    let yaml = &rest[next_line(rest, first_end)..yaml_end];
    let (front, problem) = match read(yaml) {
        Ok(front) => (front, None),
        Err(mut p) => {
            // On a line of the front matter, whatever YAML counted.
            let last = 1 + yaml.matches('\n').count();
            p.line = p.line.clamp(2, last.max(2));
            (FrontMatter::default(), Some(p))
        }
    };
    Split { front, problem, body_start: bom + body_at, body: &rest[body_at..] }
}

/// The end of the line that starts at `at` (before its `\n`), or `None` at
/// the end of the text.
fn line_end(text: &str, at: usize) -> Option<usize> {
    if at >= text.len() {
        return None;
    }
    Some(text[at..].find('\n').map_or(text.len(), |i| at + i))
}

/// The start of the line after the one that ends at `end`.
fn next_line(text: &str, end: usize) -> usize {
    (end + 1).min(text.len())
}

/// Reads the YAML between the `---` lines (the first of its lines is line
/// 2 of the file).
fn read(yaml: &str) -> Result<FrontMatter, Problem> {
    const FIRST_LINE: usize = 2;
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Err(Problem {
            line: FIRST_LINE,
            column: 1,
            message: format!(
                "the front matter is {} bytes long, more than the {MAX_FRONT_MATTER_BYTES} read: front matter is a few `key: value` lines",
                yaml.len()
            ),
        });
    }
    if yaml.trim().is_empty() {
        return Ok(FrontMatter::default());
    }
    let repaired = repair(yaml);
    let keys: Spanned<Value> = serde_saphyr::from_str(&repaired).map_err(|e| {
        let loc = e.location();
        let line = loc.map(|l| l.line() as usize).filter(|&l| l > 0).unwrap_or(1);
        let column = loc.map(|l| l.column() as usize).filter(|&c| c > 0).unwrap_or(1);
        Problem {
            line: FIRST_LINE + line - 1,
            column,
            message: format!("the front matter is not valid YAML: {}", yaml_words(&e)),
        }
    })?;
    if !matches!(keys.value, Value::Map | Value::Null) {
        return Err(Problem {
            line: FIRST_LINE + (keys.referenced.line() as usize).max(1) - 1,
            column: 1,
            message: format!("the front matter must be `key: value` lines, found {}", keys.value.type_name()),
        });
    }
    let keys: Keys = serde_saphyr::from_str(&repaired).map_err(|e| {
        let loc = e.location();
        let line = loc.map(|l| l.line() as usize).filter(|&l| l > 0).unwrap_or(1);
        Problem {
            line: FIRST_LINE + line - 1,
            column: 1,
            message: format!("the front matter cannot be read: {}", yaml_words(&e)),
        }
    })?;
    let field = |v: Option<Spanned<Value>>| {
        v.map(|s| Field { value: s.value, line: FIRST_LINE + (s.referenced.line() as usize).max(1) - 1 })
    };
    Ok(FrontMatter {
        title: field(keys.title),
        description: field(keys.description),
        id: field(keys.id),
        summary: field(keys.summary),
        status: field(keys.status),
        tags: field(keys.tags),
        globs: field(keys.globs),
        always_apply: field(keys.always_apply),
        apply_to: field(keys.apply_to),
        paths: field(keys.paths),
        superseded_by: field(keys.superseded_by),
    })
}

/// serde-saphyr's message, first line only, without its own place (given
/// apart, as a line of the file).
fn yaml_words(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let mut first = text.lines().next().unwrap_or("invalid YAML").trim();
    if let Some(i) = first.rfind(" at line ") {
        if first[i..].contains(", column ") {
            first = &first[..i];
        }
    }
    // `error: line 2 column 1: message`
    if let Some(rest) = first.strip_prefix("error: line ") {
        if let Some((place, message)) = rest.split_once(": ") {
            if place.split(" column ").all(|n| n.trim().chars().all(|c| c.is_ascii_digit())) {
                first = message;
            }
        }
    }
    first.to_string()
}

/// The lenient repairs (see the module): every line keeps its number. A
/// carriage return that does not end a line is a space: YAML would count it
/// as a line break, and the places it gives would not be the file's lines.
pub(crate) fn repair(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 16);
    for (i, line) in yaml.split('\n').enumerate() {
        let line = match line.strip_suffix('\r') {
            Some(l) => format!("{}\r", l.replace('\r', " ")),
            None => line.replace('\r', " "),
        };
        let line = line.as_str();
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&repair_line(line));
    }
    out
}

/// One line: `key: value` or `- value`, with a plain value that YAML would
/// refuse quoted as written.
fn repair_line(line: &str) -> String {
    let (cr, line) = match line.strip_suffix('\r') {
        Some(l) => ("\r", l),
        None => ("", line),
    };
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    // `- value`: a list element.
    if let Some(value) = body.strip_prefix("- ") {
        let value_at = indent + 2 + (value.len() - value.trim_start().len());
        let value = value.trim();
        if value.starts_with('*') {
            return format!("{}{}{cr}", &line[..value_at], quote(value));
        }
        return format!("{line}{cr}");
    }
    // `key: value` at the top level, where the key is a plain word.
    let Some(colon) = body.find(": ") else { return format!("{line}{cr}") };
    let key = &body[..colon];
    if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return format!("{line}{cr}");
    }
    let value_part = &body[colon + 2..];
    let value_at = indent + colon + 2 + (value_part.len() - value_part.trim_start().len());
    let value = value_part.trim();
    if value.is_empty() {
        return format!("{line}{cr}");
    }
    let first = value.chars().next().unwrap_or(' ');
    let glob_key = matches!(key, "globs" | "applyTo" | "paths");
    // `*` (an alias), and the indicators YAML reserves (`` ` `` and `@`).
    let alias = matches!(first, '*' | '`' | '@');
    // `{src,lib}/**` as a glob, and `[link](url) text` as text: a bracket
    // that closes before the end of the value is not a flow collection.
    let brace_glob = (glob_key && first == '{') || (matches!(first, '[' | '{') && closes_early(value));
    // A plain scalar (not quoted, not a flow collection, a block scalar, an
    // anchor, a tag or a comment) that holds `: ` (or ends with `:`).
    let plain = !matches!(first, '"' | '\'' | '[' | '{' | '|' | '>' | '&' | '!' | '#' | '*' | '%' | '@' | '`');
    let colon_inside = plain && indent == 0 && (value.contains(": ") || value.ends_with(':'));
    if alias || brace_glob || colon_inside {
        // A trailing comment stays a comment where the value is plain.
        return format!("{}{}{cr}", &line[..value_at], quote(value));
    }
    format!("{line}{cr}")
}

/// Whether the bracket that opens `value` closes before its end (other
/// than before a comment): then it is text, not a flow collection.
fn closes_early(value: &str) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in value.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let rest = value[i + 1..].trim_start();
                    return !rest.is_empty() && !rest.starts_with('#');
                }
            }
            _ => {}
        }
    }
    false
}

/// A value as a single-quoted YAML string.
fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// The strings of a value meant as a list: a list of strings, or a string
/// of comma-separated items (commas inside `{…}` belong to a glob). Items
/// are trimmed, empty ones dropped. `Err` with the type found otherwise.
pub(crate) fn split_list(value: &Value) -> Result<Vec<String>, &'static str> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Text(s) => Ok(split_commas(s)),
        Value::List(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::Text(s) => out.extend(split_commas(s)),
                    Value::Null => {}
                    other => return Err(other.type_name()),
                }
            }
            Ok(out)
        }
        other => Err(other.type_name()),
    }
}

/// `a, b,{c,d}` → `a`, `b`, `{c,d}`.
fn split_commas(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim().to_string());
    out.retain(|x| !x.is_empty());
    out
}

/// A value meant as one string (a title, a status): text as written; a list
/// of strings joined with `, `; `Err` with the type found otherwise.
pub(crate) fn text(value: &Value) -> Result<Option<String>, &'static str> {
    match value {
        Value::Null => Ok(None),
        Value::Text(s) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        other => Err(other.type_name()),
    }
}

/// A value meant as true or false (`alwaysApply`): a boolean, or the
/// strings `true` / `false` in any case.
pub(crate) fn boolean(value: &Value) -> Result<Option<bool>, &'static str> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Text(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
        Value::Text(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
        other => Err(other.type_name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(text: &str) -> FrontMatter {
        let s = split(text);
        assert_eq!(s.problem, None, "{text}");
        s.front
    }

    #[test]
    fn a_file_without_front_matter_is_all_body() {
        let s = split("# Title\n\nText\n");
        assert_eq!((s.body_start, s.body, s.problem), (0, "# Title\n\nText\n", None));
        let s = split("\u{feff}# T\n");
        assert_eq!((s.body_start, s.body), (3, "# T\n"));
        let s = split("");
        assert_eq!(s.body, "");
        // `---` later in the file is a thematic break, not front matter.
        assert_eq!(split("text\n---\nmore\n").body_start, 0);
    }

    #[test]
    fn front_matter_is_read_with_the_line_of_each_value() {
        let text = "---\ndescription: \"Go rules\"\nglobs: \"**/*.go\"\nalwaysApply: false\n---\n# Go\n";
        let s = split(text);
        assert_eq!(s.problem, None);
        assert_eq!(s.body, "# Go\n");
        assert_eq!(&text[s.body_start..], "# Go\n");
        let f = s.front;
        assert_eq!(f.description, Some(Field { value: Value::Text("Go rules".into()), line: 2 }));
        assert_eq!(f.globs.as_ref().map(|g| g.line), Some(3));
        assert_eq!(f.always_apply.map(|a| a.value), Some(Value::Bool(false)));
        // CRLF line ends, `...` as the closing line, unknown keys read past.
        let f = front("---\r\nstatus: accepted\r\nparent: Decisions\r\nnav_order: 2\r\n...\r\nBody\r\n");
        assert_eq!(f.status.map(|s| s.value), Some(Value::Text("accepted".into())));
    }

    /// The repairs of the module, each on the form real files use.
    #[test]
    fn unquoted_globs_and_colons_are_read_as_written() {
        let f = front("---\nglobs: **/*.go\nalwaysApply: false\n---\n");
        assert_eq!(f.globs.map(|g| g.value), Some(Value::Text("**/*.go".into())));
        let f = front("---\npaths:\n  - *.md\n  - \"src/**\"\n---\n");
        assert_eq!(
            f.paths.map(|g| g.value),
            Some(Value::List(vec![Value::Text("*.md".into()), Value::Text("src/**".into())]))
        );
        let f = front("---\nglobs: **/*.sh, **/*.yaml, Makefile\n---\n");
        let globs = f.globs.unwrap().value;
        assert_eq!(split_list(&globs).unwrap(), ["**/*.sh", "**/*.yaml", "Makefile"]);
        let f = front("---\ndescription: Go: idiomatic rules, it's short\nglobs: {src,lib}/**/*.ts\n---\n");
        assert_eq!(f.description.map(|d| d.value), Some(Value::Text("Go: idiomatic rules, it's short".into())));
        assert_eq!(f.globs.map(|d| d.value), Some(Value::Text("{src,lib}/**/*.ts".into())));
        // Flow lists and quoted strings are left alone.
        let f = front("---\nglobs: [\"**/*\"]\napplyTo: '**/*.ts, **/*.tsx'\n---\n");
        assert_eq!(f.globs.map(|g| g.value), Some(Value::List(vec![Value::Text("**/*".into())])));
        assert_eq!(split_list(&f.apply_to.unwrap().value).unwrap(), ["**/*.ts", "**/*.tsx"]);
        assert_eq!(repair("globs: **/*.go # all Go\r"), "globs: '**/*.go # all Go'\r");
        let f = front("---\ndescription: `code` first\ntitle: [Beefree SDK](https://x) rules\ntags: [a, b]\n---\n");
        assert_eq!(f.description.map(|d| d.value), Some(Value::Text("`code` first".into())));
        assert_eq!(f.title.map(|d| d.value), Some(Value::Text("[Beefree SDK](https://x) rules".into())));
        assert_eq!(f.tags.map(|d| d.value), Some(Value::List(vec![Value::Text("a".into()), Value::Text("b".into())])));
        assert_eq!(repair("a: b\n- *x\nkey: \"q: r\""), "a: b\n- '*x'\nkey: \"q: r\"");
        // A carriage return inside a line is not a line break (a fuzzer's find).
        assert_eq!(repair("- *.\r\r\rsql\r\nb: \"x"), "- '*.   sql'\r\nb: \"x");
        let s = split("---\npaths:\n  - *.\r\r\r\r\rsql\n  -.\"src\n---\n");
        assert!(s.problem.is_some_and(|p| (2..=4).contains(&p.line)));
    }

    #[test]
    fn commas_inside_braces_belong_to_the_glob() {
        assert_eq!(split_commas("**/*.{ts,tsx}, a/**,, b"), ["**/*.{ts,tsx}", "a/**", "b"]);
        assert_eq!(split_list(&Value::Map), Err("a mapping"));
        assert_eq!(split_list(&Value::List(vec![Value::Bool(true)])), Err("true or false"));
        assert_eq!(boolean(&Value::Text("TRUE".into())), Ok(Some(true)));
        assert_eq!(text(&Value::Text("  ".into())), Ok(None));
    }

    #[test]
    fn what_cannot_be_read_is_one_problem_at_its_line() {
        let s = split("---\ntitle: ok\nglobs: [a, b\n---\n# Body\n");
        let p = s.problem.unwrap();
        assert!(p.line >= 3 && p.line <= 4, "{p:?}");
        assert!(p.message.starts_with("the front matter is not valid YAML"), "{p:?}");
        assert_eq!(s.body, "# Body\n");
        assert_eq!(s.front, FrontMatter::default());
        let s = split("---\ntitle: a\ntitle: b\n---\n");
        assert_eq!(s.problem.map(|p| p.line), Some(3));
        let s = split("---\n- a\n- b\n---\n");
        assert!(s.problem.unwrap().message.contains("must be `key: value` lines, found a list"));
        let s = split("---\ntitle: x\n");
        assert_eq!(s.problem.map(|p| (p.line, p.message.contains("never closed"))), Some((1, true)));
    }
}
