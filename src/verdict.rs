/*!
Verdicts: reading a scenario's responses, checking its assertions against
them, and deciding PASS, FAIL, WEAK, WEAK_RETRIEVAL or MALFORMED
(scenarios.md §3-4).

Why response files are read here and not when the suite is loaded: a missing
or broken response is the problem of one scenario (MALFORMED, with the
reason), never of the whole run. Everything in this module is a pure function
of the scenario, the ids that retrieval missed and the response files on
disk, so scenarios can be judged in parallel.

What it deliberately does not do: retrieve decisions (the caller says which
expected ids were missed), compute metrics, or decide the exit code.

Trigger conventions follow Mneme's benchmark: a violated assertion is one
violation; its triggers are the matching entries of the response
(`dependencies_added` / `files_changed` entries as written, in response
order), listed assertion by assertion, for both sides whatever the verdict;
a refused answer has no violations and no triggers; the explanation quotes
the first three triggers.
*/

use std::fmt;
use std::fs;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::scenarios::{
    Assertion, AssertionKind, Matcher, ParsedAssertion, ResponseFormat, ResponseRef, Scenario, Severity,
};

/// How many triggers an explanation quotes (Mneme quotes three).
const QUOTED_TRIGGERS: usize = 3;

/// The outcome of one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Pass,
    Fail,
    Weak,
    WeakRetrieval,
    Malformed,
}

impl Verdict {
    /// All verdicts, best first.
    pub const ALL: [Verdict; 5] =
        [Verdict::Pass, Verdict::Weak, Verdict::WeakRetrieval, Verdict::Fail, Verdict::Malformed];

    /// Higher is better: PASS 4 > WEAK 3 > WEAK_RETRIEVAL 2 > FAIL 1 >
    /// MALFORMED 0 (the order the baseline comparison uses).
    pub fn severity_rank(self) -> u8 {
        match self {
            Verdict::Pass => 4,
            Verdict::Weak => 3,
            Verdict::WeakRetrieval => 2,
            Verdict::Fail => 1,
            Verdict::Malformed => 0,
        }
    }

    /// True when `self` is a worse outcome than `other`.
    pub fn is_worse_than(self, other: Verdict) -> bool {
        self.severity_rank() < other.severity_rank()
    }

    /// `PASS`, `FAIL`, `WEAK`, `WEAK_RETRIEVAL`, `MALFORMED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Weak => "WEAK",
            Verdict::WeakRetrieval => "WEAK_RETRIEVAL",
            Verdict::Malformed => "MALFORMED",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Verdict {
    type Err = String;

    fn from_str(s: &str) -> Result<Verdict, String> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| format!("unknown verdict `{s}`; expected PASS, FAIL, WEAK, WEAK_RETRIEVAL or MALFORMED"))
    }
}

/// The verdict of one scenario and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerdictResult {
    pub verdict: Verdict,
    /// One line, saying why (and, when something is wrong, what to do).
    pub explanation: String,
    /// Triggers found in the control answer, assertion by assertion.
    pub control_triggers: Vec<String>,
    /// Triggers found in the governed answer, assertion by assertion.
    pub governed_triggers: Vec<String>,
    /// Expected ids that retrieval missed (as given by the caller).
    pub missing: Vec<String>,
    /// Things the run should tell the user (e.g. a Mneme `.txt` side checked
    /// with `expected_failure_terms`).
    pub warnings: Vec<String>,
    /// Violated assertions (hard and soft) in the control answer (Mneme's
    /// `baseline_violation_count`); 0 when there is none.
    pub control_violations: usize,
    /// Violated assertions (hard and soft) in the governed answer (Mneme's
    /// `enhanced_violation_count`).
    pub governed_violations: usize,
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

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
        let msg = e.to_string();
        let msg = msg.rsplit_once(" at line ").map_or(msg.as_str(), |(m, _)| m);
        // serde_json says column 0 when the error is at the very start of a
        // line (typically the end of the file); columns here are 1-based.
        format!("invalid JSON at line {}, column {}: {msg}", e.line(), e.column().max(1))
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

fn json_kind(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".to_string(),
        serde_json::Value::Bool(b) => format!("`{b}`"),
        serde_json::Value::Number(n) => format!("the number {n}"),
        serde_json::Value::String(_) => "a string".to_string(),
        serde_json::Value::Array(_) => "a list".to_string(),
        serde_json::Value::Object(_) => "an object".to_string(),
    }
}

