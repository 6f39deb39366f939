//! Comparisons, rules and messages on the bundled baseline and edits of it.

use super::*;
use crate::gate::{GateSettings, RuleOutcome};
use crate::verdict::Verdict;

fn bundled() -> Report {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json")).unwrap()
}

fn source() -> BaselineSource {
    BaselineSource { path: "b.json".into(), revision: None, commit: None }
}

fn violated(rules: &[RuleOutcome]) -> Vec<&str> {
    rules.iter().filter(|r| r.violated).map(|r| r.rule.name()).collect()
}

#[test]
fn identical_reports_have_no_change_and_no_violation() {
    let b = bundled();
    let c = compare(&b, &b, &GateSettings::default(), source());
    assert!(c.scenarios.is_empty() && c.added.is_empty() && c.removed.is_empty());
    assert!(!c.memory_changed && !c.suite_changed && c.incompatible.is_empty());
    assert!(c.metrics.iter().all(|m| m.movement == Movement::Unchanged), "{:?}", c.metrics);
    assert!(violated(&rules(&c, &GateSettings::default())).is_empty());
}

#[test]
fn each_baseline_rule_fires_on_its_cause_and_obeys_its_mode() {
    let b = bundled();
    let settings = GateSettings::default();

    // A worse verdict.
    let mut now = b.clone();
    now.scenarios[0].verdict = Verdict::Fail;
    let c = compare(&b, &now, &settings, source());
    assert_eq!(c.scenarios.len(), 1);
    assert!(c.scenarios[0].regressed);
    assert_eq!(violated(&rules(&c, &settings)), ["verdict_regression"]);
    let mut off = GateSettings::default();
    off.set_mode(crate::gate::Rule::VerdictRegression, crate::gate::RuleMode::Off);
    assert!(violated(&rules(&c, &off)).is_empty());
    // A better verdict is a change, not a regression.
    let c = compare(&now, &b, &settings, source());
    assert!(!c.scenarios[0].regressed);
    assert!(violated(&rules(&c, &settings)).is_empty());

    // A scenario gone, unless the run was filtered.
    let mut now = b.clone();
    let gone = now.scenarios.remove(3).id;
    let mut c = compare(&b, &now, &settings, source());
    assert_eq!(c.removed, [gone]);
    assert_eq!(violated(&rules(&c, &settings)), ["missing_scenarios"]);
    c.filtered = true;
    assert!(violated(&rules(&c, &settings)).is_empty());
    // A new scenario is only reported.
    let c = compare(&now, &b, &settings, source());
    assert_eq!(c.added.len(), 1);
    assert!(violated(&rules(&c, &settings)).is_empty());

    // Suite means: a lower mean or a higher rate, beyond the tolerance.
    let mut now = b.clone();
    now.summary.mrr = now.summary.mrr.map(|m| m - 0.02);
    now.summary.irrelevant_injection_rate = now.summary.irrelevant_injection_rate.map(|r| r + 0.01);
    let c = compare(&b, &now, &settings, source());
    let r = rules(&c, &settings);
    assert_eq!(violated(&r), ["suite_means"]);
    assert_eq!(r.iter().find(|r| r.rule == crate::gate::Rule::SuiteMeans).unwrap().details.len(), 2);
    assert!(crate::gate::GateOutcome::new(r).passed, "suite_means is advisory by default");
    let mut tolerant = GateSettings::default();
    tolerant.set_tolerance(crate::gate::SuiteMean::Mrr, 0.05);
    tolerant.set_tolerance(crate::gate::SuiteMean::IrrelevantInjectionRate, 0.01);
    let c = compare(&b, &now, &tolerant, source());
    assert!(violated(&rules(&c, &tolerant)).is_empty());
    let mrr = c.metrics.iter().find(|m| m.name == "mrr").unwrap();
    assert_eq!(mrr.movement, Movement::WithinTolerance);
    let mut strict = GateSettings::default();
    strict.set_mode(crate::gate::Rule::SuiteMeans, crate::gate::RuleMode::Fail);
    assert!(!crate::gate::GateOutcome::new(rules(&compare(&b, &now, &strict, source()), &strict)).passed);
    // A higher mean is an improvement.
    let c = compare(&now, &b, &settings, source());
    assert_eq!(c.metrics.iter().find(|m| m.name == "mrr").unwrap().movement, Movement::Improved);
}

