//! Every rule and the conclusion, from plain values: the bundled baseline
//! and edits of it, and memory pools parsed from text.

use std::path::Path;

use super::*;
use crate::baseline::BaselineError;
use crate::memory::Memory;
use crate::profile::Family;
use crate::verdict::Verdict;

fn bundled() -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
    crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn pool(text: &str) -> Memory {
    Memory::parse(Path::new("m.json"), text.to_string(), Family::Default)
}

fn plan_of(path: &str) -> BaselinePlan {
    BaselinePlan {
        path: path.into(),
        revision: None,
        accept_change: false,
        accepted_by: None,
        allow_incompatible: false,
    }
}

/// The working tree's baseline, no revision.
fn working(baseline: Report) -> Option<BaselineInput> {
    Some(BaselineInput { plan: plan_of("b.json"), shown: "b.json".into(), working: Some(baseline), at: None })
}

fn plan(gate: &GateSettings, baseline: Option<BaselineInput>) -> Plan<'_> {
    Plan { gate, filtered: false, baseline, memory: None, memory_ref: None, since: None }
}

fn violated(report: &Report) -> Vec<Rule> {
    report.gate.rules.iter().filter(|r| r.violated).map(|r| r.rule).collect()
}

fn rules(report: &Report) -> Vec<Rule> {
    report.gate.rules.iter().map(|r| r.rule).collect()
}

#[test]
fn without_a_baseline_the_rules_of_the_run_decide() {
    let gate = GateSettings::default();
    let report = evaluate(bundled(), plan(&gate, None)).unwrap();
    assert!(report.gate.passed);
    assert_eq!(rules(&report), gate::ABSOLUTE_RULES);
    assert!(report.comparison.is_none() && report.memory_diff.is_none());

    // A violated `fail` rule of the run fails the conclusion, whatever
    // `passed` said before.
    let mut failing = bundled();
    failing.gate.rules[1].violated = true;
    assert!(failing.gate.passed);
    let report = evaluate(failing, plan(&gate, None)).unwrap();
    assert!(!report.gate.passed);
}

#[test]
fn the_same_baseline_passes_and_adds_its_rules() {
    let gate = GateSettings::default();
    let report = evaluate(bundled(), plan(&gate, working(bundled()))).unwrap();
    assert!(report.gate.passed, "{:?}", report.gate);
    let expected: Vec<Rule> = gate::ABSOLUTE_RULES
        .into_iter()
        .chain([Rule::VerdictRegression, Rule::MissingScenarios, Rule::SuiteMeans])
        .collect();
    assert_eq!(rules(&report), expected);
    assert!(violated(&report).is_empty());
    assert!(report.comparison.unwrap().scenarios.is_empty());
}

#[test]
fn a_regression_fails_unless_its_rule_is_advisory_or_off() {
    let mut now = bundled();
    now.scenarios[0].verdict = Verdict::Fail;
    let gate = GateSettings::default();
    let report = evaluate(now.clone(), plan(&gate, working(bundled()))).unwrap();
    assert_eq!(violated(&report), [Rule::VerdictRegression]);
    assert!(!report.gate.passed);

    let mut advisory = GateSettings::default();
    advisory.set_mode(Rule::VerdictRegression, RuleMode::Advisory);
    let report = evaluate(now.clone(), plan(&advisory, working(bundled()))).unwrap();
    assert_eq!(violated(&report), [Rule::VerdictRegression], "reported");
    assert!(report.gate.passed, "but it does not fail the gate");

    let mut off = GateSettings::default();
    off.set_mode(Rule::VerdictRegression, RuleMode::Off);
    let report = evaluate(now, plan(&off, working(bundled()))).unwrap();
    assert!(violated(&report).is_empty());
    assert!(report.gate.passed);
}

