/*!
Assertions: what a scenario checks in a response, and how one entry of an
`assertions` list is validated.

Both layouts write assertions the same ways (a native suite may use Mneme's
`{type, value}` shape too), so both are validated here, from a [`Node`]; a
Mneme entry is converted to one first. A problem inside an entry (an unknown
type, an empty value, an invalid regex, a wrong shape) is not a load error:
the entry is kept as [`ParsedAssertion::Invalid`] with its reason, and the
verdict of its scenario is MALFORMED (scenarios.md §3-4).

It never matches an assertion against a response: the `verdict` stage does.
*/

use std::sync::Arc;

use regex_automata::meta;
use serde::{Serialize, Serializer};
use serde_saphyr::Spanned;

use super::memo::Memo;
use super::node::{pos, Node};
use super::text::{one_line, suggest};

/// The assertion type keys, as written in a suite.
const ASSERTION_TYPES: &[&str] =
    &["forbidden_dependency", "forbidden_path", "forbidden_path_pattern", "forbidden_text", "required_text"];

/// One entry of a scenario's `assertions` list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssertionSpec {
    /// 1-based position in the scenario's list.
    pub index: usize,
    /// Where the entry starts in the suite file, when known (YAML).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub parsed: ParsedAssertion,
}

impl AssertionSpec {
    /// The assertion, if it is valid.
    pub fn valid(&self) -> Option<&Assertion> {
        match &self.parsed {
            ParsedAssertion::Valid(a) => Some(a),
            ParsedAssertion::Invalid { .. } => None,
        }
    }

    /// `assertion 2 (line 14, column 9)`, for messages.
    pub fn position(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("assertion {} (line {l}, column {c})", self.index),
            _ => format!("assertion {}", self.index),
        }
    }
}

/// An assertion entry, validated.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ParsedAssertion {
    Valid(Assertion),
    /// Unknown type, empty value, invalid regex, wrong shape: the scenario
    /// is MALFORMED with this reason.
    Invalid {
        reason: String,
    },
}

/// A validated assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assertion {
    pub kind: AssertionKind,
    pub matcher: Matcher,
    pub severity: Severity,
}

impl Assertion {
    /// `forbidden_text "TODO" (soft)`, `required_text /Ledger\w+/`.
    pub fn describe(&self) -> String {
        let m = match &self.matcher {
            Matcher::Substring(s) => format!("{s:?}"),
            Matcher::Regex(p) => format!("/{}/", p.as_str()),
        };
        match self.severity {
            Severity::Hard => format!("{} {m}", self.kind.as_str()),
            Severity::Soft => format!("{} {m} (soft)", self.kind.as_str()),
        }
    }
}

/// What an assertion checks (scenarios.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AssertionKind {
    /// `dependencies_added`, case-insensitive substring, each matching entry
    /// is a trigger.
    ForbiddenDependency,
    /// `files_changed`, case-sensitive substring, no globbing (Mneme's
    /// `forbidden_path_pattern` is the same check).
    ForbiddenPath,
    /// The text, case-insensitive substring or regex.
    ForbiddenText,
    /// The text; violated when absent.
    RequiredText,
}

impl AssertionKind {
    /// The key as written in a native suite.
    pub fn as_str(self) -> &'static str {
        match self {
            AssertionKind::ForbiddenDependency => "forbidden_dependency",
            AssertionKind::ForbiddenPath => "forbidden_path",
            AssertionKind::ForbiddenText => "forbidden_text",
            AssertionKind::RequiredText => "required_text",
        }
    }

    /// Parses a type key; `forbidden_path_pattern` is `ForbiddenPath`.
    fn from_key(key: &str) -> Option<AssertionKind> {
        match key {
            "forbidden_dependency" => Some(AssertionKind::ForbiddenDependency),
            "forbidden_path" | "forbidden_path_pattern" => Some(AssertionKind::ForbiddenPath),
            "forbidden_text" => Some(AssertionKind::ForbiddenText),
            "required_text" => Some(AssertionKind::RequiredText),
            _ => None,
        }
    }

    /// Dependency and path assertions need a structured (`.json`) response.
    pub fn needs_structured(self) -> bool {
        matches!(self, AssertionKind::ForbiddenDependency | AssertionKind::ForbiddenPath)
    }
}

/// `hard` unless the suite says `severity: soft`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    #[default]
    Hard,
    Soft,
}

/// How an assertion's value is matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Matcher {
    /// A plain value (never empty).
    Substring(String),
    /// A compiled regex (only for `forbidden_text` and `required_text`).
    Regex(Pattern),
}

