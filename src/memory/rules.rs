/*!
The typed rules of a decision record (`rules[]`), checked the way Mneme
0.10.0 checks them when it loads a memory file: a rule is an object whose
`type` is `FORBID_LITERAL` (the only type Mneme defines), whose `value` is a
non-empty literal, and whose optional `include_paths` / `exclude_paths` are
lists of path selectors in Mneme's small grammar (repository-relative, `/`
separators, `*` within a segment, `**` as a whole segment, no `?`, `[`, `]`
or `!`). Mneme refuses a file that breaks any of this.

Why it exists apart from the loaders: both loaders (fast and tolerant) need
the same answer, and under profile `mneme` the rules are what Mneme's prompt
enforcer checks a text answer with (`crate::verdict`), so they must be read
exactly. It deliberately does not word problems for a record (the tolerant
loader does) and does not decide severities (an error under `mneme`, mostly
unchecked under `default`).
*/

/// The only rule type Mneme 0.10.0 defines.
pub(super) const FORBID_LITERAL: &str = "FORBID_LITERAL";

/// Python's `str.isspace()`: Unicode white space plus the four separators
/// U+001C to U+001F (Mneme strips with Python's `str.strip()`).
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text` without Python's leading and trailing white space.
pub fn python_strip(text: &str) -> &str {
    text.trim_matches(is_python_space)
}

/// Why `pattern` is not a path selector Mneme accepts, or `None` when it is
/// one (Mneme's `validate_path_pattern`).
pub(super) fn selector_problem(pattern: &str) -> Option<&'static str> {
    let windows_absolute = {
        let b = pattern.as_bytes();
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/'
    };
    if pattern.is_empty() {
        Some("a path selector must not be empty")
    } else if pattern.contains('\\') {
        Some("a path selector uses `/`, not `\\`")
    } else if pattern.starts_with('/') || windows_absolute {
        Some("a path selector is relative to the repository root, not absolute")
    } else if pattern.starts_with('!') {
        Some("a path selector cannot be negated with `!`")
    } else if pattern.contains(['?', '[', ']']) {
        Some("a path selector has no `?`, `[` or `]` (only `*` within a segment and `**` as a whole segment)")
    } else if pattern.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        Some("a path selector has no empty, `.` or `..` segment")
    } else if pattern.split('/').any(|s| s.contains("**") && s != "**") {
        Some("`**` must be a whole segment of a path selector")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_follow_mneme_grammar() {
        for ok in ["src/**", "src/*.py", "**", "a/**/b", "services/payments/api.py"] {
            assert_eq!(selector_problem(ok), None, "{ok}");
        }
        for bad in
            ["", "a\\b", "/abs", "C:/x", "!src", "src/?.py", "src/[ab]", "a//b", "./a", "a/../b", "a/b/", "src/**.py"]
        {
            assert!(selector_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn python_strip_knows_the_information_separators() {
        assert_eq!(python_strip("\u{1c} x \u{a0}\u{3000}"), "x");
        assert_eq!(python_strip("\u{feff}x"), "\u{feff}x");
        assert!(python_strip(" \u{1f}\t").is_empty());
    }
}