#[test]
fn ranking_changes_are_itemised() {
    let b = bundled();
    let mut now = b.clone();
    let s = &mut now.scenarios[0];
    let first = s.retrieved.remove(0);
    for r in &mut s.retrieved {
        r.rank -= 1;
    }
    s.retrieved.push(crate::report::RetrievedEntry { id: "NEW-1".into(), score: 0.5, rank: 3 });
    let c = compare(&b, &now, &GateSettings::default(), source());
    let change = &c.scenarios[0];
    assert_eq!(change.left.len(), 1);
    assert_eq!((change.left[0].id.as_str(), change.left[0].baseline_rank), (first.id.as_str(), Some(1)));
    assert_eq!(change.entered[0].id, "NEW-1");
    assert_eq!(change.moved.len(), 2);
    let diff = change.context_diff.as_deref().unwrap();
    assert!(diff.contains(&format!("-1. [{}]", first.id)), "{diff}");
    assert!(diff.contains("+3. [NEW-1]"), "{diff}");
}

#[test]
fn incompatible_settings_are_named() {
    let b = bundled();
    let mut now = b.clone();
    now.fingerprint.k = 5;
    now.fingerprint.profile.weights.title = 2.0;
    now.fingerprint.metrics_version = "mneme-gate.metrics/2".into();
    let found = incompatibilities(&b, &now);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("k: the baseline has 3, this run 5"));
    assert!(found.iter().any(|f| f.contains("weights.title: the baseline used 5, this run 2")), "{found:?}");
}

#[test]
fn bm25f_constants_are_part_of_the_settings() {
    let b = bundled();
    let constants = b.fingerprint.profile.bm25f.clone().expect("the bundled baseline is pinned under default");
    assert_eq!(constants.get("k1"), Some(&10.0));
    let mut now = b.clone();
    now.fingerprint.profile.bm25f.as_mut().unwrap().insert("k1".into(), 2.0);
    assert_eq!(incompatibilities(&b, &now), ["profile bm25f.k1: the baseline used 10, this run 2"]);
    now.fingerprint.profile.bm25f = None;
    assert_eq!(incompatibilities(&b, &now).len(), constants.len(), "a classic run against a default baseline");
}

#[test]
fn error_messages_say_what_to_do() {
    let path = PathBuf::from("reports/baseline.json");
    let e = BaselineError::Read { path: path.clone(), source: std::io::Error::other("disk on fire") };
    assert_eq!(e.to_string(), "cannot read the baseline reports/baseline.json: disk on fire");
    assert!(std::error::Error::source(&e).is_some());
    assert_eq!(
        BaselineError::Missing { path }.to_string(),
        "there is no baseline at reports/baseline.json: pin one with `mneme-gate baseline`, or run with --no-baseline"
    );
    let e = BaselineError::Parse { path: "b.json".into(), line: 3, column: 1, message: "oops".into() };
    assert_eq!(
        e.to_string(),
        "b.json:3:1: the baseline is not a mneme-gate report: oops; re-pin it with `mneme-gate baseline`"
    );
    let e = BaselineError::Schema { path: "b.json".into(), found: "x/v0".into() };
    assert_eq!(
        e.to_string(),
        "b.json: the baseline has schema `x/v0`, this mneme-gate reads `mneme-gate.report/v1`; re-pin it with `mneme-gate baseline`"
    );
}

#[test]
fn a_report_of_another_schema_is_refused_by_name() {
    let e = parse("b.json", r#"{"schema": "mneme-gate.report/v9"}"#).unwrap_err();
    assert!(e.to_string().contains("schema `mneme-gate.report/v9`"), "{e}");
    let e = parse("b.json", "{\n  \"schema\": \"mneme-gate.report/v1\",\n  \"tool\": 3\n}").unwrap_err();
    assert!(e.to_string().starts_with("b.json:3:"), "{e}");
    let e = parse("b.json", "not json").unwrap_err();
    assert!(e.to_string().starts_with("b.json:1:"), "{e}");
}