#[test]
fn suite_means_are_advisory_unless_configured() {
    let mut now = bundled();
    now.summary.mrr = now.summary.mrr.map(|m| m - 0.02);
    let gate = GateSettings::default();
    let report = evaluate(now.clone(), plan(&gate, working(bundled()))).unwrap();
    assert_eq!(violated(&report), [Rule::SuiteMeans]);
    assert!(report.gate.passed);

    let mut strict = GateSettings::default();
    strict.set_mode(Rule::SuiteMeans, RuleMode::Fail);
    assert!(!evaluate(now.clone(), plan(&strict, working(bundled()))).unwrap().gate.passed);

    let mut tolerant = GateSettings::default();
    tolerant.set_tolerance(crate::gate::SuiteMean::Mrr, 0.05);
    assert!(violated(&evaluate(now, plan(&tolerant, working(bundled()))).unwrap()).is_empty());
}

#[test]
fn a_missing_scenario_fails_unless_the_run_was_filtered() {
    let mut now = bundled();
    now.scenarios.remove(3);
    let gate = GateSettings::default();
    let report = evaluate(now.clone(), plan(&gate, working(bundled()))).unwrap();
    assert_eq!(violated(&report), [Rule::MissingScenarios]);
    let mut filtered = plan(&gate, working(bundled()));
    filtered.filtered = true;
    let report = evaluate(now, filtered).unwrap();
    assert!(violated(&report).is_empty());
    assert!(report.comparison.unwrap().filtered);
}

#[test]
fn a_missing_or_incompatible_baseline_is_an_error() {
    let gate = GateSettings::default();
    // No baseline in the working tree nor at the revision.
    let at = AtRevision { revision: "main".into(), commit: "c0ffee".into(), report: None };
    let input = BaselineInput { plan: plan_of("b.json"), shown: "b.json".into(), working: None, at: Some(at) };
    let e = evaluate(bundled(), plan(&gate, Some(input))).unwrap_err();
    assert!(matches!(e, EvaluateError::Baseline(BaselineError::Missing { .. })), "{e:?}");

    // Another k: refused unless allowed.
    let mut other = bundled();
    other.fingerprint.k += 1;
    match evaluate(bundled(), plan(&gate, working(other.clone()))).unwrap_err() {
        EvaluateError::Incompatible { path, differences } => {
            assert_eq!(path, "b.json");
            assert!(differences[0].starts_with("k: "), "{differences:?}");
        }
        e => panic!("{e:?}"),
    }
    let mut allowed = working(other).unwrap();
    allowed.plan.allow_incompatible = true;
    assert!(evaluate(bundled(), plan(&gate, Some(allowed))).is_ok());
}

#[test]
fn a_re_pin_of_the_base_revisions_baseline_fails_unless_accepted() {
    let mut edited = bundled();
    edited.scenarios.remove(0);
    let input = |accept: bool| {
        let at = AtRevision { revision: "main".into(), commit: "c0ffee".into(), report: Some(bundled()) };
        let mut plan = plan_of("b.json");
        plan.revision = Some("main".into());
        plan.accept_change = accept;
        Some(BaselineInput { plan, shown: "b.json".into(), working: Some(edited.clone()), at: Some(at) })
    };
    let gate = GateSettings::default();
    let report = evaluate(bundled(), plan(&gate, input(false))).unwrap();
    assert_eq!(violated(&report), [Rule::BaselineChange]);
    assert!(!report.gate.passed);
    let report = evaluate(bundled(), plan(&gate, input(true))).unwrap();
    assert!(violated(&report).is_empty(), "{:?}", report.gate);
    assert!(report.comparison.unwrap().baseline_change.unwrap().accepted);
}

const OLD: &str = r#"[{"id": "ADR-001", "type": "rule", "title": "integers"}]"#;
const NEW: &str = r#"[{"id": "ADR-001", "type": "rule", "title": "integers, in minor units"},
                      {"id": "ADR-NEW", "type": "rule", "title": "a new one"}]"#;

