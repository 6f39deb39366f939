/*!
The located reader: a small JSON reader that remembers the byte offset where
every value starts and keeps going after a syntax error. It is what
`validate` (and any memory file the fast path declines) is read with.

Why not `serde_json` here: `validate` must report *every* problem of a memory
file in one run, a syntax error in one record included, and each problem must
point at a line and column. `serde_json` stops at the first syntax error and
its `Value` forgets positions. This reader builds a tree of [`Node`]s that
carry their byte offset; when an element of an array is malformed it records
the error, skips to the end of that element by bracket matching, and goes on
with the next one, so one broken record does not hide the others.

It deliberately does not do anything else: no serialisation, no number
arithmetic (numbers are kept as text), no mapping onto records (that is
`memory::tolerant`), no lines and columns (that is `memory::lines`). Type
names in its messages are those of [`crate::describe::json_type`].
*/

use std::fmt;

/// A parsed JSON value and the byte offset where it starts in the source.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Node {
    pub(super) offset: usize,
    pub(super) value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    /// The number as written; the memory file never computes with numbers.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Members in source order; a repeated key keeps every occurrence and
    /// [`Node::get`] returns the last, as JSON parsers conventionally do.
    Object(Vec<Member>),
    /// An array element with a syntax error (reported in
    /// [`Parsed::errors`]), kept in its place so that what counts elements
    /// (the records of a memory file) counts it too.
    Unreadable,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Member {
    pub(super) key: String,
    pub(super) key_offset: usize,
    pub(super) node: Node,
}

impl Value {
    /// The JSON type name, for messages ("expected a string, found a list"):
    /// the words of [`crate::describe::json_type`], which a test holds it to.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "an object",
            Value::Unreadable => "an unreadable value",
        }
    }
}

impl Node {
    /// The member `key` of an object (the last one if repeated).
    pub(super) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(members) => members.iter().rev().find(|m| m.key == key).map(|m| &m.node),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A syntax error at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    pub(super) offset: usize,
    pub(super) message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The result of a tolerant parse: the tree (absent only when the document
/// is unusable as a whole) and every syntax error found on the way.
#[derive(Debug)]
pub(super) struct Parsed {
    pub(super) root: Option<Node>,
    pub(super) errors: Vec<SyntaxError>,
}

/// How deep arrays and objects may nest before the reader gives up; keeps a
/// hostile file from overflowing the stack.
const MAX_DEPTH: usize = 128;

/// Parses `text`, recovering from errors inside array elements.
pub(super) fn parse(text: &str) -> Parsed {
    let mut p = Parser { src: text.as_bytes(), text, pos: 0, errors: Vec::new() };
    if p.src.starts_with(b"\xEF\xBB\xBF") {
        p.pos = 3;
    }
    p.skip_ws();
    if p.pos >= p.src.len() {
        p.err(p.pos, "the file is empty: expected a JSON object or a list".into());
        return Parsed { root: None, errors: p.errors };
    }
    let root = match p.value(0) {
        Ok(node) => Some(node),
        Err(e) => {
            p.errors.push(e);
            None
        }
    };
    if root.is_some() {
        p.skip_ws();
        if p.pos < p.src.len() {
            let at = p.pos;
            p.err(at, format!("unexpected {} after the end of the document", p.describe(at)));
        }
    }
    Parsed { root, errors: p.errors }
}

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    errors: Vec<SyntaxError>,
}

type Res<T> = Result<T, SyntaxError>;

impl<'a> Parser<'a> {
    fn err(&mut self, offset: usize, message: String) {
        self.errors.push(SyntaxError { offset, message });
    }

    fn fail<T>(&self, offset: usize, message: String) -> Res<T> {
        Err(SyntaxError { offset, message })
    }

    fn describe(&self, at: usize) -> String {
        match self.text[at..].chars().next() {
            None => "end of file".into(),
            Some(c) if c.is_control() => format!("character U+{:04X}", c as u32),
            Some(c) => format!("`{c}`"),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: usize) -> Res<Node> {
        let offset = self.pos;
        let value = match self.src.get(self.pos) {
            None => return self.fail(offset, "unexpected end of file: expected a value".into()),
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return self.fail(offset, format!("expected a value, found {}", self.describe(offset))),
        };
        Ok(Node { offset, value })
    }

    fn literal(&mut self, word: &str, value: Value) -> Res<Value> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            let at = self.pos;
            self.fail(at, format!("expected a value, found {}", self.describe(at)))
        }
    }

