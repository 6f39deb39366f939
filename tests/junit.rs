//! The JUnit XML as CI dashboards read it (the surefire and Jenkins schema
//! semantics), checked with a reader written here rather than the library
//! that writes the file: well-formed, every testsuite with `name`, `tests`,
//! `failures`, `errors`, `skipped` and `time`, and counts that add up
//! (tests = passed + failures + errors + skipped, per suite and in total);
//! the gate in a testsuite of its own, so a single regression reads as one
//! failing scenario and the rules it broke; the same bytes on every run.

mod common;

use common::Test;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `run` with `args`, the JUnit report on standard output; its exit code and
/// the XML.
fn junit(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Test::new().arg("run").args(args).args(["--junit", "-"]).dir(dir).run();
    (out.status.code(), out.stdout)
}

// --- A small XML reader: elements, attributes, text and the five entities
// --- plus character references; anything else is not well-formed.

#[derive(Debug, Default)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn count(&self, name: &str) -> usize {
        let value = self.attr(name).unwrap_or_else(|| panic!("<{}> has no `{name}`", self.name));
        value.parse().unwrap_or_else(|_| panic!("<{}> {name}=\"{value}\" is not a count", self.name))
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

struct Reader<'a> {
    s: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn fail(&self, what: &str) -> ! {
        let line = self.s[..self.pos].matches('\n').count() + 1;
        panic!("not well-formed XML at line {line}: {what}: {:?}", &self.rest()[..self.rest().len().min(60)]);
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\n', '\r', '\t']);
        self.pos = self.s.len() - trimmed.len();
    }

    fn expect(&mut self, token: &str) {
        if !self.rest().starts_with(token) {
            self.fail(&format!("expected `{token}`"));
        }
        self.pos += token.len();
    }

    fn name(&mut self) -> String {
        let end = self
            .rest()
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')))
            .unwrap_or(self.rest().len());
        if end == 0 {
            self.fail("expected a name");
        }
        let name = self.rest()[..end].to_string();
        self.pos += end;
        name
    }

    /// Character data up to `stop`, entities resolved.
    fn chars_until(&mut self, stop: char) -> String {
        let mut out = String::new();
        loop {
            let Some(c) = self.rest().chars().next() else { self.fail("unexpected end") };
            if c == stop {
                return out;
            }
            match c {
                '&' => {
                    let end = self.rest().find(';').unwrap_or_else(|| self.fail("unterminated entity"));
                    let entity = &self.rest()[1..end];
                    out.push(match entity {
                        "lt" => '<',
                        "gt" => '>',
                        "amp" => '&',
                        "quot" => '"',
                        "apos" => '\'',
                        e if e.starts_with("#x") => char::from_u32(u32::from_str_radix(&e[2..], 16).unwrap())
                            .unwrap_or_else(|| self.fail("bad character reference")),
                        e if e.starts_with('#') => char::from_u32(e[1..].parse().unwrap())
                            .unwrap_or_else(|| self.fail("bad character reference")),
                        _ => self.fail("unknown entity"),
                    });
                    self.pos += end + 1;
                }
                '<' if stop == '"' => self.fail("`<` in an attribute value"),
                c if (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t') => self.fail("a control character"),
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn element(&mut self) -> Element {
        self.expect("<");
        let mut e = Element { name: self.name(), ..Element::default() };
        loop {
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                return e;
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                break;
            }
            let name = self.name();
            if e.attr(&name).is_some() {
                self.fail("an attribute given twice");
            }
            self.expect("=\"");
            let value = self.chars_until('"');
            self.pos += 1;
            e.attributes.push((name, value));
        }
        loop {
            if self.rest().starts_with("</") {
                self.pos += 2;
                let name = self.name();
                if name != e.name {
                    self.fail(&format!("</{name}> closes <{}>", e.name));
                }
                self.expect(">");
                return e;
            }
            if self.rest().starts_with('<') {
                e.children.push(self.element());
            } else {
                let text = self.chars_until('<');
                e.text.push_str(&text);
            }
        }
    }
}

fn parse(xml: &str) -> Element {
    let mut r = Reader { s: xml, pos: 0 };
    r.expect("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    r.skip_ws();
    let root = r.element();
    r.skip_ws();
    if r.pos != xml.len() {
        r.fail("content after the root element");
    }
    root
}

/// What a dashboard counts in one testsuite.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Counts {
    tests: usize,
    passed: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

/// Checks the schema's required attributes and that every count adds up;
/// returns the counts of every testsuite by name.
fn checked(xml: &str) -> Vec<(String, Counts, Vec<String>)> {
    let root = parse(xml);
    assert_eq!(root.name, "testsuites");
    let mut out = Vec::new();
    let mut total = Counts::default();
    for suite in &root.children {
        assert_eq!(suite.name, "testsuite", "only testsuites under <testsuites>");
        let name = suite.attr("name").expect("a testsuite has a name").to_string();
        let time: f64 = suite.attr("time").expect("a testsuite has a time").parse().expect("a time in seconds");
        assert!(time >= 0.0);
        let mut seen = Counts::default();
        let mut classnames = Vec::new();
        for case in &suite.children {
            if matches!(case.name.as_str(), "properties" | "system-out" | "system-err") {
                continue;
            }
            assert_eq!(case.name, "testcase", "in {name}");
            assert!(case.attr("name").is_some_and(|n| !n.is_empty()), "a testcase has a name");
            classnames.push(case.attr("classname").expect("a testcase has a classname").to_string());
            let t: f64 = case.attr("time").expect("a testcase has a time").parse().unwrap();
            assert!(t >= 0.0);
            let outcomes: Vec<&str> = case
                .children
                .iter()
                .map(|c| c.name.as_str())
                .filter(|n| matches!(*n, "failure" | "error" | "skipped"))
                .collect();
            assert!(outcomes.len() <= 1, "one outcome per testcase: {outcomes:?}");
            seen.tests += 1;
            match outcomes.first() {
                None => seen.passed += 1,
                Some(&"failure") => {
                    let f = case.child("failure").unwrap();
                    assert!(f.attr("message").is_some_and(|m| !m.is_empty()) && f.attr("type").is_some(), "{f:?}");
                    seen.failures += 1;
                }
                Some(&"error") => seen.errors += 1,
                _ => seen.skipped += 1,
            }
        }
        let declared = Counts {
            tests: suite.count("tests"),
            passed: seen.passed,
            failures: suite.count("failures"),
            errors: suite.count("errors"),
            skipped: suite.count("skipped"),
        };
        assert_eq!(declared, seen, "the counts of testsuite {name}");
        assert_eq!(seen.tests, seen.passed + seen.failures + seen.errors + seen.skipped);
        assert_eq!(suite.count("disabled"), 0, "nothing is disabled: skipped is skipped");
        total.tests += seen.tests;
        total.failures += seen.failures;
        total.errors += seen.errors;
        out.push((name, seen, classnames));
    }
    assert_eq!(
        (root.count("tests"), root.count("failures"), root.count("errors")),
        (total.tests, total.failures, total.errors),
        "the totals of <testsuites>"
    );
    out
}

#[test]
fn a_single_regression_is_one_failing_scenario_and_the_rules_it_broke() {
    // docs/examples/gate: provider-call goes from PASS to WEAK_RETRIEVAL.
    let (code, xml) = junit(&root(), &["--config", "docs/examples/gate/mneme-gate.yaml"]);
    assert_eq!(code, Some(1));
    let suites = checked(&xml);
    let names: Vec<&str> = suites.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["uncategorised", "mneme-gate.gate"]);
    let (_, scenarios, classnames) = &suites[0];
    assert_eq!((scenarios.tests, scenarios.failures), (3, 1));
    assert!(classnames.iter().all(|c| c == "uncategorised"));
    let (_, gate, classnames) = &suites[1];
    assert_eq!((gate.tests, gate.failures, gate.passed), (7, 3, 4));
    assert!(classnames.iter().all(|c| c == "gate"), "{classnames:?}");

    // A dashboard that shows only the message reads each as a failure.
    let root = parse(&xml);
    let gate = root.children("testsuite").find(|s| s.attr("name") == Some("mneme-gate.gate")).unwrap();
    let messages: Vec<(&str, &str)> = gate
        .children("testcase")
        .filter_map(|c| c.child("failure").map(|f| (c.attr("name").unwrap(), f.attr("message").unwrap())))
        .collect();
    assert_eq!(
        messages,
        [
            ("recall", "1 governed scenario misses an expected decision (recall@3 below 1.0): provider-call"),
            ("weak_retrieval", "1 scenario is WEAK_RETRIEVAL: provider-call"),
            ("verdict_regression", "1 scenario regressed (verdict worse than in the baseline): provider-call"),
        ]
    );
    let scenario = root.child("testsuite").unwrap().children("testcase").find(|c| c.child("failure").is_some());
    let failure = scenario.unwrap().child("failure").unwrap();
    assert_eq!(failure.attr("type"), Some("WEAK_RETRIEVAL"));
    assert!(failure.text.contains("missing: PAY-002"), "{}", failure.text);
}

#[test]
fn every_verdict_and_rule_mode_counts_as_the_schema_says() {
    // The broken suite: every verdict, WEAK skipped, MALFORMED and FAIL
    // failures.
    let (code, xml) = junit(
        &root(),
        &[
            "--memory",
            "tests/fixtures/suites/broken/project_memory.json",
            "--scenarios",
            "tests/fixtures/suites/broken",
            "--no-baseline",
        ],
    );
    assert_eq!(code, Some(1));
    let suites = checked(&xml);
    let skipped: usize = suites.iter().map(|(_, c, _)| c.skipped).sum();
    assert!(skipped > 0, "WEAK scenarios are skipped: {suites:?}");

    // Advisory and off rules: passed with the details, and skipped.
    let dir = tempfile::tempdir().unwrap();
    // The configuration names paths inside its own repository: the example's files are copied in.
    let gate = root().join("docs/examples/gate");
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    for file in ["memory-v2.json", "scenarios/payments.yaml", "baseline.json"] {
        std::fs::copy(gate.join(file), dir.path().join(file)).unwrap();
    }
    let config = "memory: memory-v2.json\nscenarios: [scenarios]\nbaseline: baseline.json\nretrieval:\n  profile: classic\ngate:\n  recall: advisory\n  weak_retrieval: off\n  verdict_regression: off\n";
    std::fs::write(dir.path().join("mneme-gate.yaml"), config).unwrap();
    let (code, xml) = junit(dir.path(), &[]);
    assert_eq!(code, Some(0), "{xml}");
    let suites = checked(&xml);
    let (_, counts, _) = suites.iter().find(|(n, _, _)| n == "mneme-gate.gate").unwrap();
    assert_eq!((counts.tests, counts.failures, counts.skipped, counts.passed), (7, 0, 2, 5));
    assert!(xml.contains("<system-out>advisory: 1 governed scenario misses an expected decision"), "{xml}");
}

#[test]
fn the_same_run_writes_the_same_bytes_and_time_only_with_timings() {
    let args = ["--config", "docs/examples/gate/mneme-gate.yaml"];
    let (_, a) = junit(&root(), &args);
    let (_, b) = junit(&root(), &args);
    assert_eq!(a, b);
    assert_eq!(a.matches(" time=").count(), a.matches(" time=\"0.000\"").count(), "{a}");
    assert!(!a.contains("timestamp"));
    // With --timings the total is measured (the unit tests pin its value);
    // the file is still valid and its suites' times still 0.
    let (_, timed) = junit(&root(), &["--config", "docs/examples/gate/mneme-gate.yaml", "--timings"]);
    let total = parse(&timed);
    assert!(total.attr("time").unwrap().parse::<f64>().is_ok());
    assert!(total.children.iter().all(|s| s.attr("time") == Some("0.000")));
    checked(&timed);
}

#[test]
fn the_reader_refuses_what_is_not_well_formed() {
    for bad in [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a><b></a>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a x=\"1\" x=\"2\"/>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>&nope;</a>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>\u{1b}</a>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/><b/>",
    ] {
        assert!(std::panic::catch_unwind(|| parse(bad)).is_err(), "{bad:?} was read");
    }
    let ok = parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a k=\"&lt;&#x41;&#66;\">t&amp;u<b/></a>\n");
    assert_eq!((ok.attr("k"), ok.text.as_str(), ok.children.len()), (Some("<AB"), "t&u", 1));
}
