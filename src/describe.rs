/*!
How input problems are put into words, in one place, so that every message
names a type the same way ("a list", never "an array" in one message and "a
list" in the next) and quotes a `serde_json` error without the position it
appends (the callers place the error themselves, as `path:line:column`).

It also makes strings from the inputs safe to print ([`printable`],
[`defuse_lines`]): a suite, a memory file and a configuration come from a
pull request and their strings are hostile. A newline in a scenario id must
not start a line that GitHub Actions reads as a workflow command
(`::add-mask::`, `::error`), and an ESC in a title must not reach the
terminal.

A leaf: it depends on nothing in the crate.
*/

use std::borrow::Cow;

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

/// Whether a character is escaped by [`printable`]: the C0 controls (line
/// breaks and tab included), DEL, the C1 controls, the Unicode line and
/// paragraph separators, and the two noncharacters XML 1.0 forbids.
fn unprintable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}') || invisible(c)
}

/// Characters that change how the text around them reads without showing
/// themselves: the bidirectional controls a "Trojan Source" text uses to make
/// a reviewer read something other than what is there (embeddings,
/// overrides, isolates, the direction marks), and the zero-width and
/// invisible format characters that hide text or split a word a reader
/// searches for. Escaped like control characters, so that what a reviewer
/// sees in a log, an annotation or a summary is what the input holds.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'                  // Arabic letter mark
            | '\u{00ad}'            // soft hyphen
            | '\u{180e}'            // Mongolian vowel separator
            | '\u{200b}'..='\u{200f}' // zero-width space, non-joiner, joiner; LRM, RLM
            | '\u{202a}'..='\u{202e}' // embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // isolates
            | '\u{feff}'            // zero-width no-break space (a BOM inside text)
    )
}