#[test]
fn a_changed_memory_is_diffed_and_attributed() {
    let (old, new) = (pool(OLD), pool(NEW));
    let mut now = bundled();
    now.scenarios[0].verdict = Verdict::Weak;
    assert_eq!(now.scenarios[0].expected, ["ADR-001"]);
    let gate = GateSettings::default();
    let mut p = plan(&gate, working(bundled()));
    p.memory = Some(MemoryNow { pool: &new.pool, excluded: &new.excluded });
    p.memory_ref = Some(OldMemory { against: "main".into(), pool: old.pool.clone() });
    let report = evaluate(now, p).unwrap();
    let diff = report.memory_diff.as_ref().unwrap();
    assert_eq!((diff.revision.as_str(), diff.added.len(), diff.changed.len()), ("main", 1, 1));
    let change = &report.comparison.as_ref().unwrap().scenarios[0];
    assert_eq!(change.edited_decisions, ["ADR-001"], "the edit may explain the change");
    // `no_new_ungated` is off unless configured.
    assert!(!rules(&report).contains(&Rule::NoNewUngated));

    // The memory diff needs the memory now.
    let mut p = plan(&gate, None);
    p.memory_ref = Some(OldMemory { against: "main".into(), pool: old.pool });
    assert!(matches!(evaluate(bundled(), p).unwrap_err(), EvaluateError::MemoryNotLoaded("--memory-ref")));
}

#[test]
fn no_new_ungated_fails_on_a_decision_no_scenario_expects() {
    let (old, new) = (pool(OLD), pool(NEW));
    let mut gate = GateSettings::default();
    gate.set_mode(Rule::NoNewUngated, RuleMode::Fail);
    let since = |pool: Vec<Decision>| Some(Since::Memory(OldMemory { against: "main".into(), pool }));
    let now = MemoryNow { pool: &new.pool, excluded: &new.excluded };

    let mut p = plan(&gate, working(bundled()));
    p.memory = Some(now);
    p.since = since(old.pool.clone());
    let report = evaluate(bundled(), p).unwrap();
    assert_eq!(violated(&report), [Rule::NoNewUngated]);
    assert!(!report.gate.passed);
    let rule = report.gate.rules.last().unwrap();
    assert_eq!(rule.details, ["ADR-NEW: added since main, no scenario expects it (a new one)"]);

    // Expected by a scenario: gated.
    let mut expecting = bundled();
    expecting.scenarios[0].expected.push("ADR-NEW".into());
    let mut p = plan(&gate, working(bundled()));
    p.memory = Some(now);
    p.since = since(old.pool.clone());
    let report = evaluate(expecting, p).unwrap();
    assert_eq!(rules(&report).last(), Some(&Rule::NoNewUngated));
    assert!(violated(&report).is_empty());

    // The memory the baseline was pinned with, unchanged: nothing added.
    let mut p = plan(&gate, working(bundled()));
    p.since = Some(Since::Unchanged { against: "the memory the baseline was pinned with".into() });
    let report = evaluate(bundled(), p).unwrap();
    assert_eq!(rules(&report).last(), Some(&Rule::NoNewUngated));
    assert!(report.gate.passed);

    // Advisory: reported, not failed.
    let mut advisory = GateSettings::default();
    advisory.set_mode(Rule::NoNewUngated, RuleMode::Advisory);
    let mut p = plan(&advisory, None);
    p.memory = Some(now);
    p.since = since(old.pool.clone());
    let report = evaluate(bundled(), p).unwrap();
    assert_eq!(violated(&report), [Rule::NoNewUngated]);
    assert!(report.gate.passed);

    // A filtered run, or nothing to compare with: not judged.
    let mut p = plan(&gate, None);
    p.memory = Some(now);
    p.since = since(old.pool.clone());
    p.filtered = true;
    assert!(!rules(&evaluate(bundled(), p).unwrap()).contains(&Rule::NoNewUngated));
    assert!(!rules(&evaluate(bundled(), plan(&gate, None)).unwrap()).contains(&Rule::NoNewUngated));

    // Against the memory diff when there is one.
    let mut p = plan(&gate, None);
    p.memory = Some(now);
    p.memory_ref = Some(OldMemory { against: "v1".into(), pool: old.pool });
    let report = evaluate(bundled(), p).unwrap();
    assert_eq!(
        report.gate.rules.last().unwrap().details,
        ["ADR-NEW: added since v1, no scenario expects it (a new one)"]
    );
}

#[test]
fn judged_only_when_on_and_whole() {
    let mut gate = GateSettings::default();
    assert!(!Plan::judges_new_decisions(&gate, false));
    gate.set_mode(Rule::NoNewUngated, RuleMode::Advisory);
    assert!(Plan::judges_new_decisions(&gate, false));
    assert!(!Plan::judges_new_decisions(&gate, true));
}