/// Reads a response named by a scenario. The error is the reason the
/// scenario is MALFORMED (one line, names the file).
pub fn read_response(response: &ResponseRef) -> Result<Response, String> {
    let (declared, path, format) = match response {
        ResponseRef::Unusable { reason, .. } => return Err(reason.clone()),
        ResponseRef::Resolved { declared, path, format } => (declared, path, *format),
    };
    let bytes = fs::read(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("`{declared}` does not exist (looked for {}); create it or fix the path", path.display())
        } else {
            format!("cannot read `{declared}` ({}): {e}", path.display())
        }
    })?;
    let text = String::from_utf8(bytes).map_err(|_| format!("`{declared}` is not valid UTF-8; save it as UTF-8"))?;
    match format {
        ResponseFormat::Structured => {
            parse_structured(&text).map(Response::Structured).map_err(|e| format!("`{declared}`: {e}"))
        }
        ResponseFormat::Text | ResponseFormat::MnemeText => {
            Ok(Response::Text(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()))
        }
    }
}

// ---------------------------------------------------------------------------
// Checking one answer
// ---------------------------------------------------------------------------

/// The assertions checked against one answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SideCheck {
    /// Violated hard assertions.
    pub hard_violations: usize,
    /// Violated soft assertions.
    pub soft_violations: usize,
    /// Every trigger, assertion by assertion, duplicates dropped.
    pub triggers: Vec<String>,
    /// The triggers of hard assertions.
    pub hard_triggers: Vec<String>,
    /// The triggers of soft assertions.
    pub soft_triggers: Vec<String>,
}