/// GitHub's legacy workflow-command prefix, which the runner looks for
/// anywhere in a line (not only at its start, like `::`).
const LEGACY_COMMAND: &str = "##[";

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// A string from the inputs, made safe to put in a line of text output:
/// every control character is written visibly as Rust writes it in a string
/// literal (`\n`, `\r`, `\t`, `\0`, otherwise `\u{1b}`, `\u{7}`, `\u{7f}`,
/// `\u{85}`), as are U+2028, U+2029, U+FFFE and U+FFFF, and the `[` of GitHub's
/// legacy command prefix `##[` (as `##\u{5b}`). Everything else (letters of any
/// script, `→`, `×`, punctuation, backslashes) is kept, so an ordinary string
/// comes back borrowed and unchanged.
///
/// The result holds no line break, so it cannot start a line of output.
pub(crate) fn printable(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// [`printable`] for a multi-line text from the inputs (a context-block
/// diff): the same escapes, but `\n` stays a line break.
pub(crate) fn printable_lines(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

fn escape(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let clean = |c: char| !unprintable(c) || (keep_newlines && c == '\n');
    if s.chars().all(clean) && !s.contains(LEGACY_COMMAND) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with(LEGACY_COMMAND) {
            out.push_str("##\\u{5b}");
            rest = &rest[LEGACY_COMMAND.len()..];
            continue;
        }
        if clean(c) {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The last line of defence for a whole text about to be printed, whose
/// line breaks are the tool's own (a note, an error, a rendered report):
/// control characters other than `\n` are escaped as [`printable`] escapes
/// them (when `keep_ansi`, the ESC of an SGR colour sequence `ESC [ 1;31 m`
/// is kept: the tool colours its own text once every string from the inputs
/// went through [`printable`]), the legacy command prefix `##[` is broken, and
/// a line whose first non-blank characters are `::` (GitHub runs it as a
/// workflow command: the runner trims leading blanks first) gets its first `:`
/// written as `\u{3a}`. Text without any of these comes back borrowed.
///
/// Annotations the tool means to print must not go through here.
pub(crate) fn defuse_lines(text: &str, keep_ansi: bool) -> Cow<'_, str> {
    let sgr_at = |i: usize| {
        text.as_bytes()[i + 1..].strip_prefix(b"[").is_some_and(|body| {
            let len = body.iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
            body.get(len) == Some(&b'm')
        })
    };
    let keep = |i: usize, c: char| c == '\n' || !unprintable(c) || (keep_ansi && c == '\u{1b}' && sgr_at(i));
    let escaped: Cow<'_, str> = if text.char_indices().all(|(i, c)| keep(i, c)) && !text.contains(LEGACY_COMMAND) {
        Cow::Borrowed(text)
    } else {
        let mut out = String::with_capacity(text.len() + 16);
        let mut i = 0;
        while let Some(c) = text[i..].chars().next() {
            if text[i..].starts_with(LEGACY_COMMAND) {
                out.push_str("##\\u{5b}");
                i += LEGACY_COMMAND.len();
                continue;
            }
            if keep(i, c) {
                out.push(c);
            } else {
                push_escaped(&mut out, c);
            }
            i += c.len_utf8();
        }
        Cow::Owned(out)
    };
    let command_line = |line: &str| line.trim_start().starts_with("::");
    if !escaped.split('\n').any(command_line) {
        return escaped;
    }
    let mut out = String::with_capacity(escaped.len() + 16);
    for (n, line) in escaped.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if command_line(line) {
            let blanks = line.len() - line.trim_start().len();
            out.push_str(&line[..blanks]);
            out.push_str("\\u{3a}");
            out.push_str(&line[blanks + 1..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// A JSON document about to be printed, defused the same way: JSON already
/// escapes the C0 controls inside strings, so this escapes what it leaves
/// raw (DEL, the C1 controls, U+2028, U+2029) and the `[` of `##[`, each as
/// a `\uXXXX` JSON escape. Those characters can only occur inside strings of
/// the document, so it still parses to the same value.
pub(crate) fn defuse_json(text: &str) -> Cow<'_, str> {
    let raw = |c: char| c != '\n' && unprintable(c);
    if !text.contains(raw) && !text.contains(LEGACY_COMMAND) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        if text[i..].starts_with(LEGACY_COMMAND) {
            out.push_str("##\\u005b");
            i += LEGACY_COMMAND.len();
            continue;
        }
        if raw(c) {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    Cow::Owned(out)
}

/// The allowed name closest to `key` (Levenshtein distance in characters),
/// if it is close enough to be a typo: what a message offers as `did you
/// mean`.
pub(crate) fn suggest(key: &str, allowed: &[&str]) -> Option<String> {
    allowed
        .iter()
        .map(|a| (strsim::levenshtein(key, a), *a))
        .filter(|(d, a)| *d <= 2.max(a.len() / 4) && *d < a.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_invisible_characters_are_escaped() {
        // A Trojan Source line: the override makes "admin" read reversed.
        let trojan = "ok\u{202e}nimda\u{2066}x\u{2069}";
        assert_eq!(printable(trojan), "ok\\u{202e}nimda\\u{2066}x\\u{2069}");
        assert_eq!(printable("pay\u{200b}ments"), "pay\\u{200b}ments");
        assert_eq!(printable("a\u{feff}b\u{200d}c\u{ad}d"), "a\\u{feff}b\\u{200d}c\\u{ad}d");
        assert_eq!(defuse_lines("x\u{202e}y\n", false), "x\\u{202e}y\n");
        assert_eq!(defuse_json("\"x\u{2067}\""), "\"x\\u2067\"");
        // Visible non-ASCII text is left alone.
        assert!(matches!(printable("déjà vu — ❌ ✅ 日本"), Cow::Borrowed(_)));
    }

    #[test]
    fn type_names() {
        let v: serde_json::Value = serde_json::from_str(r#"[null, true, 1, "s", [], {}]"#).unwrap();
        let names: Vec<_> = v.as_array().unwrap().iter().map(json_type).collect();
        assert_eq!(names, ["null", "a boolean", "a number", "a string", "a list", "an object"]);
    }

    #[test]
    fn printable_escapes_controls_visibly_and_keeps_the_rest() {
        assert!(matches!(printable("PAY-001 → ok × 2, ünïcödé \\bre\\b"), Cow::Borrowed(_)));
        assert_eq!(
            printable("a\n::add-mask::x\r::error file=x::y\u{1b}[31m\u{7}\0\t\u{7f}\u{85}\u{2028}"),
            "a\\n::add-mask::x\\r::error file=x::y\\u{1b}[31m\\u{7}\\0\\t\\u{7f}\\u{85}\\u{2028}"
        );
        assert_eq!(printable("id ##[add-mask]x ##"), "id ##\\u{5b}add-mask]x ##");
        assert_eq!(printable_lines("a\nb\r\n\u{1b}"), "a\nb\\r\n\\u{1b}");
    }

    #[test]
    fn defused_lines_cannot_be_workflow_commands() {
        assert!(matches!(defuse_lines("ok\n  + a: b\n", false), Cow::Borrowed(_)));
        assert_eq!(defuse_lines("x\n::add-mask::s\n  \t::e", false), "x\n\\u{3a}:add-mask::s\n  \\t::e");
        assert_eq!(defuse_lines("x\n   ::error::y", false), "x\n   \\u{3a}:error::y");
        assert_eq!(defuse_lines("a\rb ##[x]", false), "a\\rb ##\\u{5b}x]");
        let painted = "\u{1b}[1;31mFAIL\u{1b}[0m \u{1b}]8;x";
        assert_eq!(defuse_lines(painted, true), "\u{1b}[1;31mFAIL\u{1b}[0m \\u{1b}]8;x");
        assert_eq!(defuse_lines(painted, false), "\\u{1b}[1;31mFAIL\\u{1b}[0m \\u{1b}]8;x");
    }

    #[test]
    fn defused_json_is_the_same_value() {
        let value = serde_json::json!({"id": "a ##[add-mask]x \u{85}\u{7f}\u{2028} \u{1b}\n", "n": [1]});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let defused = defuse_json(&text);
        assert!(!defused.contains("##[") && !defused.contains(['\u{85}', '\u{7f}', '\u{2028}', '\u{1b}']), "{defused}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&defused).unwrap(), value);
        assert!(matches!(defuse_json("{\n  \"a\": \"→ ×\"\n}"), Cow::Borrowed(_)));
    }

    #[test]
    fn error_without_position() {
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": }").unwrap_err();
        assert_eq!(json_error(&e), "expected value");
        assert!(e.to_string().contains(" at line 1 column"), "serde_json still appends it: {e}");
    }
}
