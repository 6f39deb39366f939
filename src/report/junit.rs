//! JUnit XML (`--junit`), written with quick-junit (the writer nextest uses).
//!
//! One `<testsuite>` per category (sorted by name), one `<testcase>` per
//! scenario (name = scenario id, classname = category, `file` = the suite
//! file, as GitLab and the GitHub test-report actions read it). FAIL,
//! WEAK_RETRIEVAL and MALFORMED are `<failure>`s (type = the verdict,
//! message = the explanation, body = the source, retrieved ids with ranks and
//! scores, missing ids and triggers); WEAK is `<skipped>` with its reason, so
//! dashboards show it without counting it as broken; PASS is a plain testcase.
//! The suite figures are `<properties>` of every testsuite (absent figures
//! are left out).
//!
//! The gate is a testsuite of its own, [`GATE_SUITE`], with classname `gate`
//! and one testcase per rule, so a dashboard that counts failures can tell
//! a scenario that failed from a rule that failed because of it: a violated
//! `fail` rule is a `<failure>` of type `gate` whose message says what is
//! wrong (`1 scenario is WEAK_RETRIEVAL: a`); an advisory violation passes
//! with its message and details in `<system-out>`; a rule that is `off` is
//! skipped.
//!
//! Counts follow the surefire and Jenkins schemas: every testsuite has
//! `tests`, `failures`, `errors` and `skipped` (quick-junit also writes
//! `disabled`, always 0 here: nothing is disabled, WEAK and rules that are
//! off are skipped). Times: the same bytes for the same inputs is a promise,
//! so every `time` is `0.000`, except the total of `<testsuites>` when the
//! report records timings (`--timings`). No timestamps.
//!
//! Strings from the inputs are made [`printable`] first: a control character
//! is shown escaped (`\n`, `\u{1b}`) rather than silently dropped (as
//! quick-junit drops what XML 1.0 forbids), so two ids that differ only in
//! one stay apart, and the file is well-formed XML.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite, XmlString};

use super::{figures, score, Report, ScenarioReport};
use crate::describe::printable;
use crate::gate::RuleMode;
use crate::verdict::Verdict;

/// The name of the gate's testsuite: apart from every category, so that
/// its failures are not counted as failing scenarios.
pub const GATE_SUITE: &str = "mneme-gate.gate";

pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new("mneme-gate");
    let properties = properties(report);
    let mut categories: Vec<&str> = report.scenarios.iter().map(|s| s.category.as_str()).collect();
    categories.sort_unstable();
    categories.dedup();
    for category in categories {
        let mut suite = TestSuite::new(printable(category));
        suite.add_properties(properties.iter().cloned());
        for s in report.scenarios.iter().filter(|s| s.category == category) {
            suite.add_test_case(test_case(s));
        }
        junit.add_test_suite(counted(suite));
    }
    let mut gate = TestSuite::new(GATE_SUITE);
    gate.add_properties(properties.iter().cloned());
    for rule in &report.gate.rules {
        let said = printable(rule.message.as_deref().unwrap_or(&rule.description)).into_owned();
        let status = match (rule.mode, rule.violated) {
            (RuleMode::Off, _) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message("the rule is off in mneme-gate.yaml");
                s
            }
            (RuleMode::Fail, true) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_type("gate").set_message(said.as_str()).set_description(lines(&rule.details));
                s
            }
            _ => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(rule.rule.name(), status);
        case.set_classname("gate").set_time(Duration::ZERO);
        if rule.mode == RuleMode::Advisory && rule.violated {
            case.set_system_out(format!("advisory: {said}\n{}", lines(&rule.details)));
        }
        gate.add_test_case(case);
    }
    junit.add_test_suite(counted(gate));
    let total = report.timings.as_ref().map_or(0.0, |t| t.total_ms / 1000.0);
    junit.set_time(Duration::try_from_secs_f64(total).unwrap_or(Duration::ZERO));
    let mut xml = junit.to_string().expect("an in-memory JUnit report always serialises");
    if !xml.ends_with('\n') {
        xml.push('\n');
    }
    xml
}

/// A testsuite with the counts the surefire and Jenkins schemas read: its
/// skipped test cases as `skipped` (quick-junit counts them as `disabled`),
/// and a `time` of 0 (no clock in the file).
fn counted(mut suite: TestSuite) -> TestSuite {
    let skipped = std::mem::take(&mut suite.disabled);
    suite.set_time(Duration::ZERO);
    suite.extra.insert(XmlString::new("skipped"), XmlString::new(skipped.to_string()));
    suite
}

fn properties(report: &Report) -> Vec<Property> {
    let m = &report.summary;
    let f = &report.fingerprint;
    let mut out = vec![
        Property::new("profile", printable(&f.profile.name)),
        Property::new("k", f.k.to_string()),
        Property::new("memory_sha256", f.memory.sha256.as_str()),
        Property::new("metrics_version", f.metrics_version.as_str()),
        Property::new("governed", m.governed.to_string()),
    ];
    if let Some(r) = m.pass_rate {
        out.push(Property::new("pass_rate", figures::exact(r)));
    }
    let figures = [
        ("mean_recall_at_k", m.mean_recall_at_k),
        ("mean_recall_at_1", m.mean_recall_at_1),
        ("mean_precision_at_k", m.mean_precision_at_k),
        ("mrr", m.mrr),
        ("mean_ndcg_at_k", m.mean_ndcg_at_k),
        ("irrelevant_injection_rate", m.irrelevant_injection_rate),
        ("ungoverned_injection_rate", m.ungoverned_injection_rate),
    ];
    for (name, value) in figures {
        if let Some(v) = value {
            out.push(Property::new(name, figures::exact(v)));
        }
    }
    out.push(Property::new("gate_passed", report.gate.passed.to_string()));
    out
}