    fn number(&mut self) -> Res<Value> {
        let start = self.pos;
        let s = self.src;
        let mut i = self.pos;
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while matches!(s.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
            _ => return self.fail(i, "invalid number: expected a digit".into()),
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                return self.fail(i, "invalid number: expected a digit after `.`".into());
            }
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                return self.fail(i, "invalid number: expected a digit in the exponent".into());
            }
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        self.pos = i;
        Ok(Value::Number(self.text[start..i].to_string()))
    }

    fn string(&mut self) -> Res<String> {
        let open = self.pos;
        self.pos += 1; // the opening quote
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let Some(&b) = self.src.get(self.pos) else {
                return self.fail(open, "unterminated string: a `\"` is missing".into());
            };
            match b {
                b'"' => {
                    out.push_str(&self.text[run..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(&self.text[run..self.pos]);
                    self.escape(&mut out)?;
                    run = self.pos;
                }
                0x00..=0x1F => {
                    let what = if b == b'\n' {
                        "unterminated string: a `\"` is missing before the end of the line".to_string()
                    } else {
                        format!("control character U+{b:04X} inside a string: escape it")
                    };
                    return self.fail(if b == b'\n' { open } else { self.pos }, what);
                }
                _ => self.pos += 1,
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Res<()> {
        let at = self.pos;
        let Some(&c) = self.src.get(self.pos + 1) else {
            return self.fail(at, "unterminated escape at the end of the file".into());
        };
        self.pos += 2;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4(at)?;
                if (0xD800..0xDC00).contains(&hi) {
                    if self.src[self.pos..].starts_with(b"\\u") {
                        self.pos += 2;
                        let lo = self.hex4(at)?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return self.fail(at, "invalid surrogate pair in `\\u` escape".into());
                        }
                        let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        char::from_u32(code).unwrap_or('\u{FFFD}')
                    } else {
                        return self.fail(at, "lone surrogate in `\\u` escape".into());
                    }
                } else if (0xDC00..0xE000).contains(&hi) {
                    return self.fail(at, "lone surrogate in `\\u` escape".into());
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            _ => {
                return self
                    .fail(at, format!("invalid escape `\\{}`", self.text[at + 1..].chars().next().unwrap_or(' ')))
            }
        };
        out.push(ch);
        Ok(())
    }

    fn hex4(&mut self, at: usize) -> Res<u32> {
        let digits = self.src.get(self.pos..self.pos + 4);
        let parsed = digits
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .filter(|_| digits.is_some_and(|d| d.iter().all(u8::is_ascii_hexdigit)));
        match parsed {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => self.fail(at, "invalid `\\u` escape: expected four hex digits".into()),
        }
    }

    fn array(&mut self, depth: usize) -> Res<Value> {
        let open = self.pos;
        if depth >= MAX_DEPTH {
            return self.fail(open, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.src.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            match self.value(depth + 1) {
                Ok(node) => items.push(node),
                Err(e) => {
                    // Record the error and skip this element so the next
                    // one is still read; the element keeps its place.
                    self.errors.push(e);
                    self.pos = start;
                    if !self.skip_element() {
                        return self.fail(open, "unterminated array: a `]` is missing".into());
                    }
                    items.push(Node { offset: start, value: Value::Unreadable });
                }
            }
            // The separator; junk before it is reported once and skipped.
            loop {
                self.skip_ws();
                match self.src.get(self.pos) {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                        if self.src.get(self.pos) == Some(&b']') {
                            let at = self.pos - 1;
                            self.err(at, "trailing comma before `]`: remove it".into());
                            self.pos += 1;
                            return Ok(Value::Array(items));
                        }
                        break;
                    }
                    Some(b']') => {
                        self.pos += 1;
                        return Ok(Value::Array(items));
                    }
                    None => return self.fail(open, "unterminated array: a `]` is missing".into()),
                    Some(_) => {
                        // Most often a missing comma between two elements:
                        // report it and read on as if it were there.
                        let at = self.pos;
                        let found = self.describe(at);
                        self.err(at, format!("expected `,` or `]` after an array element, found {found}"));
                        if matches!(self.src.get(self.pos), Some(b'{' | b'[' | b'"')) {
                            break;
                        }
                        // Not the start of a plausible element: skip the junk.
                        if !self.skip_element() {
                            return self.fail(open, "unterminated array: a `]` is missing".into());
                        }
                    }
                }
            }
        }
    }

    /// Skips from `self.pos` past one array element, matching brackets and
    /// honouring strings, and stops before the `,` or `]` that ends it.
    /// Returns false at the end of the file.
    fn skip_element(&mut self) -> bool {
        let mut depth = 0usize;
        let mut moved = false;
        while let Some(&b) = self.src.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    while let Some(&c) = self.src.get(self.pos) {
                        self.pos += 1;
                        match c {
                            b'\\' => self.pos += 1,
                            b'"' | b'\n' => break,
                            _ => {}
                        }
                    }
                    moved = true;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => {
                    if !moved && b == b'}' {
                        // A stray closing brace: consume it as junk.
                        self.pos += 1;
                        continue;
                    }
                    return true;
                }
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return true;
                    }
                }
                b',' if depth == 0 => return true,
                _ => {}
            }
            moved = true;
            self.pos += 1;
        }
        false
    }

    fn object(&mut self, depth: usize) -> Res<Value> {
        let open = self.pos;
        if depth >= MAX_DEPTH {
            return self.fail(open, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.src.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            let key_offset = self.pos;
            match self.src.get(self.pos) {
                Some(b'"') => {}
                Some(b'}') if !members.is_empty() => {
                    return self.fail(key_offset - 1, "trailing comma before `}`: remove it".into())
                }
                None => return self.fail(open, "unterminated object: a `}` is missing".into()),
                Some(_) => {
                    let found = self.describe(key_offset);
                    return self.fail(key_offset, format!("expected a member name in double quotes, found {found}"));
                }
            }
            let key = self.string()?;
            self.skip_ws();
            if self.src.get(self.pos) != Some(&b':') {
                let at = self.pos;
                let found = self.describe(at);
                return self.fail(at, format!("expected `:` after member name \"{key}\", found {found}"));
            }
            self.pos += 1;
            self.skip_ws();
            let node = self.value(depth + 1)?;
            members.push(Member { key, key_offset, node });
            self.skip_ws();
            match self.src.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                None => return self.fail(open, "unterminated object: a `}` is missing".into()),
                Some(_) => {
                    let at = self.pos;
                    let found = self.describe(at);
                    return self.fail(at, format!("expected `,` or `}}` after a member, found {found}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::LineIndex;
    use super::*;

    fn ok(text: &str) -> Node {
        let p = parse(text);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        p.root.unwrap()
    }

    #[test]
    fn parses_every_kind_of_value_with_offsets() {
        let n = ok(r#" {"a": [1, -2.5e3, true, false, null], "b": "x\"\u00e9\ud83d\ude00"} "#);
        assert_eq!(n.offset, 1);
        let a = n.get("a").unwrap();
        assert_eq!(a.offset, 7);
        match &a.value {
            Value::Array(items) => {
                assert_eq!(items[0].value, Value::Number("1".into()));
                assert_eq!(items[1].value, Value::Number("-2.5e3".into()));
                assert_eq!(items[2].value, Value::Bool(true));
                assert_eq!(items[4].value, Value::Null);
                assert_eq!(items[1].offset, 11);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(n.get("b").unwrap().as_str(), Some("x\"é😀"));
    }

    #[test]
    fn repeated_keys_resolve_to_the_last() {
        let n = ok(r#"{"a": 1, "a": 2}"#);
        assert_eq!(n.get("a").unwrap().value, Value::Number("2".into()));
    }

    #[test]
    fn recovers_inside_arrays_and_reports_each_error() {
        let text =
            "{\"items\": [\n {\"id\": \"a\",},\n {\"id\": \"b\"}\n {\"id\": \"c\" \"x\": 1},\n {\"id\": \"d\"},\n]}";
        let p = parse(text);
        let items = match &p.root.as_ref().unwrap().get("items").unwrap().value {
            Value::Array(items) => items.clone(),
            other => panic!("{other:?}"),
        };
        let ids: Vec<_> = items.iter().map(|n| n.get("id").and_then(Node::as_str)).collect();
        assert_eq!(ids, [None, Some("b"), None, Some("d")]);
        assert_eq!(items[0].value, Value::Unreadable);
        assert_eq!(items[2].value, Value::Unreadable);
        let lines: Vec<_> = p.errors.iter().map(|e| LineIndex::new(text).line_col(e.offset).0).collect();
        assert_eq!(lines, [2, 4, 4, 5], "{:?}", p.errors);
        assert!(p.errors[0].message.contains("trailing comma"));
        assert!(p.errors[1].message.contains("expected `,` or `]`"));
        assert!(p.errors[3].message.contains("trailing comma"));
    }

    #[test]
    fn reports_unusable_documents() {
        assert!(parse("").root.is_none());
        assert!(parse("  \n").errors[0].message.contains("empty"));
        let p = parse("{\"a\": 1");
        assert!(p.root.is_none());
        assert!(p.errors[0].message.contains("unterminated object"));
        let p = parse("[1] x");
        assert!(p.root.is_some());
        assert!(p.errors[0].message.contains("after the end"));
        assert!(parse("\"abc").errors[0].message.contains("unterminated string"));
        assert!(parse("[01]").errors.len() == 1);
        let bom = parse("\u{feff}[]");
        assert!(bom.errors.is_empty() && bom.root.is_some());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(10_000);
        let p = parse(&text);
        assert!(p.errors.iter().any(|e| e.message.contains("nesting")));
    }

    #[test]
    fn type_names_are_those_of_describe() {
        let text = r#"[null, true, -1.5e3, "s", [], {}]"#;
        let Value::Array(items) = ok(text).value else { panic!("not a list") };
        let ours: Vec<&str> = items.iter().map(|n| n.value.type_name()).collect();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        let theirs: Vec<&str> = theirs.as_array().unwrap().iter().map(crate::describe::json_type).collect();
        assert_eq!(ours, theirs);
    }
}