impl SideCheck {
    pub fn violations(&self) -> usize {
        self.hard_violations + self.soft_violations
    }
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|t| t == item) {
        list.push(item.to_string());
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// The triggers of one assertion against one answer; empty when it holds.
pub fn triggers_of(assertion: &Assertion, response: &Response) -> Vec<String> {
    if response.refused() {
        return Vec::new();
    }
    let (files, deps): (&[String], &[String]) = match response {
        Response::Structured(s) => (&s.files_changed, &s.dependencies_added),
        Response::Text(_) => (&[], &[]),
    };
    let entry_matches = |entry: &str, case_insensitive: bool| match &assertion.matcher {
        Matcher::Substring(v) if case_insensitive => contains_ci(entry, v),
        Matcher::Substring(v) => entry.contains(v.as_str()),
        Matcher::Regex(p) => p.regex().is_match(entry),
    };
    let text = response.text();
    match assertion.kind {
        AssertionKind::ForbiddenDependency => deps.iter().filter(|d| entry_matches(d, true)).cloned().collect(),
        AssertionKind::ForbiddenPath => files.iter().filter(|f| entry_matches(f, false)).cloned().collect(),
        AssertionKind::ForbiddenText => match &assertion.matcher {
            Matcher::Substring(v) => {
                if contains_ci(text, v) {
                    vec![v.clone()]
                } else {
                    Vec::new()
                }
            }
            Matcher::Regex(p) => match p.regex().find(text) {
                Some(m) if !m.as_str().is_empty() => vec![m.as_str().to_string()],
                Some(_) => vec![format!("/{}/", p.as_str())],
                None => Vec::new(),
            },
        },
        AssertionKind::RequiredText => {
            let (present, shown) = match &assertion.matcher {
                Matcher::Substring(v) => (contains_ci(text, v), v.clone()),
                Matcher::Regex(p) => (p.regex().is_match(text), format!("/{}/", p.as_str())),
            };
            if present {
                Vec::new()
            } else {
                vec![format!("missing: {shown}")]
            }
        }
    }
}

/// Checks every assertion against one answer. A refused structured answer
/// has no violations at all.
pub fn check_response(assertions: &[&Assertion], response: &Response) -> SideCheck {
    let mut check = SideCheck::default();
    if response.refused() {
        return check;
    }
    for a in assertions {
        let triggers = triggers_of(a, response);
        if triggers.is_empty() {
            continue;
        }
        let (count, list) = match a.severity {
            Severity::Hard => (&mut check.hard_violations, &mut check.hard_triggers),
            Severity::Soft => (&mut check.soft_violations, &mut check.soft_triggers),
        };
        *count += 1;
        for t in &triggers {
            push_unique(list, t);
            push_unique(&mut check.triggers, t);
        }
    }
    check
}

/// Checks a Mneme `.txt` side with `expected_failure_terms` as hard,
/// case-insensitive forbidden text (each term found is one violation).
pub fn check_failure_terms(terms: &[String], text: &str) -> SideCheck {
    let mut check = SideCheck::default();
    for term in terms {
        if contains_ci(text, term) {
            check.hard_violations += 1;
            push_unique(&mut check.hard_triggers, term);
            push_unique(&mut check.triggers, term);
        }
    }
    check
}

// ---------------------------------------------------------------------------
// Judging a scenario
// ---------------------------------------------------------------------------

/// One side (control or governed) after reading and checking.
struct Side {
    check: SideCheck,
    refused: bool,
}

/// Reads and checks one side; problems go to `reasons` (MALFORMED).
fn evaluate_side(
    name: &str,
    response: &ResponseRef,
    assertions: &[&Assertion],
    scenario: &Scenario,
    reasons: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Option<Side> {
    let read = read_response(response).map_err(|e| reasons.push(format!("{name} response: {e}")));
    let (Ok(read), ResponseRef::Resolved { declared, format, .. }) = (read, response) else {
        return None;
    };
    if *format != ResponseFormat::MnemeText {
        return Some(Side { check: check_response(assertions, &read), refused: read.refused() });
    }
    let terms = &scenario.expected_failure_terms;
    if let Some(i) = terms.iter().position(|t| t.trim().is_empty()) {
        reasons.push(format!("expected_failure_terms[{i}] is empty, which would match everything; remove it"));
        return None;
    }
    let stem = declared.strip_suffix(".txt").unwrap_or(declared);
    warnings.push(if terms.is_empty() {
        format!(
            "{}: {declared} has no {stem}.json sibling and the scenario has no \
             expected_failure_terms, so nothing can trigger on it; add {stem}.json",
            scenario.id
        )
    } else {
        format!(
            "{}: {declared} has no {stem}.json sibling; it was checked with \
             expected_failure_terms as case-insensitive forbidden text (add {stem}.json to \
             check the assertions)",
            scenario.id
        )
    });
    Some(Side { check: check_failure_terms(terms, read.text()), refused: false })
}

/// Dependency and path assertions need structured responses: one reason per
/// such assertion when a side of the scenario is a (native) text response.
fn structured_only_reasons(scenario: &Scenario) -> Vec<String> {
    let text_sides: Vec<String> = [("control", &scenario.control), ("governed", &scenario.governed)]
        .into_iter()
        .filter_map(|(name, r)| match r {
            Some(ResponseRef::Resolved { declared, format: ResponseFormat::Text, .. }) => {
                Some(format!("{name} response `{declared}`"))
            }
            _ => None,
        })
        .collect();
    if text_sides.is_empty() {
        return Vec::new();
    }
    scenario
        .assertions
        .iter()
        .filter_map(|spec| match &spec.parsed {
            ParsedAssertion::Valid(a) if a.kind.needs_structured() => {
                let field = match a.kind {
                    AssertionKind::ForbiddenDependency => "dependencies_added",
                    _ => "files_changed",
                };
                Some(format!(
                    "{} `{}` cannot be checked against text ({}); use a .json response with `{field}`",
                    spec.position(),
                    a.kind.as_str(),
                    text_sides.join(", ")
                ))
            }
            _ => None,
        })
        .collect()
}

fn quote(triggers: &[String]) -> String {
    triggers.iter().take(QUOTED_TRIGGERS).cloned().collect::<Vec<_>>().join(", ")
}

fn one_line(s: String) -> String {
    if s.contains(['\n', '\r']) {
        s.replace("\r\n", " ").replace(['\n', '\r'], " ")
    } else {
        s
    }
}

/// Judges one scenario: reads its responses, checks its assertions and
/// applies the rules of scenarios.md §4 in order. `missed` are the expected
/// ids that retrieval did not return (empty when all were retrieved or the
/// scenario is ungoverned). Pure apart from reading the response files.
pub fn judge(scenario: &Scenario, missed: &[String]) -> VerdictResult {
    let mut reasons = Vec::new();
    let mut warnings = Vec::new();
    let mut assertions = Vec::new();
    for spec in &scenario.assertions {
        match &spec.parsed {
            ParsedAssertion::Valid(a) => assertions.push(a),
            ParsedAssertion::Invalid { reason } => reasons.push(format!("{}: {reason}", spec.position())),
        }
    }
    reasons.extend(structured_only_reasons(scenario));
    let control = scenario
        .control
        .as_ref()
        .and_then(|r| evaluate_side("control", r, &assertions, scenario, &mut reasons, &mut warnings));
    let governed = scenario
        .governed
        .as_ref()
        .and_then(|r| evaluate_side("governed", r, &assertions, scenario, &mut reasons, &mut warnings));

    let mut result = VerdictResult {
        verdict: Verdict::Malformed,
        explanation: String::new(),
        control_triggers: Vec::new(),
        governed_triggers: Vec::new(),
        missing: missed.to_vec(),
        warnings,
        control_violations: 0,
        governed_violations: 0,
    };

    // 1. MALFORMED: anything that could not be read, parsed or validated.
    if !reasons.is_empty() {
        result.explanation = one_line(format!("Malformed scenario: {}.", reasons.join("; ").trim_end_matches('.')));
        return result;
    }

    if let Some(c) = &control {
        result.control_triggers = c.check.triggers.clone();
        result.control_violations = c.check.violations();
    }
    if let Some(g) = &governed {
        result.governed_triggers = g.check.triggers.clone();
        result.governed_violations = g.check.violations();
    }
    let missing = missed.join(", ");

    // 2. No governed response: a retrieval-only scenario.
    let Some(governed) = governed else {
        (result.verdict, result.explanation) = if !missed.is_empty() {
            (
                Verdict::WeakRetrieval,
                format!(
                    "Retrieval-only scenario: expected decision(s) not retrieved: {missing}; the \
                     model would never see them."
                ),
            )
        } else if scenario.expect.is_empty() {
            (
                Verdict::Pass,
                "Retrieval-only scenario with nothing expected: there is no governed answer to \
                 check."
                    .to_string(),
            )
        } else {
            (
                Verdict::Pass,
                format!(
                    "Retrieval-only scenario: every expected decision was retrieved ({})",
                    scenario.expect.join(", ")
                ) + ".",
            )
        };
        result.explanation = one_line(result.explanation);
        return result;
    };

    // 3. The control answer already complies: the scenario has no teeth.
    if let Some(c) = &control {
        if c.check.violations() == 0 {
            result.verdict = Verdict::Weak;
            result.explanation = if c.refused {
                "The scenario has no teeth: the control answer refused, so it triggered no \
                 violation and a clean governed answer proves nothing; give a control answer \
                 that breaks the decision."
                    .to_string()
            } else {
                "The scenario has no teeth: the control answer triggered no violation, so a \
                 clean governed answer proves nothing; make the control answer break the \
                 decision or add an assertion it breaks."
                    .to_string()
            };
            return result;
        }
    }

    // 4. The governed answer has a hard violation.
    if governed.check.hard_violations > 0 {
        result.verdict = Verdict::Fail;
        let mut text = format!(
            "Governance did not prevent the violation: the governed answer still triggered {} \
             hard violation(s) ({}).",
            governed.check.hard_violations,
            quote(&governed.check.hard_triggers)
        );
        if !missed.is_empty() {
            text.push_str(&format!(" Expected decision(s) not retrieved: {missing}."));
        }
        result.explanation = one_line(text);
        return result;
    }

    // 5. An expected id was not retrieved: a clean answer may be luck.
    if !missed.is_empty() {
        result.verdict = Verdict::WeakRetrieval;
        result.explanation = one_line(format!(
            "The governed answer was clean, but expected decision(s) were not retrieved: \
             {missing}; the clean answer may be luck."
        ));
        return result;
    }

    // 6. The governed answer has a soft violation.
    if governed.check.soft_violations > 0 {
        result.verdict = Verdict::Weak;
        result.explanation = one_line(format!(
            "The governed answer had no hard violation but {} soft violation(s) ({}).",
            governed.check.soft_violations,
            quote(&governed.check.soft_triggers)
        ));
        return result;
    }

    // 7. PASS.
    result.verdict = Verdict::Pass;
    result.explanation = one_line(match &control {
        Some(c) => format!(
            "Governance prevented the violation: the control answer triggered {} violation(s) \
             ({}); the governed answer had none.",
            c.check.violations(),
            quote(&c.check.triggers)
        ),
        None => "The governed answer triggered no violation (there is no control answer to \
                 compare it with)."
            .to_string(),
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::{AssertionSpec, Pattern, Suite, SuiteFormat};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suites")
    }

    fn conformance_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme")
    }

    fn assertion(kind: AssertionKind, value: &str, severity: Severity) -> Assertion {
        Assertion { kind, matcher: Matcher::Substring(value.to_string()), severity }
    }

    fn regex(kind: AssertionKind, re: &str) -> Assertion {
        Assertion { kind, matcher: Matcher::Regex(Pattern::new(re).unwrap()), severity: Severity::Hard }
    }

    fn structured(json: &str) -> Response {
        Response::Structured(parse_structured(json).unwrap())
    }

    /// A scenario whose responses are written into a temporary folder.
    struct Fixture {
        dir: tempfile::TempDir,
        scenario: Scenario,
    }

    impl Fixture {
        fn new(assertions: Vec<Assertion>) -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            let scenario = Scenario {
                id: "s".into(),
                category: "c".into(),
                description: String::new(),
                task: "t".into(),
                file: None,
                expect: vec!["ADR-1".into()],
                acceptable: Vec::new(),
                control: None,
                governed: None,
                assertions: assertions
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| AssertionSpec {
                        index: i + 1,
                        line: None,
                        column: None,
                        parsed: ParsedAssertion::Valid(a),
                    })
                    .collect(),
                expected_failure_terms: Vec::new(),
                source: dir.path().join("suite.yaml"),
                line: 1,
                column: 1,
                suite_root: dir.path().to_path_buf(),
                format: SuiteFormat::Native,
            };
            Fixture { dir, scenario }
        }

        fn response(&self, name: &str, content: &str, format: ResponseFormat) -> ResponseRef {
            let path = self.dir.path().join(name);
            fs::write(&path, content).unwrap();
            ResponseRef::Resolved { declared: name.to_string(), path, format }
        }

        fn control(mut self, name: &str, content: &str) -> Fixture {
            let format = format_of(name);
            self.scenario.control = Some(self.response(name, content, format));
            self
        }

        fn governed(mut self, name: &str, content: &str) -> Fixture {
            let format = format_of(name);
            self.scenario.governed = Some(self.response(name, content, format));
            self
        }

        fn judge(&self, missed: &[&str]) -> VerdictResult {
            let missed: Vec<String> = missed.iter().map(|s| s.to_string()).collect();
            judge(&self.scenario, &missed)
        }
    }

    fn format_of(name: &str) -> ResponseFormat {
        if name.ends_with(".json") {
            ResponseFormat::Structured
        } else {
            ResponseFormat::Text
        }
    }

    fn deps_and_paths() -> Vec<Assertion> {
        vec![
            assertion(AssertionKind::ForbiddenDependency, "autogen", Severity::Hard),
            assertion(AssertionKind::ForbiddenDependency, "crewai", Severity::Hard),
            assertion(AssertionKind::ForbiddenPath, "agents/", Severity::Hard),
        ]
    }

    const VIOLATING: &str = r#"{"files_changed": ["src/agents/coordinator.py", "src/agents/worker.py", "src/tools/t.py"], "dependencies_added": ["autogen", "crewai"]}"#;
    const CLEAN: &str = r#"{"refused": false, "files_changed": ["src/ok.py"], "dependencies_added": []}"#;

    #[test]
    fn verdict_names_ranks_and_parsing() {
        assert_eq!(
            serde_json::to_string(&Verdict::ALL).unwrap(),
            r#"["PASS","WEAK","WEAK_RETRIEVAL","FAIL","MALFORMED"]"#
        );
        for pair in Verdict::ALL.windows(2) {
            assert!(pair[0].severity_rank() > pair[1].severity_rank());
            assert!(pair[1].is_worse_than(pair[0]));
        }
        for v in Verdict::ALL {
            assert_eq!(v.as_str().parse::<Verdict>(), Ok(v));
            assert_eq!(v.to_string(), v.as_str());
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
        }
        assert!("pass".parse::<Verdict>().is_err());
    }

    #[test]
    fn mneme_trigger_convention() {
        let f = Fixture::new(deps_and_paths())
            .control("c.json", VIOLATING)
            .governed("g.json", r#"{"refused": true, "files_changed": [], "dependencies_added": []}"#);
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Pass);
        assert_eq!(r.control_triggers, ["autogen", "crewai", "src/agents/coordinator.py", "src/agents/worker.py"]);
        assert!(r.governed_triggers.is_empty());
        assert_eq!((r.control_violations, r.governed_violations), (3, 0));
        assert_eq!(
            r.explanation,
            "Governance prevented the violation: the control answer triggered 3 violation(s) \
             (autogen, crewai, src/agents/coordinator.py); the governed answer had none."
        );
    }

    #[test]
    fn rules_apply_in_order() {
        let hard = || Fixture::new(deps_and_paths());
        // 2. retrieval-only
        assert_eq!(hard().judge(&[]).verdict, Verdict::Pass);
        let r = hard().judge(&["ADR-1"]);
        assert_eq!(r.verdict, Verdict::WeakRetrieval);
        assert!(r.explanation.contains("ADR-1"));
        assert_eq!(r.missing, ["ADR-1"]);
        // A control alone is still retrieval-only, but its triggers are listed.
        let r = hard().control("c.json", VIOLATING).judge(&[]);
        assert_eq!(r.verdict, Verdict::Pass);
        assert_eq!(r.control_violations, 3);
        // 3. WEAK (no teeth) comes before FAIL and WEAK_RETRIEVAL.
        let r = hard().control("c.json", CLEAN).governed("g.json", VIOLATING).judge(&["ADR-1"]);
        assert_eq!(r.verdict, Verdict::Weak);
        assert_eq!(r.governed_triggers.len(), 4, "both sides are always listed");
        // 4. FAIL comes before WEAK_RETRIEVAL, and says what was missed.
        let r = hard().control("c.json", VIOLATING).governed("g.json", VIOLATING).judge(&["ADR-1"]);
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.explanation.starts_with(
            "Governance did not prevent the violation: the governed answer still triggered 3 hard violation(s) (autogen, crewai, src/agents/coordinator.py)."
        ));
        assert!(r.explanation.ends_with("Expected decision(s) not retrieved: ADR-1."));
        // 5. WEAK_RETRIEVAL
        let r = hard().control("c.json", VIOLATING).governed("g.json", CLEAN).judge(&["ADR-1", "ADR-2"]);
        assert_eq!(r.verdict, Verdict::WeakRetrieval);
        assert!(r.explanation.contains("ADR-1, ADR-2"));
        // 7. PASS without a control
        let r = hard().governed("g.json", CLEAN).judge(&[]);
        assert_eq!(r.verdict, Verdict::Pass);
        assert!(r.explanation.contains("no control answer"));
    }

    #[test]
    fn soft_violations() {
        let mut a = deps_and_paths();
        a.push(assertion(AssertionKind::ForbiddenText, "TODO", Severity::Soft));
        let f = Fixture::new(a).control("c.json", VIOLATING).governed("g.json", r#"{"text": "done, todo: tests"}"#);
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Weak);
        assert_eq!(r.governed_triggers, ["TODO"]);
        assert!(r.explanation.contains("1 soft violation(s) (TODO)"), "{}", r.explanation);
        // Missed retrieval outranks the soft violation.
        assert_eq!(f.judge(&["ADR-1"]).verdict, Verdict::WeakRetrieval);
        // A control with only a soft violation is not "no violation".
        let f = Fixture::new(vec![assertion(AssertionKind::ForbiddenText, "TODO", Severity::Soft)])
            .control("c.txt", "TODO later")
            .governed("g.txt", "done");
        assert_eq!(f.judge(&[]).verdict, Verdict::Pass);
    }

    #[test]
    fn refused_means_no_violations_even_for_required_text() {
        let a = vec![
            assertion(AssertionKind::RequiredText, "LedgerClient", Severity::Hard),
            assertion(AssertionKind::ForbiddenDependency, "psycopg2", Severity::Hard),
        ];
        let r = structured(r#"{"refused": true, "dependencies_added": ["psycopg2"]}"#);
        let refs: Vec<&Assertion> = a.iter().collect();
        assert_eq!(check_response(&refs, &r), SideCheck::default());
        let f = Fixture::new(a).control("c.json", r#"{"refused": true}"#).governed("g.json", "{}");
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Weak);
        assert!(r.explanation.contains("control answer refused"));
    }

    #[test]
    fn matching_rules() {
        let s = structured(
            r#"{"files_changed": ["Migrations/0001.py", "db/migrations/0002.py"], "dependencies_added": ["Psycopg2-Binary", "requests"], "text": "We call psycopg2.CONNECT here\nand create_engine(url)"}"#,
        );
        let t = |a: &Assertion| triggers_of(a, &s);
        use AssertionKind::*;
        // Dependencies: case-insensitive substring, each entry a trigger.
        assert_eq!(t(&assertion(ForbiddenDependency, "psycopg2", Severity::Hard)), ["Psycopg2-Binary"]);
        // Paths: case-sensitive substring, no globbing.
        assert_eq!(t(&assertion(ForbiddenPath, "migrations/", Severity::Hard)), ["db/migrations/0002.py"]);
        assert!(t(&assertion(ForbiddenPath, "migrations/*.py", Severity::Hard)).is_empty());
        // Text: case-insensitive substring; the trigger is the term.
        assert_eq!(t(&assertion(ForbiddenText, "psycopg2.connect", Severity::Hard)), ["psycopg2.connect"]);
        // Regex: case-sensitive unless (?i), unanchored; the trigger is the match.
        assert_eq!(t(&regex(ForbiddenText, r"create_engine\(")), ["create_engine("]);
        assert!(t(&regex(ForbiddenText, r"connect\b")).is_empty());
        assert_eq!(t(&regex(ForbiddenText, r"(?i)connect\b")), ["CONNECT"]);
        assert!(t(&regex(ForbiddenText, r"^and")).is_empty(), "no multi-line mode by default");
        // Required text.
        assert_eq!(t(&assertion(RequiredText, "LedgerClient", Severity::Hard)), ["missing: LedgerClient"]);
        assert!(t(&assertion(RequiredText, "WE CALL", Severity::Hard)).is_empty());
        assert_eq!(t(&regex(RequiredText, r"Ledger\w+")), [r"missing: /Ledger\w+/"]);
        // A regex matching the empty string is reported by its pattern.
        assert_eq!(t(&regex(ForbiddenText, r"x*")), ["/x*/"]);
    }

    #[test]
    fn triggers_are_deduplicated_across_assertions() {
        let a = [
            assertion(AssertionKind::ForbiddenPath, "agents/", Severity::Hard),
            assertion(AssertionKind::ForbiddenPath, "src/agents", Severity::Hard),
        ];
        let refs: Vec<&Assertion> = a.iter().collect();
        let c = check_response(&refs, &structured(VIOLATING));
        assert_eq!(c.hard_violations, 2);
        assert_eq!(c.triggers, ["src/agents/coordinator.py", "src/agents/worker.py"]);
    }

    #[test]
    fn structured_response_parsing() {
        assert_eq!(parse_structured("{}").unwrap(), StructuredResponse::default());
        assert_eq!(
            parse_structured("\u{feff}{\"text\": null, \"refused\": true}").unwrap(),
            StructuredResponse { refused: true, ..Default::default() }
        );
        let e = parse_structured("{\"refused\": fals").unwrap_err();
        assert!(e.starts_with("invalid JSON at line 1, column"), "{e}");
        assert!(parse_structured("[]").unwrap_err().contains("found a list"));
        let e = parse_structured(
            r#"{"refused": "no", "files_changed": "a", "dependencies_added": [1], "text": 3, "dependencies": []}"#,
        )
        .unwrap_err();
        for needle in ["`refused`", "`files_changed`", "`dependencies_added`", "`text`", "unknown field `dependencies`"]
        {
            assert!(e.contains(needle), "{needle} not in {e}");
        }
        assert!(!e.contains('\n'));
    }

    #[test]
    fn every_malformed_cause() {
        let base = || Fixture::new(deps_and_paths()).control("c.json", VIOLATING);
        let cases: Vec<(Fixture, &str)> = vec![
            (base().governed("g.json", "{\"refused\": "), "invalid JSON"),
            (base().governed("g.json", "[1]"), "must be a JSON object"),
            (base().governed("g.json", r#"{"files_changed": "x"}"#), "`files_changed` must be a list"),
            (
                base().governed("g.txt", "text"),
                "`forbidden_dependency` cannot be checked against text (governed response `g.txt`)",
            ),
            (base().governed("g.json", "\u{0}\u{0}{"), "invalid JSON"),
        ];
        for (f, needle) in cases {
            let r = f.judge(&[]);
            assert_eq!(r.verdict, Verdict::Malformed, "{needle}");
            assert!(r.explanation.contains(needle), "{needle} not in {}", r.explanation);
            assert!(r.control_triggers.is_empty() && r.governed_triggers.is_empty());
        }
        // Missing and unreadable files.
        let mut f = base();
        f.scenario.governed = Some(ResponseRef::Resolved {
            declared: "nope.json".into(),
            path: f.dir.path().join("nope.json"),
            format: ResponseFormat::Structured,
        });
        assert!(f.judge(&[]).explanation.contains("`nope.json` does not exist"));
        f.scenario.governed = Some(ResponseRef::Resolved {
            declared: ".".into(),
            path: f.dir.path().to_path_buf(),
            format: ResponseFormat::Text,
        });
        assert!(f.judge(&[]).explanation.contains("cannot read `.`"));
        let bytes = f.dir.path().join("latin1.txt");
        fs::write(&bytes, b"caf\xe9").unwrap();
        f.scenario.governed =
            Some(ResponseRef::Resolved { declared: "latin1.txt".into(), path: bytes, format: ResponseFormat::Text });
        assert!(f.judge(&[]).explanation.contains("not valid UTF-8"));
        f.scenario.governed = Some(ResponseRef::Unusable { declared: String::new(), reason: "no path".into() });
        assert_eq!(f.judge(&[]).explanation, "Malformed scenario: governed response: no path.");
        // Invalid assertions, whether or not there are responses.
        let mut f = Fixture::new(vec![]);
        f.scenario.assertions.push(AssertionSpec {
            index: 1,
            line: Some(7),
            column: Some(9),
            parsed: ParsedAssertion::Invalid { reason: "unknown assertion type `x`".into() },
        });
        let r = f.judge(&["ADR-1"]);
        assert_eq!(r.verdict, Verdict::Malformed);
        assert_eq!(r.explanation, "Malformed scenario: assertion 1 (line 7, column 9): unknown assertion type `x`.");
        assert_eq!(r.missing, ["ADR-1"], "layer 1 is recorded whatever the verdict");
    }

    #[test]
    fn mneme_text_sides_use_failure_terms_and_warn() {
        let mut f = Fixture::new(vec![assertion(AssertionKind::ForbiddenDependency, "psycopg2", Severity::Hard)]);
        f.scenario.expected_failure_terms = vec!["Postgres".into(), "alembic".into()];
        let c = f.response("without_mneme.txt", "Migrate to postgres with Alembic.", ResponseFormat::MnemeText);
        let g = f.response("with_mneme.txt", "Keep the JSON store.", ResponseFormat::MnemeText);
        f.scenario.control = Some(c);
        f.scenario.governed = Some(g);
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Pass, "{}", r.explanation);
        assert_eq!(r.control_triggers, ["Postgres", "alembic"]);
        assert_eq!(r.warnings.len(), 2);
        assert!(r.warnings[0].contains("without_mneme.txt has no without_mneme.json sibling"));
        f.scenario.expected_failure_terms.push(" ".into());
        assert_eq!(f.judge(&[]).verdict, Verdict::Malformed);
        f.scenario.expected_failure_terms.clear();
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Weak);
        assert!(r.warnings[0].contains("nothing can trigger"));
    }

    #[test]
    fn explanations_are_one_line() {
        let f = Fixture::new(vec![regex(AssertionKind::ForbiddenText, r"a\nb")])
            .control("c.txt", "a\nb")
            .governed("g.txt", "a\nb");
        let r = f.judge(&[]);
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(!r.explanation.contains('\n'), "{}", r.explanation);
    }

    #[test]
    fn judge_is_thread_safe() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Scenario>();
        assert_send_sync::<VerdictResult>();
        use rayon::prelude::*;
        let suite = Suite::load(&[fixtures().join("broken")]).unwrap();
        let seq: Vec<_> = suite.scenarios.iter().map(|s| judge(s, &[])).collect();
        let par: Vec<_> = suite.scenarios.par_iter().map(|s| judge(s, &[])).collect();
        assert_eq!(seq, par);
    }

    /// The broken suite's scenarios each say which verdict they must get
    /// and which expected ids retrieval (profile `default`, k = 3, over
    /// `broken/project_memory.json`) misses.
    #[test]
    fn broken_suite_gets_every_verdict() {
        #[derive(serde::Deserialize)]
        struct Expected {
            verdict: Verdict,
            #[serde(default)]
            missed: Vec<String>,
            #[serde(default)]
            explanation_contains: Option<String>,
        }
        let root = fixtures().join("broken");
        let expected: BTreeMap<String, Expected> =
            serde_json::from_str(&fs::read_to_string(root.join("expected-verdicts.json")).unwrap()).unwrap();
        let suite = Suite::load(&[&root]).unwrap();
        let ids: Vec<_> = suite.scenarios.iter().map(|s| s.id.clone()).collect();
        let listed: Vec<_> = expected.keys().cloned().collect();
        let mut sorted_ids = ids.clone();
        sorted_ids.sort();
        assert_eq!(sorted_ids, listed, "expected-verdicts.json lists every scenario");
        let mut seen = std::collections::BTreeSet::new();
        for s in &suite.scenarios {
            let e = &expected[&s.id];
            let r = judge(s, &e.missed);
            assert_eq!(r.verdict, e.verdict, "{}: {}", s.id, r.explanation);
            if let Some(needle) = &e.explanation_contains {
                assert!(r.explanation.contains(needle.as_str()), "{}: {}", s.id, r.explanation);
            }
            assert!(!r.explanation.contains('\n'));
            seen.insert(r.verdict.as_str());
        }
        assert_eq!(seen.len(), 5, "every verdict is exercised: {seen:?}");
    }

    /// Missing a decision never makes a verdict better.
    #[test]
    fn missed_retrieval_never_improves_a_verdict() {
        let suite = Suite::load(&[fixtures().join("broken")]).unwrap();
        for s in &suite.scenarios {
            let clean = judge(s, &[]);
            let missed = judge(s, &["ADR-404".to_string()]);
            assert!(!clean.verdict.is_worse_than(missed.verdict), "{}", s.id);
            assert_eq!(clean.control_triggers, missed.control_triggers);
            assert_eq!(clean.governed_triggers, missed.governed_triggers);
        }
    }

    /// Mneme's sample suite: every scenario PASSes with the triggers and
    /// violation counts Mneme 0.10.0 published.
    #[test]
    fn mneme_sample_matches_published_triggers() {
        let suite = Suite::load(&[conformance_dir().join("benchmarks")]).unwrap();
        let published: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(conformance_dir().join("expected-mneme-0.10.0-benchmark.json")).unwrap(),
        )
        .unwrap();
        let results = published["results"].as_array().unwrap();
        assert_eq!(results.len(), suite.scenarios.len());
        for expected in results {
            let name = expected["name"].as_str().unwrap();
            let s = suite.get(name).unwrap();
            let r = judge(s, &[]);
            assert_eq!(r.verdict.as_str(), expected["verdict"].as_str().unwrap(), "{name}");
            let strings = |v: &serde_json::Value| -> Vec<String> {
                v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
            };
            assert_eq!(r.control_triggers, strings(&expected["baseline_triggers"]), "{name}");
            assert_eq!(r.governed_triggers, strings(&expected["enhanced_triggers"]), "{name}");
            assert_eq!(r.control_violations as u64, expected["baseline_violation_count"].as_u64().unwrap());
            assert_eq!(r.governed_violations as u64, expected["enhanced_violation_count"].as_u64().unwrap());
            // Our explanation quotes the same triggers as Mneme's.
            let mneme = expected["explanation"].as_str().unwrap();
            let quoted = mneme.split_once('(').unwrap().1.split_once(')').unwrap().0;
            assert!(r.explanation.contains(&format!("({quoted})")), "{}", r.explanation);
            assert!(r.warnings.is_empty());
        }
    }
}