/// A compiled regex that compares and serialises as its source text.
///
/// Compiled as `regex::Regex::new` compiles it (the same syntax, size
/// limits, leftmost-first matching and UTF-8 handling, so the same matches
/// and the same errors), by the same engine, but without a literal
/// prefilter: a prefilter only finds candidate positions faster in long
/// texts, and for a case-insensitive pattern such as `(?i)import psycopg2`
/// building it took three quarters of the time to compile the regex, for
/// every assertion of every scenario, against responses of a few kilobytes.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: meta::Regex,
    source: Arc<str>,
}

impl Pattern {
    /// Compiles `source`; the error is one line, worded as the `regex`
    /// crate words it.
    pub fn new(source: &str) -> Result<Pattern, String> {
        // `regex::Regex::new`'s configuration (regex 1.x, `build_one_string`),
        // without the prefilter.
        let config = meta::Config::new()
            .nfa_size_limit(Some(10 * (1 << 20)))
            .hybrid_cache_capacity(2 * (1 << 20))
            .match_kind(regex_automata::MatchKind::LeftmostFirst)
            .utf8_empty(true)
            .auto_prefilter(false);
        let syntax = regex_automata::util::syntax::Config::new().utf8(true);
        match meta::Builder::new().configure(config).syntax(syntax).build(source) {
            Ok(regex) => Ok(Pattern { regex, source: source.into() }),
            Err(e) => Err(one_line(&regex_error(&e))),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the regex matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The leftmost-first match in `text`, as `regex::Regex::find` gives it.
    pub fn find<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.regex.find(text).map(|m| &text[m.range()])
    }
}

/// A build error worded as `regex::Error` words it (regex 1.x,
/// `Error::from_meta_build_error` and its `Display`).
fn regex_error(e: &meta::BuildError) -> String {
    if let Some(limit) = e.size_limit() {
        format!("Compiled regex exceeds size limit of {limit} bytes.")
    } else if let Some(syntax) = e.syntax_error() {
        syntax.to_string()
    } else {
        e.to_string()
    }
}

/// The regexes of a suite root compiled so far, by their source text,
/// shared by the threads that read its files: scenarios about one decision
/// often repeat an assertion (`(?i)import psycopg2`), and a regex costs tens
/// of microseconds and kilobytes to compile. Each scenario holds a clone
/// (the compiled program shared, its search caches its own); what the
/// suite no longer holds is freed with the last scenario that held it.
pub(super) type Patterns = Memo<String, Result<Pattern, String>>;

impl Patterns {
    /// [`Pattern::new`] of `source`, compiled the first time it is asked for.
    pub(super) fn compile(&self, source: &str) -> Result<Pattern, String> {
        self.get_or_make(source, || Pattern::new(source))
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------
// Validating one entry (a `Node`, from YAML or converted from JSON)
// ---------------------------------------------------------------------------

/// Entry `index` (1-based) of an `assertions` list, validated; an invalid
/// entry is kept with its reason.
pub(super) fn assertion_spec(index: usize, node: &Spanned<Node>, patterns: &Patterns) -> AssertionSpec {
    let p = pos(node);
    AssertionSpec {
        index,
        line: p.map(|p| p.0),
        column: p.map(|p| p.1),
        parsed: match parse_assertion(node, patterns) {
            Ok(a) => ParsedAssertion::Valid(a),
            Err(reason) => ParsedAssertion::Invalid { reason },
        },
    }
}

fn type_list() -> String {
    "forbidden_dependency, forbidden_path, forbidden_text, required_text".to_string()
}

fn unknown_type(key: &str) -> String {
    let mut msg = format!("unknown assertion type `{key}`");
    if let Some(s) = suggest(key, ASSERTION_TYPES) {
        msg.push_str(&format!(" (did you mean `{s}`?)"));
    }
    msg.push_str(&format!("; use one of {}", type_list()));
    msg
}

fn parse_severity(node: &Spanned<Node>) -> Result<Severity, String> {
    match &node.value {
        Node::Str(s) if s == "hard" => Ok(Severity::Hard),
        Node::Str(s) if s == "soft" => Ok(Severity::Soft),
        Node::Str(s) => Err(format!("severity `{s}` is not `hard` or `soft`; write `severity: soft` or leave it out")),
        other => Err(format!("severity must be `hard` or `soft`, found {}", other.kind())),
    }
}

/// Validates one assertion entry. Accepted shapes:
/// `forbidden_text: "x"`, `forbidden_text: { value|regex: "x", severity: soft }`,
/// `{ forbidden_text: "x", severity: soft }` and Mneme's
/// `{ type: forbidden_dependency, value: "x" }`.
fn parse_assertion(node: &Spanned<Node>, patterns: &Patterns) -> Result<Assertion, String> {
    let Node::Map(entries) = &node.value else {
        return Err(format!(
            "an assertion is a mapping such as `- forbidden_text: \"TODO\"`, found {}",
            node.value.kind()
        ));
    };
    if entries.iter().any(|(k, _)| k.value == "type") {
        return parse_typed_assertion(entries, patterns);
    }
    let mut outer_severity = None;
    let mut typed = Vec::new();
    for (k, v) in entries {
        if k.value == "severity" {
            outer_severity = Some(v);
        } else {
            typed.push((k, v));
        }
    }
    let (key, value) = match typed.as_slice() {
        [] => return Err(format!("the assertion has no type key; start it with one of {}", type_list())),
        [one] => *one,
        many => {
            let keys: Vec<String> = many.iter().map(|(k, _)| format!("`{}`", k.value)).collect();
            return Err(format!(
                "the assertion has several keys ({}) but takes one type key and an optional \
                 `severity`; split it into separate list entries",
                keys.join(", ")
            ));
        }
    };
    let kind = AssertionKind::from_key(&key.value).ok_or_else(|| unknown_type(&key.value))?;
    let mut severity = match outer_severity {
        Some(s) => Some(parse_severity(s)?),
        None => None,
    };
    let (text, is_regex) = match &value.value {
        Node::Str(s) => (s.clone(), false),
        Node::Map(inner) => {
            let mut val = None;
            let mut re = None;
            for (k, v) in inner {
                match k.value.as_str() {
                    "value" => val = Some(v),
                    "regex" => re = Some(v),
                    "severity" => {
                        if severity.is_some() {
                            return Err(format!("`{}` gives `severity` twice; give it once", kind.as_str()));
                        }
                        severity = Some(parse_severity(v)?);
                    }
                    other => {
                        let mut msg = format!("unknown key `{other}` in `{}`", kind.as_str());
                        if let Some(s) = suggest(other, &["value", "regex", "severity"]) {
                            msg.push_str(&format!(" (did you mean `{s}`?)"));
                        }
                        msg.push_str("; allowed keys are value, regex, severity");
                        return Err(msg);
                    }
                }
            }
            match (val, re) {
                (Some(v), None) => (string_value(kind, "value", v)?, false),
                (None, Some(r)) => (string_value(kind, "regex", r)?, true),
                (Some(_), Some(_)) => {
                    return Err(format!("`{}` has both `value` and `regex`; give one of them", kind.as_str()))
                }
                (None, None) => return Err(format!("`{}` needs `value: \"...\"` or `regex: \"...\"`", kind.as_str())),
            }
        }
        other => {
            return Err(format!(
                "the value of `{}` must be a string or a mapping with `value` or `regex`, \
                 found {}{}",
                kind.as_str(),
                other.kind(),
                other.quote_hint()
            ))
        }
    };
    build_assertion(kind, text, is_regex, severity.unwrap_or_default(), patterns)
}

fn string_value(kind: AssertionKind, key: &str, node: &Spanned<Node>) -> Result<String, String> {
    match &node.value {
        Node::Str(s) => Ok(s.clone()),
        other => {
            Err(format!("`{}.{key}` must be a string, found {}{}", kind.as_str(), other.kind(), other.quote_hint()))
        }
    }
}

/// Mneme's shape: `{"type": "...", "value": "..."}` (plus `regex` and
/// `severity`, which Mneme does not have but a native suite may use).
fn parse_typed_assertion(
    entries: &[(Spanned<String>, Spanned<Node>)],
    patterns: &Patterns,
) -> Result<Assertion, String> {
    let mut kind = None;
    let mut val = None;
    let mut re = None;
    let mut severity = Severity::Hard;
    for (k, v) in entries {
        match k.value.as_str() {
            "type" => match &v.value {
                Node::Str(t) => kind = Some(AssertionKind::from_key(t).ok_or_else(|| unknown_type(t))?),
                other => return Err(format!("the assertion `type` must be a string, found {}", other.kind())),
            },
            "value" => val = Some(v),
            "regex" => re = Some(v),
            "severity" => severity = parse_severity(v)?,
            other => {
                let mut msg = format!("unknown key `{other}` in an assertion");
                if let Some(s) = suggest(other, &["type", "value", "regex", "severity"]) {
                    msg.push_str(&format!(" (did you mean `{s}`?)"));
                }
                msg.push_str("; allowed keys are type, value, regex, severity");
                return Err(msg);
            }
        }
    }
    let kind = kind.ok_or("the assertion has no `type`")?;
    let (text, is_regex) = match (val, re) {
        (Some(v), None) => (string_value(kind, "value", v)?, false),
        (None, Some(r)) => (string_value(kind, "regex", r)?, true),
        (Some(_), Some(_)) => {
            return Err(format!("`{}` has both `value` and `regex`; give one of them", kind.as_str()))
        }
        (None, None) => return Err(format!("`{}` has no `value`", kind.as_str())),
    };
    build_assertion(kind, text, is_regex, severity, patterns)
}

fn build_assertion(
    kind: AssertionKind,
    text: String,
    is_regex: bool,
    severity: Severity,
    patterns: &Patterns,
) -> Result<Assertion, String> {
    if text.trim().is_empty() {
        return Err(format!(
            "`{}` has an empty value, which would match everything; give the text to look for",
            kind.as_str()
        ));
    }
    let matcher = if is_regex {
        if kind.needs_structured() {
            return Err(format!(
                "`{}` takes a plain `value` (a substring), not a `regex`; regexes are for \
                 forbidden_text and required_text",
                kind.as_str()
            ));
        }
        let pattern = patterns.compile(&text).map_err(|e| format!("`{}` has an invalid regex: {e}", kind.as_str()))?;
        Matcher::Regex(pattern)
    } else {
        Matcher::Substring(text)
    };
    Ok(Assertion { kind, matcher, severity })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source compiled once answers every later request for it, from any
    /// thread: the same regex for the same source, a different one for
    /// another, and an invalid source's error, worded as `Pattern::new`
    /// words it, every time.
    #[test]
    fn a_suite_compiles_each_regex_once_and_answers_as_compiling_it_would() {
        use rayon::prelude::*;
        let sources = ["(?i)import psycopg2", "a+b", "(?i)import psycopg2", "a(", "[z-a]", "a+b", "a("];
        let patterns = Patterns::default();
        for _ in 0..2 {
            let got: Vec<Result<Pattern, String>> = sources.par_iter().map(|s| patterns.compile(s)).collect();
            for (source, got) in sources.iter().zip(got) {
                match (got, Pattern::new(source)) {
                    (Ok(got), Ok(_)) => {
                        assert_eq!(got.as_str(), *source);
                        assert_eq!(got.is_match("import PSYCOPG2"), source.starts_with("(?i)"));
                    }
                    (Err(got), Err(want)) => assert_eq!(got, want),
                    (got, want) => panic!("{source}: {got:?} against {want:?}"),
                }
            }
        }
        assert_eq!(patterns.len(), 4, "one entry per distinct source");
    }

    /// What `regex::Regex` says of `source` on `texts`: its error, or for
    /// each text whether it matches and its leftmost-first match.
    fn as_regex_says(source: &str, texts: &[&str]) -> Result<Vec<(bool, Option<String>)>, String> {
        let regex = regex::Regex::new(source).map_err(|e| one_line(&e.to_string()))?;
        Ok(texts.iter().map(|t| (regex.is_match(t), regex.find(t).map(|m| m.as_str().to_string()))).collect())
    }

    fn as_pattern_says(source: &str, texts: &[&str]) -> Result<Vec<(bool, Option<String>)>, String> {
        let pattern = Pattern::new(source)?;
        Ok(texts.iter().map(|t| (pattern.is_match(t), pattern.find(t).map(str::to_string))).collect())
    }

    /// Built without the prefilter, a pattern matches and fails as
    /// `regex::Regex` does: the same matches, the same errors (syntax, a
    /// class that can match invalid UTF-8, the size limit).
    #[test]
    fn a_pattern_matches_and_fails_as_the_regex_crate_does() {
        let texts = [
            "",
            "import psycopg2",
            "from x IMPORT Psycopg2 as pg",
            "ſtraße KELVIN \u{212A}",
            "é\u{301}",
            "line one\nline two",
            "aaaa",
        ];
        let sources = [
            "(?i)import psycopg2",
            "(?i)import\\s+\\w+",
            "a*",
            "^$",
            "(?m)^line",
            "\\bIMPORT\\b",
            "(?i)k",
            "(?i)s",
            "[é]",
            ".",
            "a(",
            "[z-a]",
            "(?-u:\\xFF)",
            "\\p{Greek}+",
            "a{1000}{1000}",
            "(?i)\\w{400}{400}",
            "x{2,1}",
        ];
        for source in sources {
            assert_eq!(as_pattern_says(source, &texts), as_regex_says(source, &texts), "{source}");
        }
    }

    proptest::proptest! {
        #[test]
        fn generated_patterns_match_as_the_regex_crate_does(
            source in "(\\(\\?i\\))?[aAsſk.*+?|()\\[\\]^$-]{0,10}",
            texts in proptest::collection::vec("[aAsSſkK\u{212A}\n .-]{0,12}", 1..6),
        ) {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(as_pattern_says(&source, &texts), as_regex_says(&source, &texts));
        }
    }
}