fn test_case(s: &ScenarioReport) -> TestCase {
    let status = match s.verdict {
        Verdict::Pass => TestCaseStatus::success(),
        Verdict::Weak => {
            let mut st = TestCaseStatus::skipped();
            st.set_type("WEAK").set_message(printable(&s.explanation));
            st
        }
        Verdict::Fail | Verdict::FalsePositive | Verdict::WeakRetrieval | Verdict::Malformed => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_type(s.verdict.as_str()).set_message(printable(&s.explanation)).set_description(body(s));
            st
        }
    };
    let mut case = TestCase::new(printable(&s.id), status);
    case.set_classname(printable(&s.category)).set_time(Duration::ZERO);
    case.extra.insert(XmlString::new("file"), XmlString::new(printable(&s.source.path)));
    case.extra.insert(XmlString::new("line"), XmlString::new(s.source.line.to_string()));
    case
}

/// The failure body: everything a reviewer needs without opening the JSON.
fn body(s: &ScenarioReport) -> String {
    let mut out = format!("{} at {}\n", s.verdict, printable(&s.source.to_string()));
    out.push_str(&format!("task: {}\n", printable(&s.task)));
    if let Some(f) = &s.edited_file {
        out.push_str(&format!("edited file: {}\n", printable(f)));
    }
    out.push_str(&format!("expected: {}\n", list(&s.expected)));
    if s.retrieved.is_empty() {
        out.push_str("retrieved: nothing\n");
    } else {
        out.push_str("retrieved:\n");
        for r in &s.retrieved {
            out.push_str(&format!("  {}. {} (score {})\n", r.rank, printable(&r.id), score(r.score)));
        }
    }
    out.push_str(&format!("missing: {}\n", list(&s.missing)));
    out.push_str(&format!("control triggers: {}\n", list(&s.triggers.control)));
    out.push_str(&format!("governed triggers: {}\n", list(&s.triggers.governed)));
    out
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "-".into()
    } else {
        items.iter().map(|i| printable(i)).collect::<Vec<_>>().join(", ")
    }
}

/// Strings from the inputs, one per line.
fn lines(items: &[String]) -> String {
    items.iter().map(|i| printable(i)).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn verdicts_map_to_junit_outcomes() {
        let mut r = bundled();
        r.scenarios[0].verdict = Verdict::Fail;
        r.scenarios[0].explanation = "leaked <psycopg2> & more".into();
        r.scenarios[1].verdict = Verdict::Weak;
        r.scenarios[1].explanation = "no teeth".into();
        r.scenarios[2].verdict = Verdict::Malformed;
        let xml = render(&r);
        let (a, b, c) = (&r.scenarios[0], &r.scenarios[1], &r.scenarios[2]);
        assert!(xml.contains(&format!("<testcase name=\"{}\" classname=\"{}\"", a.id, a.category)), "{xml}");
        assert!(xml.contains("<failure message=\"leaked &lt;psycopg2&gt; &amp; more\" type=\"FAIL\">"), "{xml}");
        assert!(xml.contains(&format!("name=\"{}\"", b.id)));
        assert!(xml.contains("<skipped message=\"no teeth\" type=\"WEAK\"/>"), "{xml}");
        assert!(xml.contains("type=\"MALFORMED\""), "{c:?}");
        assert_eq!(xml.matches("<failure").count(), 2);
        assert!(xml.contains(&format!("file=\"{}\"", a.source.path)));
        // The gate suite: one testcase per rule.
        assert!(xml.contains("<testsuite name=\"mneme-gate.gate\""), "{xml}");
        assert_eq!(xml.matches("classname=\"gate\"").count(), r.gate.rules.len());
        assert!(xml.contains("<property name=\"mean_recall_at_k\" value=\"1\"/>"), "{xml}");
        assert!(!xml.contains("timestamp"), "no clock in the file");
        assert_eq!(xml.matches(" time=").count(), xml.matches(" time=\"0.000\"").count(), "{xml}");
        assert!(xml.contains("<testsuites name=\"mneme-gate\" tests=") && xml.contains(" skipped=\"1\""), "{xml}");
        assert!(!xml.contains("disabled=\"1\""), "{xml}");
        // With timings, the total is the run's.
        r.timings = Some(crate::report::Timings { load_ms: 1.0, run_ms: 2.0, total_ms: 1234.0 });
        assert!(render(&r).contains("errors=\"0\" time=\"1.234\">"), "{}", render(&r));
    }

    #[test]
    fn a_violated_fail_rule_is_a_failure_and_an_advisory_one_is_not() {
        let mut r = bundled();
        r.gate.rules[0].violated = true;
        r.gate.rules[0].message = Some("1 governed scenario misses an expected decision: x".into());
        r.gate.rules[0].details = vec!["x: recall@3 0/1".into()];
        r.gate.rules[1].violated = true;
        r.gate.rules[1].mode = RuleMode::Advisory;
        r.gate.rules[1].message = Some("1 scenario is WEAK_RETRIEVAL: y".into());
        r.gate.rules[2].mode = RuleMode::Off;
        let xml = render(&r);
        assert!(
            xml.contains("<failure message=\"1 governed scenario misses an expected decision: x\" type=\"gate\">"),
            "{xml}"
        );
        assert!(xml.contains("<system-out>advisory: 1 scenario is WEAK_RETRIEVAL: y\n"), "{xml}");
        assert!(xml.contains("x: recall@3 0/1"), "{xml}");
        assert_eq!(xml.matches("<failure").count(), 1);
        assert!(xml.contains("<system-out>advisory: "), "{xml}");
        assert!(xml.contains("the rule is off in mneme-gate.yaml"), "{xml}");
    }
}
