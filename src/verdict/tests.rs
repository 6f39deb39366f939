//! Verdicts on hand-made scenarios, on the broken fixture suite (every
//! verdict) and on Mneme's published benchmark.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::scenarios::{AssertionSpec, Matcher, Pattern, Severity, Suite, SuiteFormat};

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
            scenario_type: Default::default(),
            commit: None,
            review: Default::default(),
            exposed: Vec::new(),
            problems: Vec::new(),
            source: dir.path().join("suite.yaml"),
            line: 1,
            column: 1,
            suite_root: dir.path().to_path_buf(),
            format: SuiteFormat::Native,
            read: Vec::new(),
        };
        Fixture { dir, scenario }
    }

    fn response(&self, name: &str, content: &str, format: ResponseFormat) -> ResponseRef {
        let path = self.dir.path().join(name);
        fs::write(&path, content).unwrap();
        self.resolved(name, path, format)
    }

    /// A response at `path`, inside the fixture's folder (the suite root),
    /// with the default cap.
    fn resolved(&self, declared: &str, path: PathBuf, format: ResponseFormat) -> ResponseRef {
        ResponseRef::Resolved {
            declared: declared.to_string(),
            path,
            format,
            canonical_root: fs::canonicalize(self.dir.path()).unwrap(),
            max_bytes: crate::scenarios::SuiteLimits::MAX_RESPONSE_BYTES,
            digest: Default::default(),
            folder: Default::default(),
        }
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
        r#"["PASS","WEAK","WEAK_RETRIEVAL","FAIL","FALSE_POSITIVE","MALFORMED"]"#
    );
    for pair in Verdict::ALL.windows(2) {
        assert!(pair[0].severity_rank() >= pair[1].severity_rank());
        assert!(!pair[0].is_worse_than(pair[1]));
    }
    // A FALSE_POSITIVE ranks with FAIL: each fails the gate.
    assert_eq!(Verdict::FalsePositive.severity_rank(), Verdict::Fail.severity_rank());
    assert!(Verdict::FalsePositive.is_worse_than(Verdict::WeakRetrieval));
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
    for needle in ["`refused`", "`files_changed`", "`dependencies_added`", "`text`", "unknown field `dependencies`"] {
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
    f.scenario.governed = Some(f.resolved("nope.json", f.dir.path().join("nope.json"), ResponseFormat::Structured));
    assert!(f.judge(&[]).explanation.contains("`nope.json` does not exist"));
    f.scenario.governed = Some(f.resolved(".", f.dir.path().to_path_buf(), ResponseFormat::Text));
    assert!(f.judge(&[]).explanation.contains("cannot read `.`"));
    let bytes = f.dir.path().join("latin1.txt");
    fs::write(&bytes, b"caf\xe9").unwrap();
    f.scenario.governed = Some(f.resolved("latin1.txt", bytes, ResponseFormat::Text));
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

// ---------------------------------------------------------------------------
// Profile `mneme`: Mneme 0.10.0's own rules for Mneme benchmark folders.

impl Fixture {
    /// A Mneme folder side as profile `mneme` reads it.
    fn mneme_side(&self, name: &str, content: &str) -> ResponseRef {
        let format = if name.ends_with(".json") { ResponseFormat::MnemeStructured } else { ResponseFormat::MnemeText };
        self.response(name, content, format)
    }

    fn judge_mneme(&self, missed: &[&str], retrieved: &[&str], scope: &[Scoped<'_>]) -> VerdictResult {
        let missed: Vec<String> = missed.iter().map(|s| s.to_string()).collect();
        judge_with(&self.scenario, &missed, &Judging { family: Family::Mneme, retrieved, scope })
    }
}

fn decision(id: &str, anti: &[&str]) -> crate::memory::Decision {
    crate::memory::Decision {
        id: id.into(),
        title: id.into(),
        tags: vec![],
        constraint: vec!["no postgres".into()],
        anti_patterns: anti.iter().map(|s| s.to_string()).collect(),
        content: String::new(),
        paths: vec![],
        kind: crate::memory::RecordKind::DecisionRecord,
        offset: 0,
        globs: vec![],
        rare: None,
    }
}

#[test]
fn mneme_text_sides_are_judged_by_the_prompt_enforcer() {
    let d = Checks::of(&decision("ADR-1", &["sqlalchemy", "introduce ORM"]));
    let scope = [Scoped { checks: &d, literal_only: false }];
    let mut f = Fixture::new(vec![]);
    f.scenario.expected_failure_terms = vec!["Postgres".into()];
    f.scenario.control = Some(f.mneme_side("without_mneme.txt", "Use Postgres and SQLAlchemy; introduce an ORM."));
    f.scenario.governed = Some(f.mneme_side("with_mneme.txt", "Keep JSON files; no ORM needed, just introduce-ORM."));
    let r = f.judge_mneme(&[], &["ADR-1"], &scope);
    // The control: the literal anti-pattern and the `no X` constraint; the
    // phrase does not match across "an". The governed: the phrase matches.
    assert_eq!(r.control_triggers, ["sqlalchemy", "postgres"]);
    assert_eq!(r.governed_triggers, ["introduce ORM"]);
    assert_eq!((r.control_violations, r.governed_violations), (2, 1));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Under `default` the same sides are checked with the failure terms.
    let d = f.judge(&[]);
    assert_eq!((d.control_triggers.as_slice(), d.verdict), (&["Postgres".to_string()][..], Verdict::Pass));
}

#[test]
fn benign_scenarios_follow_mnemes_enforcement_quality_rules() {
    let d = Checks::of(&decision("ADR-1", &["sqlalchemy"]));
    let scope = [Scoped { checks: &d, literal_only: false }];
    let benign = |governed: &str, exposed: &[&str]| {
        let mut f = Fixture::new(vec![]);
        f.scenario.scenario_type = ScenarioType::Benign;
        f.scenario.exposed = exposed.iter().map(|s| s.to_string()).collect();
        f.scenario.control = Some(f.mneme_side("without_mneme.txt", "Use SQLAlchemy."));
        f.scenario.governed = Some(f.mneme_side("with_mneme.txt", governed));
        f
    };
    // Clean, exposure met: PASS; the control side is not judged at all.
    let r = benign("Keep JSON files.", &["ADR-1"]).judge_mneme(&["ADR-1"], &["ADR-1"], &scope);
    assert_eq!((r.verdict, r.control_violations, r.control_triggers.len()), (Verdict::Pass, 0, 0));
    // A violation in benign content: FALSE_POSITIVE, whatever was missed.
    let r = benign("We removed SQLAlchemy.", &["ADR-1"]).judge_mneme(&["ADR-1"], &["ADR-1"], &scope);
    assert_eq!((r.verdict, r.governed_triggers.as_slice()), (Verdict::FalsePositive, &["sqlalchemy".to_string()][..]));
    // No contract, or one retrieval did not meet: uncheckable, before any violation.
    for exposed in [&[][..], &["ADR-2"][..]] {
        let r = benign("We removed SQLAlchemy.", exposed).judge_mneme(&[], &["ADR-1"], &scope);
        assert_eq!(r.verdict, Verdict::WeakRetrieval, "{exposed:?}");
    }
}

#[test]
fn an_unmet_exposure_contract_makes_a_clean_answer_weak_retrieval() {
    let mut f = Fixture::new(deps_and_paths());
    f.scenario.exposed = vec!["ADR-9".into()];
    f.scenario.control = Some(f.mneme_side("without_mneme.json", VIOLATING));
    f.scenario.governed = Some(f.mneme_side("with_mneme.json", CLEAN));
    assert_eq!(f.judge_mneme(&[], &["ADR-1"], &[]).verdict, Verdict::WeakRetrieval);
    assert_eq!(f.judge_mneme(&[], &["ADR-1", "ADR-9"], &[]).verdict, Verdict::Pass);
    // Missed expected ids come first, as in Mneme.
    let r = f.judge_mneme(&["ADR-1"], &[], &[]);
    assert!(r.explanation.contains("ADR-1") && !r.explanation.contains("ADR-9"), "{}", r.explanation);
}

#[test]
fn mneme_json_answers_and_problems_found_at_load() {
    // Mneme ignores unknown keys, lists every trigger (repeats kept), and a
    // `null` field is a wrong type.
    let f = Fixture::new(deps_and_paths());
    let lenient = f.mneme_side("a.json", r#"{"dependencies_added": ["crewai", "crewai"], "text": 5, "notes": []}"#);
    let mut g = Fixture::new(deps_and_paths());
    g.scenario.control = Some(lenient);
    g.scenario.governed = Some(g.mneme_side("with_mneme.json", CLEAN));
    let r = g.judge_mneme(&[], &[], &[]);
    assert_eq!(
        (r.control_violations, r.control_triggers.as_slice()),
        (1, &["crewai".to_string(), "crewai".to_string()][..])
    );
    g.scenario.governed = Some(g.mneme_side("with_mneme.json", r#"{"files_changed": null}"#));
    let r = g.judge_mneme(&[], &[], &[]);
    assert_eq!(r.verdict, Verdict::Malformed);
    assert!(r.explanation.contains("`files_changed` must be a list of strings, found null"), "{}", r.explanation);
    g.scenario.governed = Some(g.mneme_side("with_mneme.json", "\u{feff}{}"));
    assert_eq!(g.judge_mneme(&[], &[], &[]).verdict, Verdict::Malformed);
    // A problem of scenario.json found at load makes the scenario MALFORMED.
    g.scenario.governed = Some(g.mneme_side("with_mneme.json", CLEAN));
    g.scenario.problems = vec!["scenario.json `scenario_type` must be \"violation\" or \"benign\", found \"x\"".into()];
    let r = g.judge_mneme(&[], &[], &[]);
    assert_eq!(r.verdict, Verdict::Malformed);
    assert!(r.explanation.contains("scenario_type"), "{}", r.explanation);
}

/// The load resolves each response's folder once and the verdict reads the
/// file through it, without following a symlink: a response that became a
/// symlink out of the root, a named pipe or a file too large after the load
/// is refused when it is read, as one that was so at load time is; one that
/// appeared after the load is read.
#[cfg(unix)]
#[test]
fn a_response_changed_after_the_load_is_checked_again_when_it_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("suite");
    let answers = root.join("answers");
    let mneme = root.join("mneme/one");
    fs::create_dir_all(&answers).unwrap();
    fs::create_dir_all(&mneme).unwrap();
    let outside = tmp.path().join("secret.json");
    fs::write(&outside, CLEAN).unwrap();
    let entry = |id: &str, side: &str| {
        format!("  - id: {id}\n    task: t\n    expect: [ADR-1]\n    responses:\n      governed: answers/{side}\n")
    };
    let yaml = [
        "scenarios:\n".to_string(),
        entry("link", "link.json"),
        entry("pipe", "pipe.json"),
        entry("big", "big.txt"),
        entry("late", "late.json"),
    ]
    .concat();
    fs::write(root.join("suite.yaml"), yaml).unwrap();
    for side in ["link.json", "pipe.json"] {
        fs::write(answers.join(side), CLEAN).unwrap();
    }
    fs::write(answers.join("big.txt"), "small").unwrap();
    fs::write(mneme.join("scenario.json"), r#"{"name": "m", "expected_protected_decision_ids": ["ADR-1"]}"#).unwrap();
    fs::write(mneme.join("query.txt"), "t").unwrap();
    fs::write(mneme.join("with_mneme.json"), CLEAN).unwrap();

    let limits = crate::scenarios::SuiteLimits { max_response_bytes: 200, ..Default::default() };
    let suite = Suite::load_with(&[&root], &limits).unwrap();
    let governed = |id: &str| suite.scenarios.iter().find(|s| s.id == id).unwrap().governed.clone().unwrap();
    for id in ["link", "pipe", "big", "m"] {
        assert!(read_response(&governed(id)).is_ok(), "{id} reads before anything changes");
    }
    assert!(read_response(&governed("late")).unwrap_err().contains("does not exist"));

    for side in [answers.join("link.json"), mneme.join("with_mneme.json")] {
        fs::remove_file(&side).unwrap();
        std::os::unix::fs::symlink(&outside, &side).unwrap();
    }
    fs::remove_file(answers.join("pipe.json")).unwrap();
    let made = std::process::Command::new("mkfifo").arg(answers.join("pipe.json")).status().unwrap();
    assert!(made.success());
    fs::write(answers.join("big.txt"), "x".repeat(201)).unwrap();
    fs::write(answers.join("late.json"), CLEAN).unwrap();

    for id in ["link", "m"] {
        let e = read_response(&governed(id)).unwrap_err();
        assert!(e.contains("leads outside the suite root"), "{id}: {e}");
    }
    let e = read_response(&governed("pipe")).unwrap_err();
    assert!(e.contains("a named pipe"), "{e}");
    let e = read_response(&governed("big")).unwrap_err();
    assert!(e.contains("larger than the limit (200 bytes)"), "{e}");
    assert!(read_response(&governed("late")).is_ok(), "a response written after the load is read");
}
